import type { ThreadOptions } from "@openai/codex-sdk"
import { Schema } from "effect"

/** Why the worker runs; the purpose decides sandbox, network and reasoning effort (docs/security.md). */
export const WorkerPurpose = Schema.Literal(
  "implementation",
  "evaluation",
  "prompt_synthesis",
  "working_directory_inference"
)
export type WorkerPurpose = typeof WorkerPurpose.Type

/** Token counts of the thread so far; `turn.completed` reports them cumulatively per thread. */
export const WorkerUsage = Schema.Struct({
  input: Schema.Number,
  cached_input: Schema.Number,
  cache_write: Schema.Number,
  output: Schema.Number,
  reasoning_output: Schema.Number
})
export type WorkerUsage = typeof WorkerUsage.Type

export const ZERO_USAGE: WorkerUsage = { input: 0, cached_input: 0, cache_write: 0, output: 0, reasoning_output: 0 }

/** A completed Codex item. Unknown item types are kept as they came. */
export const WorkerItem = Schema.Struct(
  { id: Schema.String, type: Schema.String },
  Schema.Record({ key: Schema.String, value: Schema.Unknown })
)
export type WorkerItem = typeof WorkerItem.Type

/** What a successful worker run answers (without the decoded structured output). */
export const WorkerResultData = Schema.Struct({
  thread_id: Schema.String,
  final_response: Schema.String,
  items: Schema.Array(WorkerItem),
  usage: WorkerUsage,
  elapsed_ms: Schema.Number,
  worktree: Schema.String
})
export type WorkerResultData = typeof WorkerResultData.Type

/** Every `WorkerError.code` the worker produces. */
export const WORKER_ERROR_CODES = [
  "invalid_request",
  "cli_unavailable",
  "spawn_failed",
  "stream_error",
  "server_error",
  "rate_limited",
  "timeout",
  "bad_request",
  "unauthorized",
  "usage_limit",
  "untrusted_directory",
  "unknown_thread",
  "invalid_arguments",
  "protocol_error",
  "killed",
  "cli_failed",
  "turn_failed",
  "incomplete_turn",
  "invalid_output"
] as const
export type WorkerErrorCode = (typeof WORKER_ERROR_CODES)[number]

/** Where in a run the worker failed (`diagnostic.worker_stage`). */
export type WorkerStage = "request" | "spawn" | "stream" | "turn" | "exit" | "completion" | "output" | "timeout"

// ---------------------------------------------------------------------------------------------
// Purposes

const READ_ONLY_PURPOSES: ReadonlySet<WorkerPurpose> = new Set([
  "evaluation",
  "prompt_synthesis",
  "working_directory_inference"
])
const REVIEW_PURPOSES: ReadonlySet<WorkerPurpose> = new Set(["evaluation"])

/** The log source of a purpose when the caller names none. */
export const defaultLabel = (purpose: WorkerPurpose): string =>
  purpose === "evaluation" ? "reviewer" : purpose.replaceAll("_", "-")

/** Reviewer output never reaches the run log (docs/security.md). */
export const isReviewerOutput = (purpose: WorkerPurpose) => REVIEW_PURPOSES.has(purpose)

/**
 * SDK thread options for a purpose. The sandbox itself is the permission profile of
 * `sandboxConfig` (agentSandbox.ts): passing `--sandbox` would make Codex fall back to its older sandbox settings,
 * which can read the whole disk.
 */
export const threadOptionsFor = (input: {
  readonly purpose: WorkerPurpose
  readonly model: string
  readonly workingDirectory: string
  readonly skipGitRepoCheck: boolean
}): ThreadOptions => {
  const readOnly = READ_ONLY_PURPOSES.has(input.purpose)
  return {
    model: input.model,
    workingDirectory: input.workingDirectory,
    skipGitRepoCheck: input.skipGitRepoCheck,
    approvalPolicy: "never",
    ...(readOnly ? { webSearchMode: "disabled" as const } : {}),
    ...(REVIEW_PURPOSES.has(input.purpose) ? { modelReasoningEffort: "medium" as const } : {})
  }
}

/** Whether a purpose's profile lets the agent write its working directory and use the network. */
export const isReadOnlyPurpose = (purpose: WorkerPurpose) => READ_ONLY_PURPOSES.has(purpose)

export * from "./worker/events.js"
export * from "./worker/failures.js"
export * from "./worker/output.js"
