import { Rpc, RpcGroup } from "@effect/rpc"
import { Effect, Schema } from "effect"
import { isInternalFailure, publicFailure, ToolFailure } from "../domain/errors.js"
import type { ControllerTool } from "../programs/controllerTools.js"

/** What every controller tool answers (SPEC §6): text blocks and the structured result. */
export const ToolResultSchema = Schema.Struct({
  content: Schema.Array(Schema.Struct({ type: Schema.Literal("text"), text: Schema.String })),
  structuredContent: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  isError: Schema.optional(Schema.Literal(true))
})
export type ToolResultSchema = typeof ToolResultSchema.Type

/** One procedure of the controller: the tool's argument Schema, its result, and its failures by kind. */
export type ToolRpc = Rpc.Rpc<string, Schema.Schema<any, any>, typeof ToolResultSchema, typeof ToolFailure>

export type ControllerRpcGroup = RpcGroup.RpcGroup<ToolRpc>

/** The procedure of one tool; the tool's own Schema is the payload, so it is declared only once. */
export const toolRpc = (name: string, tool: Pick<ControllerTool<unknown>, "payload">): ToolRpc =>
  Rpc.make(name, { payload: tool.payload, success: ToolResultSchema, error: ToolFailure })

/**
 * The controller's tools as an `@effect/rpc` group, derived from a tool registry (name → tool).
 * The daemon serves `controllerTools` this way at `POST /api/rpc`; clients build the same group.
 */
export const makeControllerRpcs = (tools: Readonly<Record<string, Pick<ControllerTool<unknown>, "payload">>>): ControllerRpcGroup =>
  RpcGroup.make(...Object.entries(tools).map(([name, tool]) => toolRpc(name, tool)))

/**
 * The handlers of a group: each runs its tool with the payload the server has decoded with the tool's
 * Schema. `/api/call` runs the same tools through `callTool` (same Schema, same messages).
 */
export const toolHandlers = <R>(tools: Readonly<Record<string, ControllerTool<R>>>) =>
  Object.fromEntries(Object.entries(tools).map(([name, tool]) => [
    name,
    // A storage failure is the controller's, not the caller's: logged, and answered like /api/call's 500,
    // as this request's typed failure (a defect would end every call of the client's connection).
    (payload: unknown) =>
      Effect.tapError(tool.run(payload), (error) =>
        isInternalFailure(error) ? Effect.logError(`Controller request failed: ${error.message}`) : Effect.void).pipe(
          Effect.mapError(publicFailure)
        )
  ]))
