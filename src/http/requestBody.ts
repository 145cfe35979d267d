import type { HttpServerRequest } from "@effect/platform"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { Effect } from "effect"
import { MAX_HTTP_BODY_BYTES } from "../domain/product.js"

/** A request body as read: its bytes, or why there are none to use. */
export type RequestBody = Buffer | "too_large" | "unreadable"

/** Past this the client is cut off instead of drained; draining lets it read the 400 answer. */
const MAX_DRAINED_BYTES = 64 * 1024 * 1024

/**
 * Reads at most 1 MiB of body. A larger one (declared or chunked) is read to its end and discarded so
 * the client gets a clean 400 rather than a reset connection, up to 64 MiB, where it is cut off.
 */
export const readRequestBody = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<RequestBody> =>
  Effect.async((resume) => {
    const incoming = NodeHttpServerRequest.toIncomingMessage(request)
    const declaredTooLarge = Number(request.headers["content-length"] ?? 0) > MAX_HTTP_BODY_BYTES
    const chunks: Array<Buffer> = []
    let size = 0
    let settled = false
    const settle = (body: RequestBody) => {
      if (settled) return
      settled = true
      resume(Effect.succeed(body))
    }
    // Each of these fires at most once; `on` spares the wrappers `once` would allocate per request.
    incoming.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (!declaredTooLarge && size <= MAX_HTTP_BODY_BYTES) return void chunks.push(chunk)
      if (size > MAX_DRAINED_BYTES) {
        settle("too_large")
        incoming.destroy()
      }
    })
    incoming.on("end", () => settle(declaredTooLarge || size > MAX_HTTP_BODY_BYTES ? "too_large" : Buffer.concat(chunks)))
    incoming.on("error", () => settle("unreadable"))
    incoming.on("close", () => {
      if (!incoming.readableEnded) settle("unreadable")
    })
  })
