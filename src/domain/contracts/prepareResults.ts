/** What `prepare_run` answers: one configuration's approval, or a batch's. */
import { Schema } from "effect"
import { CostEstimate } from "../estimate.js"
import { ApprovedCommand, RunConfiguration } from "./payloads.js"
import { Preflight } from "./preflight.js"
import { NullableString, open, Strings } from "./resultFields.js"
import { TaskCheck } from "./taskSource.js"

/** For a chunk: its split points and what its workspace starts with. */
export const ChunkFacts = open({
  range_start: Schema.String,
  range_end: Schema.String,
  first_index: Schema.Number,
  last_index: Schema.Number,
  carried_forward_files: Strings,
  excluded_files: Strings,
  excluded_reasons: Schema.Record({ key: Schema.String, value: Schema.String })
})

const Approval = Schema.Struct({ required: Schema.Literal(true), prompt: NullableString, prepare_token: NullableString })
const PrepareStatus = Schema.Literal("ready_for_approval", "blocked")

/** `prepare_run` of one configuration. */
export const PrepareRunResult = Schema.Struct({
  status: PrepareStatus,
  ready: Schema.Boolean,
  can_run: Schema.Boolean,
  controller_session_id: Schema.String,
  model: Schema.String,
  models: Strings,
  /** How many times each model replays the configuration (each repeat a run). */
  repeats: Schema.optional(Schema.Number),
  /** The model that reviews every run of this start. */
  reviewer_model: Schema.String,
  /** The second judge (`claude` or `claude:MODEL`) of every run of this start; absent or null: none. */
  second_judge: Schema.optional(NullableString),
  /** The models whose runs are reviewed by their own model. */
  self_review_models: Strings,
  blockers: Strings,
  blocking_reasons: Strings,
  questions: Strings,
  approval_prompt: NullableString,
  prepare_token: NullableString,
  approval: Approval,
  configuration_fingerprint: Schema.String,
  historical_result_sha256: Schema.String,
  prepared_configuration_sha256: Schema.String,
  prepared_configuration_sha256_by_model: Schema.Record({ key: Schema.String, value: Schema.String }),
  run_config: RunConfiguration,
  /** For a chunk: its split points and what its workspace starts with; null for a whole thread. */
  chunk: Schema.NullOr(ChunkFacts),
  /** The checks approved to run on every side: those named, or the thread's when none are named. */
  checks: Schema.Array(ApprovedCommand),
  /** The set-up commands approved to run before them. */
  setup: Schema.Array(ApprovedCommand),
  /** The prompt checked against the user's messages it should come from; null when the thread has none to compare. */
  task_check: Schema.optional(Schema.NullOr(TaskCheck)),
  /** What approving would cost, as an estimate with its basis (docs/verdicts.md#cost). */
  estimate: Schema.optional(CostEstimate),
  /** Whether a Codex CLI runs and is logged in; when not, the replay is blocked with its sentence. */
  preflight: Schema.optional(Preflight)
})
export type PrepareRunResult = typeof PrepareRunResult.Type

export const BlockedThread = Schema.Struct({ index: Schema.Number, thread_id: Schema.String, reasons: Strings })

/** `prepare_run` of a batch (`configurations`). */
export const PrepareBatchResult = Schema.Struct({
  status: PrepareStatus,
  ready: Schema.Boolean,
  can_run: Schema.Boolean,
  batch: Schema.Literal(true),
  controller_session_id: Schema.String,
  models: Strings,
  /** How many times each model replays the configuration (each repeat a run). */
  repeats: Schema.optional(Schema.Number),
  reviewer_model: Schema.String,
  second_judge: Schema.optional(NullableString),
  self_review_models: Strings,
  /** Each ready thread with the checks and set-up commands it would run on every side (the thread's own unless named). */
  ready_threads: Schema.Array(Schema.Struct({
    index: Schema.Number,
    thread_id: Schema.String,
    models: Strings,
    checks: Schema.Array(ApprovedCommand),
    setup: Schema.Array(ApprovedCommand),
    /** Why this thread's replay is not like-for-like, said before the approval (an accepted empty beginning). */
    warnings: Schema.optional(Strings)
  })),
  blocked: Schema.Array(BlockedThread),
  runs: Schema.Number,
  blockers: Strings,
  blocking_reasons: Strings,
  approval_prompt: NullableString,
  prepare_token: NullableString,
  approval: Approval,
  configuration_fingerprint: Schema.String,
  /** What approving would cost, every ready thread × model, as an estimate with its basis. */
  estimate: Schema.optional(CostEstimate),
  /** Whether a Codex CLI runs and is logged in; when not, the batch is blocked with its sentence. */
  preflight: Schema.optional(Preflight)
})
export type PrepareBatchResult = typeof PrepareBatchResult.Type

/** `prepare_run`: a batch's answer has `batch: true`. */
export const PrepareResult = Schema.Union(PrepareBatchResult, PrepareRunResult)
export type PrepareResult = typeof PrepareResult.Type
