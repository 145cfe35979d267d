import { Schema } from "effect"
import { boundText } from "./toolResult.js"

/** A failure the user caused or can act on: answered with its message, never a stack trace. */
export class ControllerError extends Schema.TaggedError<ControllerError>()("ControllerError", {
  message: Schema.String
}) {}

export const WorkerDiagnostic = Schema.Struct({
  worker_code: Schema.String,
  exit_code: Schema.NullOr(Schema.Number),
  system_code: Schema.NullOr(Schema.String),
  worker_stage: Schema.String,
  elapsed_ms: Schema.Number
})
export type WorkerDiagnostic = typeof WorkerDiagnostic.Type

/** A Codex worker failure, classified so that callers can decide on retries. */
export class WorkerError extends Schema.TaggedError<WorkerError>()("WorkerError", {
  code: Schema.String,
  message: Schema.String,
  retryable: Schema.Boolean,
  diagnostic: WorkerDiagnostic,
  /** The model's raw answer when it was not valid structured output. */
  raw_output: Schema.optional(Schema.String)
}) {}

export class RunCancelled extends Schema.TaggedError<RunCancelled>()("RunCancelled", {
  run_id: Schema.String,
  message: Schema.String
}) {}

/** A state update expected one status and found another; nothing was written. */
export class StateTransitionConflict extends Schema.TaggedError<StateTransitionConflict>()(
  "StateTransitionConflict",
  {
    run_id: Schema.String,
    expected: Schema.String,
    found: Schema.String,
    message: Schema.String
  }
) {}

/** The disk refused a write the controller needed (permissions, space): an internal failure, not the user's. */
export class StorageError extends Schema.TaggedError<StorageError>()("StorageError", {
  message: Schema.String
}) {}

/** A user error; its message is bounded like every text a tool answers (SPEC §6: 32 KiB). */
export const controllerError = (message: string) => new ControllerError({ message: boundText(message) })

/** What a caller hears of an internal error (SPEC §3); the detail goes to the log. */
export const INTERNAL_ERROR_MESSAGE = "The local controller encountered an error."
