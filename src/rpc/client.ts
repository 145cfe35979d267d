import { settingsOf } from "../services/Settings.js"
import { FetchHttpClient, HttpClient, HttpClientError, HttpClientRequest } from "@effect/platform"
import { RpcClient, RpcClientError, RpcSerialization } from "@effect/rpc"
import { Effect, Layer, Option, Schema, type Scope } from "effect"
import { type ControllerError, controllerError } from "../domain/errors.js"
import { CONTROL_HEADER, controllerOrigin } from "../domain/product.js"
import type { Environment } from "../domain/settings.js"
import type { ToolResult } from "../domain/toolResult.js"
import { ensureKnownController } from "../programs/ensureController.js"
import { ControllerClient, type KnownController } from "../services/ControllerClient.js"
import { FileStore } from "../services/FileStore.js"
import { makeControllerRpcs } from "./group.js"

/** Calls one controller tool by name; a user error is the controller's `ControllerError`. */
export type CallTool = (name: string, payload: unknown) => Effect.Effect<ToolResult, ControllerError>

/**
 * The group as a client sees it: the same tags, results and errors as the daemon's, with payloads sent
 * as given. The daemon checks every payload against the tool's Schema at its edge and answers a
 * mistake with a typed `ControllerError`, so the client needs no copy of the tools.
 */
const clientGroup = (names: ReadonlyArray<string>) =>
  makeControllerRpcs(Object.fromEntries(names.map((name) => [name, { payload: Schema.Unknown }])))

const describeClientError = (error: RpcClientError.RpcClientError) => {
  const cause = error.cause
  if (HttpClientError.isHttpClientError(cause) && cause._tag === "ResponseError") {
    return cause.response.status === 401
      ? "The controller refused the control token (HTTP 401)."
      : `The controller answered HTTP ${cause.response.status}.`
  }
  return "The controller did not answer."
}

/**
 * An RPC client of a running controller (`POST /api/rpc` with its control token, ndjson), for the
 * tools in `names`. It lives as long as the scope.
 */
export const makeRpcCaller = (controller: KnownController, names: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const client = yield* RpcClient.make(clientGroup(names), { flatten: true })
    const call: CallTool = (name, payload) =>
      (client(name, payload) as Effect.Effect<ToolResult, ControllerError | RpcClientError.RpcClientError>).pipe(
        Effect.catchTag("RpcClientError", (error) => Effect.fail(controllerError(describeClientError(error))))
      )
    return call
  }).pipe(
    Effect.provide(
      RpcClient.layerProtocolHttp({
        url: `${controllerOrigin(controller.port)}/api/rpc`,
        // A refusal (401, 421, 400) must fail the call rather than be read as RPC frames; the protocol
        // wraps whatever the HTTP client fails with into an RpcClientError, hence the cast.
        transformClient: (client) =>
          HttpClient.filterStatusOk(
            HttpClient.mapRequest(client, HttpClientRequest.setHeader(CONTROL_HEADER, controller.controlToken))
          ) as unknown as typeof client
      }).pipe(Layer.provide(Layer.merge(RpcSerialization.layerNdjson, FetchHttpClient.layer)))
    )
  )

/** The runtime file of the controller that serves `url`, proven by its `/health` answer. */
export const findController = (env: Environment, home: string, url: string) =>
  Effect.gen(function*() {
    const client = yield* ControllerClient
    const settings = yield* settingsOf(env, home)
    const port = Number(new URL(url).port)
    const found = yield* client.findLive(settings.controllersRoot, (controller, status) =>
      controller.port === port && status === "compatible")
    if (Option.isSome(found)) return found.value
    return yield* controllerError(`The controller at ${url} could not be proven with a control token of this install.`)
  })

/**
 * A caller of this install's controller: reuses a running one of this version or launches one (as
 * `codex-replay open` does), then talks RPC to it with its control token.
 */
export const connectController = (
  env: Environment,
  home: string,
  names: ReadonlyArray<string>
): Effect.Effect<{ readonly url: string; readonly call: CallTool }, ControllerError, FileStore | ControllerClient | Scope.Scope> =>
  Effect.gen(function*() {
    const { url, controller } = yield* ensureKnownController(env, home)
    return { url, call: yield* makeRpcCaller(controller, names) }
  })
