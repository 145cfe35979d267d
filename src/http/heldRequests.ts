import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"

/**
 * An HTTP server that holds requests arriving between `listen` and the moment a request handler is
 * attached, then hands them over. Node would otherwise accept such connections and never answer.
 */
export const createHoldingServer = (): Server => {
  const server = createServer({ keepAliveTimeout: 5_000 })
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
