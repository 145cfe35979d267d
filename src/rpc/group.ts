import { Rpc, RpcGroup } from "@effect/rpc"
import { Effect, type Schema, Stream } from "effect"
import { RunIdPayload, StoredRunState, type ToolName, ToolPayloads, ToolResultSchema } from "../domain/contracts.js"
import { isInternalFailure, publicFailure, ToolFailure } from "../domain/errors.js"
import type { ControllerTool } from "../programs/controller/tool.js"
import { watchRun } from "../programs/runs/start.js"

export { ToolResultSchema } from "../domain/contracts.js"

/** One procedure of the controller: the tool's argument Schema, its result, and its failures by kind. */
export type ToolRpc = Rpc.Rpc<string, Schema.Schema<any, any>, typeof ToolResultSchema, typeof ToolFailure>

/**
 * `watch_run`: a run's state now and at every change, ending with its final state. Not a tool (a page
 * cannot take a stream over `/api/call`): the CLI follows its runs with it instead of polling.
 */
export const WatchRun = Rpc.make("watch_run", { payload: RunIdPayload, success: StoredRunState, error: ToolFailure, stream: true })

export type ControllerRpcGroup = RpcGroup.RpcGroup<ToolRpc | typeof WatchRun>

/** The procedure of one tool; the tool's own Schema is the payload, so it is declared only once. */
export const toolRpc = (name: string, tool: Pick<ControllerTool<unknown>, "payload">): ToolRpc =>
  Rpc.make(name, { payload: tool.payload, success: ToolResultSchema, error: ToolFailure })

/**
 * The controller's tools as an `@effect/rpc` group, derived from a tool registry (name → tool).
 * The daemon serves its registry this way at `POST /api/rpc`.
 */
export const makeControllerRpcs = (tools: Readonly<Record<string, Pick<ControllerTool<unknown>, "payload">>>): ControllerRpcGroup =>
  RpcGroup.make(...Object.entries(tools).map(([name, tool]) => toolRpc(name, tool)), WatchRun)

const contractRpc = <const Name extends ToolName>(name: Name) =>
  Rpc.make(name, { payload: ToolPayloads[name], success: ToolResultSchema, error: ToolFailure })

/**
 * Every controller tool as a procedure typed from the contracts (`ToolPayloads`): what clients
 * build their `RpcClient` from, so a payload is checked by the compiler before it is sent.
 */
export const ControllerRpcs = RpcGroup.make(
  contractRpc("get_state"),
  contractRpc("get_run"),
  contractRpc("list_runs"),
  contractRpc("cancel_run"),
  contractRpc("list_threads"),
  contractRpc("list_threads_progress"),
  contractRpc("inspect_thread"),
  contractRpc("synthesize_request"),
  contractRpc("infer_working_directory"),
  contractRpc("get_report"),
  contractRpc("prepare_run"),
  contractRpc("start_run"),
  contractRpc("make_portfolio"),
  contractRpc("get_batch"),
  contractRpc("cancel_batch"),
  WatchRun
)

/**
 * The handlers of a group: each runs its tool with the payload the server has decoded with the tool's
 * Schema. `/api/call` runs the same tools through `callTool` (same Schema, same messages).
 */
export const toolHandlers = <R>(tools: Readonly<Record<string, ControllerTool<R>>>) => ({
  ...Object.fromEntries(Object.entries(tools).map(([name, tool]) => [
    name,
    (payload: unknown) => Effect.mapError(Effect.tapError(tool.run(payload), logInternal), publicFailure)
  ])),
  watch_run: ({ run_id }: { readonly run_id: string }) => Stream.mapError(Stream.tapError(watchRun(run_id), logInternal), publicFailure)
})

/**
 * A storage failure is the controller's, not the caller's: logged, and answered like /api/call's 500, as
 * this request's typed failure (a defect would end every call of the client's connection).
 */
const logInternal = (error: ToolFailure) =>
  isInternalFailure(error) ? Effect.logError(`Controller request failed: ${error.message}`) : Effect.void
