import { describe, expect, it } from "vitest"
import {
  bytesResponse,
  errorResponse,
  jsonResponse,
  SECURITY_HEADERS,
  textResponse,
  withSecurityHeaders
} from "../../src/http/responses.js"
import { HttpServerResponse } from "@effect/platform"

const lowerCased = Object.fromEntries(Object.entries(SECURITY_HEADERS).map(([name, value]) => [name.toLowerCase(), value]))

describe("controller responses", () => {
  it("carry the security headers and the byte length of a non-ASCII body", () => {
    const body = { text: "Réplica terminée ✓" }
    const response = withSecurityHeaders(jsonResponse(200, body))
    expect(response.headers).toMatchObject(lowerCased)
    expect(response.headers["content-type"]).toBe("application/json; charset=utf-8")
    expect(response.headers["content-length"]).toBe(String(Buffer.byteLength(JSON.stringify(body))))
    expect(Number(response.headers["content-length"])).toBeGreaterThan(JSON.stringify(body).length)
  })

  it("the app's last step sets the same headers on every kind of response", () => {
    const responses = [
      textResponse(404, "Not found."),
      errorResponse(400, "The run ID is invalid."),
      bytesResponse(new Uint8Array([1, 2, 3]), "image/png"),
      HttpServerResponse.text("from elsewhere")
    ].map(withSecurityHeaders)
    for (const response of responses) expect(response.headers).toMatchObject(lowerCased)
    expect(responses[2]!.headers["content-length"]).toBe("3")
  })
})
