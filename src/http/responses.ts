import { Headers, HttpServerResponse } from "@effect/platform"

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

const securityHeaders = Headers.fromInput(SECURITY_HEADERS)

/** A saved page the controller shows in place (a portfolio's): its own inline styles, no script at all. */
export const savedPageHeaders = Headers.fromInput({
  ...SECURITY_HEADERS,
  "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
})

/**
 * The controller app's last step: every answer, whoever made it (a route, RPC, a stream), carries these.
 * The constructors below set them as they build a response, so only the others need the copy a merge makes.
 */
export const withSecurityHeaders = (response: HttpServerResponse.HttpServerResponse) =>
  response.headers["content-security-policy"] === undefined ? HttpServerResponse.setHeaders(response, securityHeaders) : response

/** A string body handed to Node as it is: one write with the headers, no encoding pass. */
const stringResponse = (status: number, body: string, contentType: string) =>
  HttpServerResponse.raw(body, { status, headers: securityHeaders, contentType, contentLength: Buffer.byteLength(body) })

export const bytesResponse = (body: Uint8Array, contentType: string) =>
  HttpServerResponse.uint8Array(body, { status: 200, headers: securityHeaders, contentType })

const jsonContentType = "application/json; charset=utf-8"

export const jsonResponse = (status: number, body: unknown) => stringResponse(status, JSON.stringify(body), jsonContentType)

export const textResponse = (status: number, body: string) =>
  stringResponse(status, body, "text/plain; charset=utf-8")

export const errorResponse = (status: number, message: string) =>
  jsonResponse(status, { content: [{ type: "text", text: message }], isError: true, error: message })
