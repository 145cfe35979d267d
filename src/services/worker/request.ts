import type { CodexOptions } from "@openai/codex-sdk"
import { Duration, type Effect, type Schema } from "effect"
import type { WorkerError } from "../../domain/errors.js"
import type { WorkerPurpose, WorkerResultData } from "../../domain/worker.js"

/** Marks the one Codex child of one attempt, so cancellation can SIGINT exactly that process. */
export const ATTEMPT_VARIABLE = "CODEX_REPLAY_WORKER_ATTEMPT"

export interface WorkerRequest<A = undefined, I = unknown> {
  readonly purpose: WorkerPurpose
  readonly model: string
  readonly prompt: string
  /** An existing absolute directory: Codex's `--cd` and the result's `worktree`. */
  readonly workingDirectory: string
  /** Makes the final answer JSON validated against this Schema (of a plain object). */
  readonly outputSchema?: Schema.Schema<A, I>
  /** The run directory whose `run.log` receives the streamed events; nothing is logged without it. */
  readonly runDirectory?: string
  /** The log source, e.g. `implementation` or `review:ab`; defaults per purpose. */
  readonly label?: string
  /**
   * The run's tag, set as CODEX_REPLAY_RUN_TAG on Codex and everything it starts, so the daemon
   * can sweep the run after a crash. Cancelling this worker sweeps every process with the tag:
   * workers of one run that may be cancelled while a sibling keeps running need distinct tags.
   * Defaults to a fresh tag per attempt, which is also swept after a normal end; a caller-given
   * tag is left to the caller's sweep after a normal end (siblings may share it).
   */
  readonly runTag?: string
  /** More directories Codex's sandbox must not read, besides the worker's own (e.g. the user's repository). */
  readonly hiddenRoots?: ReadonlyArray<string>
}

export interface WorkerResult<A = undefined> extends WorkerResultData {
  /** The decoded structured answer (`undefined` without an output schema). */
  readonly output: A
}

/** Where the request comes from on each attempt: fixed, or built fresh (e.g. a new workspace). */
export type RequestSource<A, I, R> =
  | WorkerRequest<A, I>
  | ((attempt: number) => Effect.Effect<WorkerRequest<A, I>, WorkerError, R>)

export interface RetryHooks<R> {
  /** Runs before attempt `attempt` (≥ 2), after the previous one failed retryably and the schedule waited. */
  readonly beforeRetry?: (failure: WorkerError, attempt: number) => Effect.Effect<void, never, R>
}

export interface CodexWorkerOptions {
  /** The Codex executable; a bare name is looked up on PATH. Defaults to `codex`. */
  readonly cliPath?: string | undefined
  /**
   * The environment Codex's own is built from; defaults to ours (the user's, with its CODEX_HOME). Codex
   * gets only its allow-listed variables (`codexProcessEnvironment`), its agents fewer still.
   */
  readonly environment?: Readonly<Record<string, string | undefined>>
  /** Overrides CODEX_HOME in that environment. */
  readonly codexHome?: string
  /** Extra `--config` values (tests point codex at a mock server this way). */
  readonly config?: NonNullable<CodexOptions["config"]>
  /** Sets CODEX_API_KEY for the child. */
  readonly apiKey?: string
  /** Wall-clock limit per attempt; codex retries forever without a network. */
  readonly attemptTimeout?: Duration.DurationInput
  /** How long Codex gets to clean up after SIGINT before it is aborted and swept. */
  readonly interruptGrace?: Duration.DurationInput
  /**
   * Directories no worker may read (the run root, `controllers/`, the Claude history); Codex's
   * own home is always added, since its sessions hold earlier replays.
   */
  readonly hiddenRoots?: ReadonlyArray<string>
}

export const DEFAULT_ATTEMPT_TIMEOUT = Duration.hours(1)
export const DEFAULT_INTERRUPT_GRACE = Duration.seconds(1)

/** Where one attempt is, for `kill -USR2` (docs/controller.md): what its stream has delivered and what it waits for. */
export interface AttemptProgress {
  readonly attempt_id: string
  readonly label: string
  readonly model: string
  stage: "starting Codex" | "waiting for an event" | "logging an event" | "stream ended" | "stopping Codex"
  events: number
  last_event: string | null
  readonly started_at: string
}
