import { HttpServerResponse } from "@effect/platform"
import { errorResponse, SECURITY_HEADERS } from "./responses.js"

/** The one sentence a request without the controller's API token gets. */
export const API_TOKEN_MESSAGE = "This controller needs its API token: open the address the controller printed."

/** 401 for an API request without the token; nothing of the request has been read. */
export const missingToken = () => errorResponse(401, API_TOKEN_MESSAGE)

/** The token of an `Authorization: Bearer <token>` header, or "" without one. */
export const bearerOf = (header: string | undefined) => {
  if (header === undefined) return ""
  const match = /^Bearer +(\S+) *$/i.exec(header)
  return match?.[1] ?? ""
}

/** Every value the `Cookie` header gives the cookie `name` (a browser may send more than one). */
export const cookieValues = (header: string | undefined, name: string): ReadonlyArray<string> => {
  if (header === undefined) return []
  const values: Array<string> = []
  for (const part of header.split(";")) {
    const equals = part.indexOf("=")
    if (equals !== -1 && part.slice(0, equals).trim() === name) values.push(part.slice(equals + 1).trim())
  }
  return values
}

/** The value of the query parameter `token` of a request target, or undefined without one. */
export const queryToken = (target: string) => {
  const query = target.indexOf("?")
  return query === -1 ? undefined : new URLSearchParams(target.slice(query + 1)).get("token") ?? undefined
}

/**
 * Sets the page's cookie and sends the browser to `location` (the address it asked for, without the
 * token), so the token leaves the address bar at once.
 */
export const cookieRedirect = (cookieName: string, token: string, location = "/") =>
  HttpServerResponse.empty({
    status: 303,
    headers: {
      ...SECURITY_HEADERS,
      Location: location,
      "Set-Cookie": `${cookieName}=${token}; Path=/; HttpOnly; SameSite=Strict`
    }
  })

const GATE_PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Codex Replay: open the controller's address</title>
  <link rel="icon" href="/favicon.svg" type="image/svg+xml">
  <link rel="stylesheet" href="/controller.css">
</head>
<body>
  <main id="main" class="gate">
    <h1>Codex Replay</h1>
    <p id="gate-message">This controller needs its API token. Open the address the controller printed — it ends in <code>/?token=…</code> — or run <code>codex-replay open</code> in a terminal and open the address it prints.</p>
  </main>
</body>
</html>
`

/** The page at `/` for a browser without the cookie: how to get in, instead of a page whose every call fails. */
export const gatePage = () =>
  HttpServerResponse.text(GATE_PAGE, { status: 401, contentType: "text/html; charset=utf-8", headers: SECURITY_HEADERS })
