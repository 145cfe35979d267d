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
  raw_output: Schema.optional(Schema.String),
  /** The tokens the failed attempt used, when Codex reported them: they are billed all the same. */
  usage: Schema.optional(Schema.Struct({ input: Schema.Number, cached_input: Schema.Number, cache_write: Schema.Number, output: Schema.Number }))
}) {}

/** The same failure, carrying the tokens its attempt used. */
export const withAttemptUsage = (
  error: WorkerError,
  usage: { readonly input: number; readonly cached_input: number; readonly cache_write: number; readonly output: number } | undefined
) =>
  usage === undefined
    ? error
    : new WorkerError({
      code: error.code,
      message: error.message,
      retryable: error.retryable,
      diagnostic: error.diagnostic,
      ...(error.raw_output === undefined ? {} : { raw_output: error.raw_output }),
      usage: { input: usage.input, cached_input: usage.cached_input, cache_write: usage.cache_write, output: usage.output }
    })

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
  message: Schema.String,
  /** The system's code of the refusal (`ENOSPC`, `EACCES`…), when it gave one. */
  code: Schema.optional(Schema.String)
}) {}

/** The codes of a disk that has no room (or no working medium) right now: a write may succeed once space returns. */
export const OUT_OF_SPACE_CODES: ReadonlySet<string> = new Set(["ENOSPC", "EDQUOT", "EIO"])

/** A write the disk refused for want of space (or of a working device), not for its permissions or its path. */
export const isOutOfSpace = (error: unknown): error is StorageError =>
  error instanceof StorageError && error.code !== undefined && OUT_OF_SPACE_CODES.has(error.code)

/**
 * The machine's failures a caller can act on (not the user's input): each says what failed and what to do.
 * Their messages name a program, a git command or a setting, never a file of the controller's own folders or a
 * secret, so a caller hears them as they are (`publicFailure`); a `StorageError` may name private paths and is
 * answered with the generic sentence.
 */

/** A process could not be started (the executable is missing or not executable, or the system refused). */
export class SpawnFailed extends Schema.TaggedError<SpawnFailed>()("SpawnFailed", {
  /** What could not start (`git`, `the local controller`, `xdg-open`). */
  command: Schema.String,
  message: Schema.String
}) {}

/** A git command failed on a repository the controller needs (a historical commit, a workspace, a snapshot). */
export class GitFailed extends Schema.TaggedError<GitFailed>()("GitFailed", {
  message: Schema.String
}) {}

/** The Codex CLI cannot be used: it is missing, not executable, or not logged in. */
export class CodexUnavailable extends Schema.TaggedError<CodexUnavailable>()("CodexUnavailable", {
  message: Schema.String
}) {}

export const spawnFailed = (command: string, reason: string) =>
  new SpawnFailed({
    command,
    message: boundText(`Cannot start ${command}: ${reason}. Check that it is installed and on PATH, then try again.`)
  })

/** The Codex CLI cannot be run or is not logged in (`detail` is the worker's sentence): what to do about it. */
export const codexUnavailable = (detail: string) =>
  new CodexUnavailable({
    message: boundText(
      `Cannot run the Codex CLI (${detail.trim().replace(/\.$/, "")}). Install it (npm install -g @openai/codex) or set CODEX_CLI_PATH, then run \`codex login\`.`
    )
  })

/** The worker codes that mean the Codex CLI itself cannot be used (missing, not executable, not logged in). */
export const CODEX_UNUSABLE_CODES: ReadonlySet<string> = new Set(["cli_unavailable", "unauthorized"])

/** `what` (a sentence fragment such as "The workspace could not be created") failed because git said `detail`. */
export const gitFailed = (what: string, detail: string) =>
  new GitFailed({ message: boundText(`${what}: ${detail} Check that git is installed and the repository is intact, then try again.`) })

// A user error's message is bounded like every text a tool answers (docs/controller.md: 32 KiB).
export const invalidArgument = (message: string) => new InvalidArgument({ message: boundText(message) })
export const notFound = (message: string) => new NotFound({ message: boundText(message) })
export const conflict = (message: string) => new Conflict({ message: boundText(message) })
export const unreadableFile = (message: string) => new UnreadableFile({ message: boundText(message) })
export const controllerUnavailable = (message: string) => new ControllerUnavailable({ message: boundText(message) })

/** What a caller hears of an internal error (docs/controller.md); the detail goes to the log. */
export const INTERNAL_ERROR_MESSAGE = "The local controller encountered an error."

/** The machine's own failures: answered 5xx. */
export const MachineFailure = Schema.Union(UnreadableFile, ControllerUnavailable, StorageError, SpawnFailed, GitFailed, CodexUnavailable)
export type MachineFailure = typeof MachineFailure.Type

/** Every failure a controller tool answers: the user's kinds and the machine's. */
export const ToolFailure = Schema.Union(
  InvalidArgument,
  NotFound,
  Conflict,
  UnreadableFile,
  ControllerUnavailable,
  StorageError,
  SpawnFailed,
  GitFailed,
  CodexUnavailable
)
export type ToolFailure = typeof ToolFailure.Type

/** The HTTP status of each kind of failure: the one mapping `/api/call`, `/api/rpc` and MCP answer by. */
export const FAILURE_STATUS = {
  UnreadableFile: 500,
  ControllerUnavailable: 503,
  InvalidArgument: 400,
  NotFound: 404,
  Conflict: 409,
  StorageError: 500,
  SpawnFailed: 500,
  GitFailed: 500,
  CodexUnavailable: 503
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
