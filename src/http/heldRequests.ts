import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { Duplex } from "node:stream"
import { SECURITY_HEADERS } from "./responses.js"

/** How long a client may take to send a request's headers and body. */
export const REQUEST_DEADLINE_MILLIS = 10_000

/** Node's own answers to requests it cannot parse, with the headers every answer of the daemon carries. */
const CLIENT_ERROR_STATUS: Readonly<Record<string, readonly [number, string]>> = {
  HPE_HEADER_OVERFLOW: [431, "Request Header Fields Too Large"],
  ERR_HTTP_REQUEST_TIMEOUT: [408, "Request Timeout"]
}

/** As Node's own handler: answer only when nothing of a response was sent yet, then close the connection. */
const answerClientError = (error: NodeJS.ErrnoException, socket: Duplex) => {
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage
  if (socket.writable && inFlight?.headersSent !== true) {
    const [status, reason] = CLIENT_ERROR_STATUS[error.code ?? ""] ?? [400, "Bad Request"]
    const headers = Object.entries(SECURITY_HEADERS).map(([name, value]) => `${name}: ${value}\r\n`).join("")
    socket.write(`HTTP/1.1 ${status} ${reason}\r\n${headers}Content-Length: 0\r\nConnection: close\r\n\r\n`)
  }
  socket.destroy(error)
}

/**
 * An HTTP server that holds requests arriving between `listen` and the moment a request handler is
 * attached, then hands them over. Node would otherwise accept such connections and never answer.
 */
export const createHoldingServer = (): Server => {
  // A request without Host reaches the app (which answers 421 with its headers) instead of Node's bare 400.
  // A request must arrive whole within 10 s (408 otherwise; Node's default is five minutes), checked every second.
  const server = createServer({
    keepAliveTimeout: 5_000,
    requireHostHeader: false,
    requestTimeout: REQUEST_DEADLINE_MILLIS,
    headersTimeout: REQUEST_DEADLINE_MILLIS,
    connectionsCheckingInterval: 1_000
  })
  server.on("clientError", answerClientError)
  const pending: Array<readonly [IncomingMessage, ServerResponse]> = []
  let handed = false
  const hold = (request: IncomingMessage, response: ServerResponse) => {
    if (!handed) pending.push([request, response])
  }
  server.on("request", hold)
  server.on("newListener", function onListener(event: string | symbol, listener: (...args: Array<any>) => void) {
    if (event !== "request" || listener === hold) return
    handed = true
    server.off("newListener", onListener)
    queueMicrotask(() => {
      server.off("request", hold)
      for (const [request, response] of pending.splice(0)) listener(request, response)
    })
  })
  return server
}
