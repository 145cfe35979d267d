import { HttpServerRequest, type HttpServerResponse } from "@effect/platform"
import { RpcSerialization, RpcServer } from "@effect/rpc"
import { Effect, type Scope } from "effect"
import type { ToolRegistry } from "../programs/controller/tool.js"
import { readRequestBody, TOO_DEEP_MESSAGE } from "../http/requestBody.js"
import { jsonResponse } from "../http/responses.js"
import { Activity } from "../services/Activity.js"
import { makeControllerRpcs, toolHandlers } from "./group.js"

/** The HTTP handler of `POST /api/rpc` once the caller has checked the Host and the tokens. */
export type RpcHttpApp = Effect.Effect<HttpServerResponse.HttpServerResponse, never, HttpServerRequest.HttpServerRequest | Scope.Scope>

const SERIALIZATIONS = {
  "application/json": RpcSerialization.json,
  "application/ndjson": RpcSerialization.ndjson
} as const
type MediaType = keyof typeof SERIALIZATIONS

const mediaType = (value: string | undefined): MediaType | undefined => {
  const type = value?.split(";")[0]?.trim().toLowerCase()
  return type === "application/json" || type === "application/ndjson" ? type : undefined
}

const badRequest = (message: string) => jsonResponse(400, { error: message })

/** Framing headers describe the original transfer, not the bytes handed on. */
const FRAMING_HEADERS = new Set(["content-length", "transfer-encoding", "connection", "keep-alive", "expect"])
const forwardedHeaders = (headers: Readonly<Record<string, string>>) =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => !FRAMING_HEADERS.has(name.toLowerCase())))

/** The request again, with the body the edge has read (and bounded) in place of its stream. */
const withBody = (request: HttpServerRequest.HttpServerRequest, body: Buffer) =>
  HttpServerRequest.fromWeb(
    new Request(new URL(request.url, "http://127.0.0.1"), { method: "POST", headers: forwardedHeaders(request.headers), body: body.toString("utf8") })
  )

/**
 * `POST /api/rpc`: the controller's procedures (src/rpc/group.ts) on `@effect/rpc`'s server and HTTP
 * protocol, JSON or ndjson by the request's content type.
 *
 * The edge keeps only what is HTTP's: the content type (415) and the 1 MiB body limit (400); the Host and
 * the tokens are checked before it (src/http/controllerApp.ts). The RPC server reads the messages,
 * decodes each payload with its tool's Schema and answers a payload the Schema refuses as a typed
 * `InvalidArgument` with `/api/call`'s sentence. Build it inside the daemon's scope: the two RPC servers
 * live as long as that scope.
 */
export const makeRpcHttpApp = <R>(tools: ToolRegistry<R>) =>
  Effect.gen(function*() {
    const group = makeControllerRpcs()
    const handlers = yield* group.toHandlersContext(toolHandlers(tools))
    const serve = (type: MediaType) =>
      RpcServer.toHttpApp(group).pipe(
        Effect.provide(handlers),
        Effect.provideService(RpcSerialization.RpcSerialization, SERIALIZATIONS[type])
      )
    const apps: Record<MediaType, RpcHttpApp> = {
      "application/json": yield* serve("application/json"),
      "application/ndjson": yield* serve("application/ndjson")
    }
    const activity = yield* Activity

    const app: RpcHttpApp = Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      // A client driving the controller is a sign of use, like the page's heartbeat.
      yield* activity.touch
      const type = mediaType(request.headers["content-type"])
      if (type === undefined) return jsonResponse(415, { error: "Expected application/json or application/ndjson." })
      const body = yield* readRequestBody(request)
      if (body === "too_large") return badRequest("The RPC request body is too large.")
      if (body === "unreadable") return badRequest("The RPC request body could not be read.")
      if (body === "too_deep") return badRequest(TOO_DEEP_MESSAGE)
      return yield* Effect.provideService(apps[type], HttpServerRequest.HttpServerRequest, withBody(request, body))
    })
    return app
  })
