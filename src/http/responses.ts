import { HttpServerResponse } from "@effect/platform"

export const SECURITY_HEADERS = {
  "Cache-Control": "no-store",
  "X-Content-Type-Options": "nosniff",
  "X-Frame-Options": "DENY",
  "Referrer-Policy": "no-referrer",
  "Content-Security-Policy": [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'"
  ].join("; ")
} as const

export const withSecurityHeaders = (response: HttpServerResponse.HttpServerResponse) =>
  HttpServerResponse.setHeaders(response, SECURITY_HEADERS)

export const jsonResponse = (status: number, body: unknown) =>
  HttpServerResponse.unsafeJson(body, { status, contentType: "application/json; charset=utf-8" })

export const textResponse = (status: number, body: string) =>
  HttpServerResponse.text(body, { status, contentType: "text/plain; charset=utf-8" })

export const errorResponse = (status: number, message: string) =>
  jsonResponse(status, { content: [{ type: "text", text: message }], isError: true, error: message })
