import type { HttpServerRequest } from "@effect/platform"
import { Effect, Stream } from "effect"
import { IncomingMessage } from "node:http"
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../domain/jsonDepth.js"
import { MAX_HTTP_BODY_BYTES } from "../domain/product.js"

/** A request body as read: its bytes, or why there are none to use. */
export type RequestBody = Buffer | "too_large" | "unreadable" | "too_deep"

/** The sentence for a body nested deeper than the limit. */
export const TOO_DEEP_MESSAGE = `The request nests deeper than ${MAX_JSON_DEPTH} levels.`

/** A body read whole is refused when it nests too deep for anything to parse it safely. */
const boundedDepth = (body: RequestBody): RequestBody =>
  Buffer.isBuffer(body) && nestsDeeperThan(body) ? "too_deep" : body

/** Past this the client is cut off instead of drained; draining lets it read the 400 answer. */
const MAX_DRAINED_BYTES = 64 * 1024 * 1024

/**
 * Reads at most 1 MiB of body. A larger one (declared or chunked) is read to its end and discarded so
 * the client gets a clean 400 rather than a reset connection, up to 64 MiB, where it is cut off. A
 * request that did not come from Node's server (a web handler's) is read from its body stream.
 */
export const readRequestBody = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<RequestBody> => {
  const source = request.source
  if (source instanceof IncomingMessage) return Effect.map(readIncoming(request, source), boundedDepth)
  if (source instanceof Request && source.body === null) return Effect.succeed(Buffer.alloc(0))
  return Effect.map(readStream(request), boundedDepth)
}

const readStream = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<RequestBody> =>
  Effect.suspend(() => {
    const declaredTooLarge = Number(request.headers["content-length"] ?? 0) > MAX_HTTP_BODY_BYTES
    const chunks: Array<Uint8Array> = []
    let size = 0
    const keep = (chunk: Uint8Array) =>
      Effect.sync(() => {
        size += chunk.length
        if (!declaredTooLarge && size <= MAX_HTTP_BODY_BYTES) chunks.push(chunk)
        return size <= MAX_DRAINED_BYTES
      })
    return Stream.runForEachWhile(request.stream, keep).pipe(
      Effect.map((): RequestBody => (declaredTooLarge || size > MAX_HTTP_BODY_BYTES ? "too_large" : Buffer.concat(chunks))),
      Effect.orElseSucceed((): RequestBody => "unreadable")
    )
  })

const readIncoming = (request: HttpServerRequest.HttpServerRequest, incoming: IncomingMessage): Effect.Effect<RequestBody> =>
  Effect.async((resume) => {
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
