import { Rpc, RpcGroup } from "@effect/rpc"
import { Effect, Stream } from "effect"
import {
  RunIdPayload,
  StoredRunState,
  type ToolName,
  type ToolPayload,
  ToolPayloads,
  type ToolResultOf,
  ToolResults
} from "../domain/contracts.js"
import { isInternalFailure, publicFailure, ToolFailure } from "../domain/errors.js"
import type { ControllerTool, ToolRegistry } from "../programs/controller/tool.js"
import { watchRun } from "../programs/runs/watch.js"

export { ToolResultSchema } from "../domain/contracts.js"

/**
 * `watch_run`: a run's state now and at every change, ending with its final state. Not a tool (a page
 * cannot take a stream over `/api/call`): the CLI follows its runs with it instead of polling.
 */
export const WatchRun = Rpc.make("watch_run", { payload: RunIdPayload, success: StoredRunState, error: ToolFailure, stream: true })

/** The procedure of one tool: its payload and result Schemas from the contracts, its failures by kind. */
const toolRpc = <const Name extends ToolName>(name: Name) =>
  Rpc.make(name, { payload: ToolPayloads[name], success: ToolResults[name], error: ToolFailure })

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
(payload: ToolPayload<Name>): Effect.Effect<ToolResultOf<Name>, ToolFailure, R> =>
  Effect.mapError(Effect.tapError(tool.run(payload), logInternal), publicFailure)

/**
 * The handlers of the group: each runs its tool with the payload the server has decoded with the tool's
 * Schema and answers its typed result. `/api/call` runs the same tools through `callTool`.
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
  watch_run: ({ run_id }: { readonly run_id: string }) => Stream.mapError(Stream.tapError(watchRun(run_id), logInternal), publicFailure)
})
