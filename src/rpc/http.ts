import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { RpcSerialization, RpcServer } from "@effect/rpc"
import { Effect, Either, Schema, type Scope } from "effect"
import { invalidArgument, ToolFailure } from "../domain/errors.js"
import { describeParseError } from "../domain/toolResult.js"
import { type ToolRegistry, unknownToolError } from "../programs/controller/tool.js"
import { readRequestBody } from "../http/requestBody.js"
import { jsonResponse } from "../http/responses.js"
import { Activity } from "../services/Activity.js"
import { makeControllerRpcs, toolHandlers } from "./group.js"

/** The HTTP handler of `POST /api/rpc` once the caller has checked the Host and the control token. */
export type RpcHttpApp = Effect.Effect<HttpServerResponse.HttpServerResponse, never, HttpServerRequest.HttpServerRequest | Scope.Scope>

const SERIALIZATIONS = {
  "application/json": RpcSerialization.json,
  "application/ndjson": RpcSerialization.ndjson
} as const
type MediaType = keyof typeof SERIALIZATIONS

const REQUEST_ID = /^[0-9]{1,19}$/

const mediaType = (value: string | undefined): MediaType | undefined => {
  const type = value?.split(";")[0]?.trim().toLowerCase()
  return type === "application/json" || type === "application/ndjson" ? type : undefined
}

const badRequest = (message: string) => jsonResponse(400, { error: message })

interface RequestMessage {
  readonly id: string
  readonly tag: string
  readonly payload: unknown
}

/** Parses the body into the single `Request` message the HTTP protocol carries per POST. */
const parseRequestMessage = (type: MediaType, text: string): Either.Either<RequestMessage, string> => {
  let messages: ReadonlyArray<unknown>
  try {
    messages = type === "application/json"
      ? [JSON.parse(text) as unknown]
      : text.split("\n").filter((line) => line.trim() !== "").map((line) => JSON.parse(line) as unknown)
  } catch {
    return Either.left(`The RPC request must contain ${type === "application/json" ? "JSON" : "one JSON object per line"}.`)
  }
  if (messages.length !== 1) return Either.left("The RPC request must contain exactly one message.")
  const message = messages[0]
  if (typeof message !== "object" || message === null || Array.isArray(message)) {
    return Either.left("The RPC message must be an object.")
  }
  const fields = message as Record<string, unknown>
  if (fields._tag !== "Request") return Either.left("The RPC message must be a Request.")
  if (typeof fields.id !== "string" || !REQUEST_ID.test(fields.id)) {
    return Either.left("The RPC request id must be a decimal string.")
  }
  if (typeof fields.tag !== "string" || fields.tag === "") return Either.left("The RPC request must name a tool (tag).")
  const headers = fields.headers
  if (!Array.isArray(headers) || !headers.every((pair) =>
    Array.isArray(pair) && pair.length === 2 && typeof pair[0] === "string" && typeof pair[1] === "string"
  )) {
    return Either.left("The RPC request headers must be a list of [name, value] pairs.")
  }
  return Either.right({ id: fields.id, tag: fields.tag, payload: fields.payload })
}

/** Framing headers describe the original transfer, not the text handed on. */
const FRAMING_HEADERS = new Set(["content-length", "transfer-encoding", "connection", "keep-alive", "expect"])
const forwardedHeaders = (headers: Readonly<Record<string, string>>) =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => !FRAMING_HEADERS.has(name.toLowerCase())))

const encodeToolFailure = Schema.encodeSync(ToolFailure)

/** Answers one request with a typed failure, exactly as the RPC server would encode it. */
const typedFailure = (type: MediaType, requestId: string, error: ToolFailure) => {
  const message = {
    _tag: "Exit",
    requestId,
    exit: { _tag: "Failure", cause: { _tag: "Fail", error: encodeToolFailure(error) } }
  }
  const body = type === "application/json" ? JSON.stringify([message]) : `${JSON.stringify(message)}\n`
  return HttpServerResponse.text(body, { status: 200, contentType: type })
}

/**
 * `POST /api/rpc`: the controller tools as an `@effect/rpc` group over HTTP, JSON or ndjson.
 *
 * The edge checks what the RPC server would otherwise turn into a defect: the body (size, framing, one
 * well-formed `Request`), the tool name, and the payload against the tool's Schema. A bad tool name or
 * payload answers a typed `ControllerError` with the message `/api/call` gives; a malformed body 400.
 * Build it inside the daemon's scope: the two RPC servers live as long as that scope.
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
      if (type === undefined) {
        return jsonResponse(415, { error: "Expected application/json or application/ndjson." })
      }
      const bytes = yield* readRequestBody(request)
      if (bytes === "too_large") return badRequest("The RPC request body is too large.")
      if (bytes === "unreadable") return badRequest("The RPC request body could not be read.")
      const body = bytes.toString("utf8")
      const message = parseRequestMessage(type, body)
      if (Either.isLeft(message)) return badRequest(message.left)
      const { id, tag, payload } = message.right
      const rpc = group.requests.get(tag)
      if (rpc === undefined) {
        return typedFailure(type, id, unknownToolError(tag))
      }
      const decoded = yield* Effect.either(Schema.decodeUnknown(rpc.payloadSchema as Schema.Schema<unknown, unknown>)(payload))
      if (Either.isLeft(decoded)) return typedFailure(type, id, invalidArgument(describeParseError(decoded.left)))
      // The body has been read here; the RPC server reads the same text from an equivalent request.
      const forwarded = HttpServerRequest.fromWeb(
        new Request(new URL(request.url, "http://127.0.0.1"), { method: "POST", headers: forwardedHeaders(request.headers), body })
      )
      return yield* Effect.provideService(apps[type], HttpServerRequest.HttpServerRequest, forwarded)
    })
    return app
  })
