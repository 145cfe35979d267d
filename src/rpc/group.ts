import { Rpc, RpcGroup } from "@effect/rpc"
import { Data, Effect, Either, ParseResult, Schema, Stream } from "effect"
import {
  RunIdPayload,
  StoredRunState,
  type ToolName,
  type ToolPayload,
  ToolPayloads,
  type ToolResultOf,
  ToolResults
} from "../domain/contracts/index.js"
import { invalidArgument, isInternalFailure, publicFailure, ToolFailure } from "../domain/errors.js"
import { describeParseError } from "../domain/toolResult.js"
import type { ControllerTool, ToolRegistry } from "../programs/controller/tool.js"
import { watchRun } from "../programs/runs/watch.js"

export { ToolResultSchema } from "../domain/contracts/index.js"

/**
 * A payload its tool's Schema refused, with the sentence `/api/call` gives for it. The RPC server makes a
 * defect of a payload it cannot decode; decoded into this instead, it reaches the handler, which answers
 * it as a typed `InvalidArgument`. Only the server makes one: a client cannot encode it.
 */
export class RejectedPayload extends Data.TaggedClass("RejectedPayload")<{ readonly message: string }> {}

/**
 * A procedure's payload: on the wire exactly the tool's payload Schema; decoding never fails, a payload
 * the Schema refuses becomes a `RejectedPayload` (a missing payload is `{}`, as over `/api/call`).
 */
const checkedPayload = <S extends Schema.Schema.AnyNoContext>(schema: S): Schema.Schema<Schema.Schema.Type<S> | RejectedPayload, unknown> => {
  const decode = Schema.decodeUnknownEither(schema)
  const encode = Schema.encodeEither(schema)
  const isPayload = Schema.is(schema)
  const Checked = Schema.declare((value): value is Schema.Schema.Type<S> | RejectedPayload => value instanceof RejectedPayload || isPayload(value))
  return Schema.transformOrFail(Schema.Unknown, Checked, {
    strict: true,
    decode: (input) =>
      ParseResult.succeed(Either.match(decode(input ?? {}), {
        onLeft: (error): Schema.Schema.Type<S> | RejectedPayload => new RejectedPayload({ message: describeParseError(error) }),
        onRight: (payload) => payload
      })),
    encode: (value, _options, ast) =>
      value instanceof RejectedPayload
        ? ParseResult.fail(new ParseResult.Forbidden(ast, value, value.message))
        : Either.mapLeft(encode(value), (error) => error.issue)
  })
}

/**
 * `watch_run`: a run's state now and at every change, ending with its final state. Not a tool (a page
 * cannot take a stream over `/api/call`): the CLI follows its runs with it instead of polling.
 */
export const WatchRun = Rpc.make("watch_run", { payload: checkedPayload(RunIdPayload), success: StoredRunState, error: ToolFailure, stream: true })

/** The procedure of one tool: its payload and result Schemas from the contracts, its failures by kind. */
const toolRpc = <const Name extends ToolName>(name: Name) =>
  Rpc.make(name, { payload: checkedPayload(ToolPayloads[name]), success: ToolResults[name], error: ToolFailure })

/**
 * Every controller tool as a procedure typed from the contracts (`ToolPayloads`, `ToolResults`): what the
 * daemon serves at `POST /api/rpc` and clients build their `RpcClient` from, so a payload and a result
 * are checked by the compiler on both sides.
 */
export const ControllerRpcs = RpcGroup.make(
  toolRpc("get_state"),
  toolRpc("get_run"),
  toolRpc("list_runs"),
  toolRpc("cancel_run"),
  toolRpc("list_threads"),
  toolRpc("list_threads_progress"),
  toolRpc("inspect_thread"),
  toolRpc("synthesize_request"),
  toolRpc("infer_working_directory"),
  toolRpc("get_report"),
  toolRpc("prepare_run"),
  toolRpc("start_run"),
  toolRpc("make_portfolio"),
  toolRpc("get_batch"),
  toolRpc("cancel_batch"),
  toolRpc("blind_candidates"),
  toolRpc("submit_vote"),
  toolRpc("reveal_run"),
  toolRpc("vote_status"),
  WatchRun
)
export type ControllerRpcGroup = typeof ControllerRpcs

/** The group the daemon serves (every tool of the registry, and `watch_run`). */
export const makeControllerRpcs = (): ControllerRpcGroup => ControllerRpcs

/**
 * A storage failure is the controller's, not the caller's: logged, and answered like /api/call's 500, as
 * this request's typed failure (a defect would end every call of the client's connection).
 */
const logInternal = (error: ToolFailure) =>
  isInternalFailure(error) ? Effect.logError(`Controller request failed: ${error.message}`) : Effect.void

const handle = <Name extends ToolName, R>(tool: ControllerTool<Name, R>) =>
(payload: ToolPayload<Name> | RejectedPayload): Effect.Effect<ToolResultOf<Name>, ToolFailure, R> =>
  payload instanceof RejectedPayload
    ? Effect.fail(invalidArgument(payload.message))
    : Effect.mapError(Effect.tapError(tool.run(payload), logInternal), publicFailure)

const watch = (payload: typeof RunIdPayload.Type | RejectedPayload) =>
  payload instanceof RejectedPayload
    ? Stream.fail(invalidArgument(payload.message))
    : Stream.mapError(Stream.tapError(watchRun(payload.run_id), logInternal), publicFailure)

/**
 * The handlers of the group: each runs its tool with the payload the server has decoded with the tool's
 * Schema and answers its typed result, or refuses a payload the Schema rejected with its sentence. `/api/call` runs the same tools through `callTool`.
 */
export const toolHandlers = <R>(tools: ToolRegistry<R>) => ({
  get_state: handle(tools.get_state),
  get_run: handle(tools.get_run),
  list_runs: handle(tools.list_runs),
  cancel_run: handle(tools.cancel_run),
  list_threads: handle(tools.list_threads),
  list_threads_progress: handle(tools.list_threads_progress),
  inspect_thread: handle(tools.inspect_thread),
  synthesize_request: handle(tools.synthesize_request),
  infer_working_directory: handle(tools.infer_working_directory),
  get_report: handle(tools.get_report),
  prepare_run: handle(tools.prepare_run),
  start_run: handle(tools.start_run),
  make_portfolio: handle(tools.make_portfolio),
  get_batch: handle(tools.get_batch),
  cancel_batch: handle(tools.cancel_batch),
  blind_candidates: handle(tools.blind_candidates),
  submit_vote: handle(tools.submit_vote),
  reveal_run: handle(tools.reveal_run),
  vote_status: handle(tools.vote_status),
  watch_run: watch
})
