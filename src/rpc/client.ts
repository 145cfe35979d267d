import { settingsOf } from "../services/Settings.js"
import { FetchHttpClient, HttpClient, HttpClientError, HttpClientRequest } from "@effect/platform"
import { RpcClient, RpcClientError, RpcSerialization } from "@effect/rpc"
import { Effect, Layer, Option, Schema, type Scope, Stream } from "effect"
import {
  type StoredRunState,
  type ToolName,
  type ToolPayload,
  type ToolPayloadInput,
  ToolPayloads,
  type ToolResultOf,
  unknownToolMessage
} from "../domain/contracts/index.js"
import { controllerUnavailable, invalidArgument, type ToolFailure } from "../domain/errors.js"
import { CONTROL_HEADER, controllerOrigin } from "../domain/product.js"
import type { Environment } from "../domain/settings.js"
import { describeParseError } from "../domain/toolResult.js"
import { ensureKnownController } from "../programs/controller/ensureController.js"
import { bearer, ControllerClient, type KnownController } from "../services/ControllerClient.js"
import { FileStore } from "../services/FileStore.js"
import { ControllerRpcs } from "./group.js"

/**
 * Calls one controller tool by name with a payload typed from its contract (`ToolPayloads`): a
 * misspelt or missing field is a compile error. A failure is one of the controller's kinds.
 */
export type CallTool = <Name extends ToolName>(
  name: Name,
  payload: ToolPayloadInput<Name>
) => Effect.Effect<ToolResultOf<Name>, ToolFailure>

/**
 * What a failed exchange with the controller means to the caller: a refusal of the request (a token, a
 * header) is the caller's to fix; no answer, or a 5xx, is the controller's (`ControllerUnavailable`, 503).
 */
const clientFailure = (error: RpcClientError.RpcClientError): ToolFailure => {
  const cause = error.cause
  if (HttpClientError.isHttpClientError(cause) && cause._tag === "ResponseError") {
    const status = cause.response.status
    if (status === 401) return invalidArgument("The controller refused its API or control token (HTTP 401).")
    return status >= 500 ? controllerUnavailable(`The controller answered HTTP ${status}. Its log says why; \`codex-replay open\` starts a new one if it stopped.`) : invalidArgument(`The controller answered HTTP ${status}.`)
  }
  return controllerUnavailable("The controller did not answer. `codex-replay open` starts a new one if it stopped.")
}

/**
 * Checks a payload against the tool's contract before it is sent, with the message the daemon would
 * give: the RPC client would otherwise turn a payload it cannot encode into a defect.
 */
const decodePayload = <Name extends ToolName>(name: Name, payload: unknown): Effect.Effect<ToolPayload<Name>, ToolFailure> =>
  Object.hasOwn(ToolPayloads, name)
    ? Schema.decodeUnknown(ToolPayloads[name] as Schema.Schema<ToolPayload<Name>, unknown>)(payload ?? {}).pipe(
      Effect.mapError((error) => invalidArgument(describeParseError(error)))
    )
    : Effect.fail(invalidArgument(unknownToolMessage(name)))

const apiHeaders = (controller: KnownController) => (controller.apiToken === undefined ? {} : bearer(controller.apiToken))

/**
 * The HTTP client of the RPC protocol: it presents the control and API tokens, and a refusal (401, 421,
 * 400) fails the call rather than being read as RPC frames.
 */
const controllerHttpClient = (controller: KnownController) =>
  Layer.effect(
    HttpClient.HttpClient,
    Effect.map(HttpClient.HttpClient, (client) =>
      HttpClient.filterStatusOk(
        HttpClient.mapRequest(client, (request) =>
          HttpClientRequest.setHeaders(request, { [CONTROL_HEADER]: controller.controlToken, ...apiHeaders(controller) }))
      ))
  ).pipe(Layer.provide(FetchHttpClient.layer))

/** Follows one run: its state now and at every change, ending with its final state. */
export type WatchRun = (runId: string) => Stream.Stream<StoredRunState, ToolFailure>

/**
 * An RPC client of a running controller (`POST /api/rpc` with its API and control tokens, ndjson), typed by
 * `ControllerRpcs`: `call` for its tools, `watchRun` for a run's progress. It lives as long as the scope.
 */
export const makeControllerRpcClient = (controller: KnownController) =>
  Effect.gen(function*() {
    const client = yield* RpcClient.make(ControllerRpcs, { flatten: true })
    const senders: {
      readonly [Name in ToolName]: (payload: ToolPayload<Name>) => Effect.Effect<ToolResultOf<Name>, ToolFailure | RpcClientError.RpcClientError>
    } = {
      get_state: (payload) => client("get_state", payload),
      get_run: (payload) => client("get_run", payload),
      list_runs: (payload) => client("list_runs", payload),
      cancel_run: (payload) => client("cancel_run", payload),
      list_threads: (payload) => client("list_threads", payload),
      list_threads_progress: (payload) => client("list_threads_progress", payload),
      inspect_thread: (payload) => client("inspect_thread", payload),
      synthesize_request: (payload) => client("synthesize_request", payload),
      infer_working_directory: (payload) => client("infer_working_directory", payload),
      get_report: (payload) => client("get_report", payload),
      prepare_run: (payload) => client("prepare_run", payload),
      start_run: (payload) => client("start_run", payload),
      make_portfolio: (payload) => client("make_portfolio", payload),
      get_batch: (payload) => client("get_batch", payload),
      cancel_batch: (payload) => client("cancel_batch", payload),
      blind_candidates: (payload) => client("blind_candidates", payload),
      submit_vote: (payload) => client("submit_vote", payload),
      reveal_run: (payload) => client("reveal_run", payload),
      vote_status: (payload) => client("vote_status", payload)
    }
    const send = <Name extends ToolName>(name: Name, payload: ToolPayload<Name>) => senders[name](payload)
    // The payload is decoded with the tool's own Schema first: the RPC client would make a defect of one it cannot encode.
    const call: CallTool = (name, payload) =>
      Effect.flatMap(decodePayload(name, payload), (decoded) => send(name, decoded)).pipe(
        Effect.catchTag("RpcClientError", (error) => Effect.fail(clientFailure(error)))
      )
    const watchRun: WatchRun = (runId) =>
      client("watch_run", { run_id: runId }).pipe(
        Stream.catchTag("RpcClientError", (error) => Stream.fail(clientFailure(error)))
      )
    return { call, watchRun } as const
  }).pipe(
    Effect.provide(
      RpcClient.layerProtocolHttp({ url: `${controllerOrigin(controller.port)}/api/rpc` }).pipe(
        Layer.provide(Layer.merge(RpcSerialization.layerNdjson, controllerHttpClient(controller)))
      )
    )
  )

/** Only the tools of a controller's RPC client. */
export const makeRpcCaller = (controller: KnownController) =>
  Effect.map(makeControllerRpcClient(controller), (client) => client.call)

/** The runtime file of the controller that serves `url`, proven by its `/health` answer. */
export const findController = (env: Environment, home: string, url: string) =>
  Effect.gen(function*() {
    const client = yield* ControllerClient
    const settings = yield* settingsOf(env, home)
    const port = Number(new URL(url).port)
    const found = yield* client.findLive(settings.controllersRoot, (controller, status) =>
      controller.port === port && status === "compatible")
    if (Option.isSome(found)) return found.value
    return yield* invalidArgument(`The controller at ${url} could not be proven with a control token of this install.`)
  })

/**
 * A caller of this install's controller: reuses a running one of this version or launches one (as
 * `codex-replay open` does), then talks RPC to it with its control token.
 */
export const connectController = (
  env: Environment,
  home: string
): Effect.Effect<
  { readonly url: string; readonly call: CallTool; readonly watchRun: WatchRun; readonly passedOver: string | null },
  ToolFailure,
  FileStore | ControllerClient | Scope.Scope
> =>
  Effect.gen(function*() {
    const { url, controller, explanation, passedOver } = yield* ensureKnownController(env, home)
    // A running controller with other settings is never used silently: the sentence says which and why.
    return { url, passedOver: passedOver ? explanation : null, ...(yield* makeControllerRpcClient(controller)) }
  })
