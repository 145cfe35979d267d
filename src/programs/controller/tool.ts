import { Effect, Either, Schema } from "effect"
import { type ToolName, type ToolPayload, ToolPayloads, type ToolResultOf, ToolResults, unknownToolMessage } from "../../domain/contracts/index.js"
import { invalidArgument, type ToolFailure } from "../../domain/errors.js"
import { describeParseError, type ToolResult, toolSuccess } from "../../domain/toolResult.js"

/**
 * A controller tool: its argument Schema, its result Schema, the program that answers it with a typed
 * result, and the one-line text `/api/call` and MCP show beside that result.
 */
export interface ControllerTool<Name extends ToolName, R> {
  readonly name: Name
  readonly payload: (typeof ToolPayloads)[Name]
  readonly result: (typeof ToolResults)[Name]
  readonly run: (payload: ToolPayload<Name>) => Effect.Effect<ToolResultOf<Name>, ToolFailure, R>
  readonly text: (result: ToolResultOf<Name>) => string
  /** Decodes the arguments, runs the tool and renders its answer as `/api/call` and MCP show it. */
  readonly answer: (args: unknown) => Effect.Effect<ToolResult, ToolFailure, R>
}

/** Any tool of a registry, whatever its name. */
export type AnyControllerTool<R> = { readonly [Name in ToolName]: ControllerTool<Name, R> }[ToolName]

/** Every controller tool, by name. */
export type ToolRegistry<R> = { readonly [Name in ToolName]: ControllerTool<Name, R> }

export const defineTool = <Name extends ToolName, R>(
  name: Name,
  run: (payload: ToolPayload<Name>) => Effect.Effect<ToolResultOf<Name>, ToolFailure, R>,
  text: (result: ToolResultOf<Name>) => string
): ControllerTool<Name, R> => {
  // Every payload Schema is synchronous; decoding without an effect saves the hot path a few fiber steps.
  const decode = Schema.decodeUnknownEither(ToolPayloads[name] as Schema.Schema<ToolPayload<Name>, unknown>)
  return {
    name,
    payload: ToolPayloads[name],
    result: ToolResults[name],
    run,
    text,
    answer: (args) =>
      Either.match(decode(args ?? {}), {
        onLeft: (error) => Effect.fail(invalidArgument(describeParseError(error))),
        onRight: (payload) => Effect.map(run(payload), (result) => toolSuccess(text(result), result))
      })
  }
}

/** Why a call names no controller tool: the same words over /api/call and /api/rpc. */
export const unknownToolError = (name: string) => invalidArgument(unknownToolMessage(name))

/**
 * Decodes the arguments with the tool's Schema, runs it and renders its answer (`/api/call`); unknown
 * tools are user errors.
 */
export const callTool = <R>(
  tools: ToolRegistry<R>,
  name: string,
  args: unknown
): Effect.Effect<ToolResult, ToolFailure, R> =>
  name === "open_controller" || !Object.hasOwn(tools, name)
    ? Effect.fail(unknownToolError(name))
    : tools[name as ToolName].answer(args)
