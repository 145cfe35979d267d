import { Schema } from "effect"
import { boundText } from "./toolResult.js"

/** The request itself is wrong (a bad value, a missing field, a refused path): HTTP 400. */
export class InvalidArgument extends Schema.TaggedError<InvalidArgument>()("InvalidArgument", {
  message: Schema.String
}) {}

/** What the request names does not exist (a run, a thread, a sample): HTTP 404. */
export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", {
  message: Schema.String
}) {}

/**
 * What the request names exists but its state refuses the request (another controller's run, a run
 * already running, a report not ready, a configuration changed since approval): HTTP 409.
 */
export class Conflict extends Schema.TaggedError<Conflict>()("Conflict", {
  message: Schema.String
}) {}

/**
 * A failure the user caused or can act on, by kind: answered with its message, never a stack trace.
 * Every kind carries a `message`; `failureStatus` maps the kind to its HTTP status.
 */
export const ControllerError = Schema.Union(InvalidArgument, NotFound, Conflict)
export type ControllerError = typeof ControllerError.Type

export const isControllerError: (value: unknown) => value is ControllerError = Schema.is(ControllerError)

/**
 * A file the controller keeps (a run's report or state, a batch record, a controller's runtime file) is
 * missing or is not what it should be: HTTP 500. The message names the file by what it is (a run, a
 * batch), never by a private path, and says what to do, so a caller hears it as it is.
 */
export class UnreadableFile extends Schema.TaggedError<UnreadableFile>()("UnreadableFile", {
  message: Schema.String
}) {}

/** The local controller could not be started, or stopped answering: HTTP 503. The message says where to look. */
export class ControllerUnavailable extends Schema.TaggedError<ControllerUnavailable>()("ControllerUnavailable", {
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

// A user error's message is bounded like every text a tool answers (docs/controller.md: 32 KiB).
export const invalidArgument = (message: string) => new InvalidArgument({ message: boundText(message) })
export const notFound = (message: string) => new NotFound({ message: boundText(message) })
export const conflict = (message: string) => new Conflict({ message: boundText(message) })
export const unreadableFile = (message: string) => new UnreadableFile({ message: boundText(message) })
export const controllerUnavailable = (message: string) => new ControllerUnavailable({ message: boundText(message) })

/** What a caller hears of an internal error (docs/controller.md); the detail goes to the log. */
export const INTERNAL_ERROR_MESSAGE = "The local controller encountered an error."

/** Every failure a controller tool answers: the user's kinds and the controller's own storage failure. */
export const ToolFailure = Schema.Union(
  UnreadableFile,
  ControllerUnavailable,
  InvalidArgument,
  NotFound,
  Conflict,
  StorageError
)
export type ToolFailure = typeof ToolFailure.Type

/** The HTTP status of each kind of failure: the one mapping `/api/call`, `/api/rpc` and MCP answer by. */
export const FAILURE_STATUS = {
  UnreadableFile: 500,
  ControllerUnavailable: 503,
  InvalidArgument: 400,
  NotFound: 404,
  Conflict: 409,
  StorageError: 500
} as const satisfies Record<ToolFailure["_tag"], number>

export const failureStatus = (error: ToolFailure) => FAILURE_STATUS[error._tag]

/** Whether the failure is the controller's own (5xx): logged in full. */
export const isInternalFailure = (error: ToolFailure) => failureStatus(error) >= 500

/**
 * What the caller hears of a failure: its own message (a machine failure's says what failed and what to
 * do, nothing private); the generic sentence for a storage failure, whose message may name private files.
 */
export const publicFailure = (error: ToolFailure): ToolFailure =>
  error._tag === "StorageError" ? new StorageError({ message: INTERNAL_ERROR_MESSAGE }) : error
