/**
 * Batches: many threads, each with its models, replayed through the controller's parallel limit. The
 * record (`<run root>/batches/<batch id>/batch.json`) is the batch's truth on disk: what was approved,
 * and which (thread, model) pair has which run id, written before that run is created. Everything else
 * a batch answers is derived from the record and the runs' states by the pure functions below.
 */
import { Schema } from "effect"
import type { Caveat } from "./report/caveats.js"
import { BATCH_ID_PATTERN, RunConfiguration } from "./contracts/index.js"
import { MAX_PARALLEL_RUNS } from "./product.js"
import { timestampedId } from "./ids.js"
import { TokenTotals } from "./spend.js"

export const BATCHES_DIRECTORY = "batches"
export const BATCH_RECORD_FILE = "batch.json"
export const BATCH_RECORD_MAX_BYTES = 64 * 1024 * 1024

export const newBatchId = timestampedId("batch")
export const isBatchId = (value: string) => BATCH_ID_PATTERN.test(value)

/** One approved configuration of the batch and what its approval was bound to. */
export const BatchConfiguration = Schema.Struct({
  configuration: RunConfiguration,
  fingerprint: Schema.String,
  historical_result_sha256: Schema.String,
  prepared_configuration_sha256_by_model: Schema.Record({ key: Schema.String, value: Schema.String }),
  /** Claude's API-equivalent cost of the thread; `null` when it has no price. */
  claude_usd: Schema.NullOr(Schema.Number)
})
export type BatchConfiguration = typeof BatchConfiguration.Type

/** One (thread, model) replay of the batch. */
export const BatchItem = Schema.Struct({
  configuration_index: Schema.Number,
  thread_id: Schema.String,
  model: Schema.String,
  /** Written before the run is created: a run id without a run directory never started. */
  run_id: Schema.NullOr(Schema.String),
  /** Claude's API-equivalent cost of the thread; `null` when it has no price. */
  claude_usd: Schema.NullOr(Schema.Number),
  /** Why the replay could not start (the thread or repository changed since approval). */
  error: Schema.optional(Schema.String),
  /** Codex's API-equivalent cost once the run ended; `null`: not priced. */
  codex_usd: Schema.optional(Schema.NullOr(Schema.Number)),
  /** The run's evaluation cost (reviews, retries, reconstruction) once it ended; `null`: a call not priced; absent in older batches. */
  evaluation_usd: Schema.optional(Schema.NullOr(Schema.Number)),
  /** The tokens of the run's calls once it ended, as `runs` shows them; `null`: not known; absent in older batches. */
  tokens: Schema.optional(Schema.NullOr(TokenTotals)),
  /** The run's duration once it ended. */
  elapsed_ms: Schema.optional(Schema.Number),
  /** Which repeat of its (thread, model) the replay is; absent when each is replayed once. */
  repeat: Schema.optional(Schema.Struct({ index: Schema.Number, of: Schema.Number }))
})
export type BatchItem = typeof BatchItem.Type

export const BlockedThread = Schema.Struct({
  index: Schema.Number,
  thread_id: Schema.String,
  reasons: Schema.Array(Schema.String)
})
export type BlockedThread = typeof BlockedThread.Type

export const BATCH_STATUSES = ["running", "finished", "cancelled"] as const

export const BatchPortfolio = Schema.Struct({
  portfolio_id: Schema.String,
  portfolio_json: Schema.String,
  portfolio_html: Schema.String
})

/** `batch.json`. */
export const BatchRecord = Schema.Struct({
  schema_version: Schema.Literal(1),
  batch_id: Schema.String,
  status: Schema.Literal(...BATCH_STATUSES),
  controller_session_id: Schema.String,
  coordinator_pid: Schema.Number,
  coordinator_start_time: Schema.NullOr(Schema.Number),
  created_at: Schema.String,
  ended_at: Schema.NullOr(Schema.String),
  prepare_token_hash: Schema.String,
  reviewer_model: Schema.String,
  blocked: Schema.Array(BlockedThread),
  items: Schema.Array(BatchItem),
  /** Controller sessions that resumed the batch after its controller died, in order. */
  resumed_by: Schema.Array(Schema.String),
  portfolio: Schema.NullOr(BatchPortfolio)
})
export type BatchRecord = typeof BatchRecord.Type

// ---------------------------------------------------------------------------------------------
// The summary

export type ItemStatus = "pending" | "running" | "completed" | "failed" | "cancelled"

/** What the summary needs of a run's state. */
export interface RunView {
  readonly status: string
  readonly phase: string
  readonly started_at: string
  readonly completed_at?: string | null | undefined
  readonly winner?: string | null | undefined
  /** The checks' sentence of its report, when it has checks. */
  readonly checks?: string | null | undefined
  /** Its verdict's caveats (`caveatsOf`), once it has a report. */
  readonly caveats?: ReadonlyArray<Caveat> | undefined
}

/** An item's status: its run's, or `pending` before it has a run (`cancelled` in a cancelled batch). */
export const itemStatus = (record: BatchRecord, item: BatchItem, run: RunView | undefined): ItemStatus => {
  if (item.error !== undefined) return "failed"
  if (run === undefined) return record.status === "running" ? "pending" : "cancelled"
  if (run.status !== "completed" && run.status !== "failed" && run.status !== "cancelled") return "running"
  // While the batch runs, a replay counts as ended once the batch recorded its time and cost, a moment after the
  // run ended: its counts and its cost move together.
  return record.status === "running" && item.elapsed_ms === undefined ? "running" : run.status
}

const sum = (values: ReadonlyArray<number>) => values.reduce((total, value) => total + value, 0)

/**
 * The time left: the runs still to finish, `parallel` at a time, each taking the mean duration of
 * the runs that ended; `null` until one has ended. A running run counts as half done.
 */
export const estimateRemainingMs = (
  durations: ReadonlyArray<number>,
  pending: number,
  running: number,
  parallel = MAX_PARALLEL_RUNS
): number | null => {
  if (pending + running === 0) return 0
  if (durations.length === 0) return null
  const mean = sum(durations) / durations.length
  return Math.round((mean * (pending + running / 2)) / parallel)
}

export interface BatchSummary {
  readonly batch_id: string
  readonly status: BatchRecord["status"]
  readonly controller_session_id: string
  readonly created_at: string
  readonly ended_at: string | null
  readonly elapsed_ms: number
  readonly reviewer_model: string
  readonly models: ReadonlyArray<string>
  readonly threads: number
  readonly blocked: ReadonlyArray<BlockedThread>
  readonly total: number
  readonly counts: Readonly<Record<ItemStatus, number>>
  readonly current_runs: ReadonlyArray<{ readonly run_id: string; readonly thread_id: string; readonly model: string; readonly phase: string }>
  readonly cost_usd: {
    readonly codex: number
    /** Claude's cost once per thread: a thread replayed with several models cost Claude once. */
    readonly claude: number
    readonly unpriced_runs: number
    /** What it cost to know: the runs' evaluation calls, and how many runs had one not priced. */
    readonly evaluation?: number | undefined
    readonly evaluation_unpriced_runs?: number | undefined
  }
  readonly estimate_remaining_ms: number | null
  readonly items: ReadonlyArray<{
    readonly thread_id: string
    readonly model: string
    readonly run_id: string | null
    readonly status: ItemStatus
    readonly phase: string | null
    readonly winner: string | null
    readonly error: string | null
    readonly checks?: string | null
    /** The caveats of a completed run's verdict (`caveatsOf`); empty otherwise. */
    readonly caveats?: ReadonlyArray<Caveat>
    /** What the batch recorded once the run ended (`BatchItem`); absent before. */
    readonly codex_usd?: number | null
    readonly evaluation_usd?: number | null
    readonly tokens?: TokenTotals | null
  }>
  readonly resumed_by: ReadonlyArray<string>
  readonly portfolio: BatchRecord["portfolio"]
  /** What the running batch waits for now (`disk_space`: a write it needs was refused for want of space). */
  readonly waiting_for?: "disk_space" | null
  /** One sentence on that wait, for a person. */
  readonly status_note?: string | null
}

const emptyCounts = (): Record<ItemStatus, number> => ({ pending: 0, running: 0, completed: 0, failed: 0, cancelled: 0 })

/**
 * Counts per status, the runs in progress, elapsed time, cost so far on both sides (Claude's side
 * once per thread with a completed run: replaying it with several models did not make Claude's
 * session cost more), the evaluation's own cost and the estimate of the time left.
 */
export const summarizeBatch = (
  record: BatchRecord,
  runs: ReadonlyMap<string, RunView>,
  nowMillis: number,
  parallel = MAX_PARALLEL_RUNS
): BatchSummary => {
  const counts = emptyCounts()
  const items = record.items.map((item) => {
    const run = item.run_id === null ? undefined : runs.get(item.run_id)
    const status = itemStatus(record, item, run)
    counts[status] += 1
    return { item, run, status }
  })
  const completed = items.filter(({ status }) => status === "completed")
  const codexCosts = completed.map(({ item }) => item.codex_usd)
  const claudeCosts = [...new Map(completed.map(({ item }) => [item.configuration_index, item.claude_usd])).values()]
  const evaluationCosts = completed.flatMap(({ item }) => (item.evaluation_usd === undefined ? [] : [item.evaluation_usd]))
  const durations = items.flatMap(({ item }) => (item.elapsed_ms === undefined ? [] : [item.elapsed_ms]))
  const endMillis = record.ended_at === null ? nowMillis : Date.parse(record.ended_at)
  return {
    batch_id: record.batch_id,
    status: record.status,
    controller_session_id: record.controller_session_id,
    created_at: record.created_at,
    ended_at: record.ended_at,
    elapsed_ms: Math.max(0, endMillis - Date.parse(record.created_at)),
    reviewer_model: record.reviewer_model,
    models: [...new Set(record.items.map((item) => item.model))],
    threads: new Set(record.items.map((item) => item.configuration_index)).size,
    blocked: record.blocked,
    total: record.items.length,
    counts,
    current_runs: items.flatMap(({ item, run, status }) =>
      status === "running" && item.run_id !== null
        ? [{ run_id: item.run_id, thread_id: item.thread_id, model: item.model, phase: run?.phase ?? "" }]
        : []
    ),
    cost_usd: {
      codex: sum(codexCosts.flatMap((usd) => (typeof usd === "number" ? [usd] : []))),
      claude: sum(claudeCosts.flatMap((usd) => (usd === null ? [] : [usd]))),
      unpriced_runs: codexCosts.filter((usd) => typeof usd !== "number").length,
      evaluation: sum(evaluationCosts.flatMap((usd) => (usd === null ? [] : [usd]))),
      evaluation_unpriced_runs: evaluationCosts.filter((usd) => usd === null).length
    },
    estimate_remaining_ms: record.status === "running" ? estimateRemainingMs(durations, counts.pending, counts.running, parallel) : 0,
    items: items.map(({ item, run, status }) => ({
      thread_id: item.thread_id,
      model: item.model,
      run_id: item.run_id,
      status,
      phase: run?.phase ?? null,
      winner: run?.winner ?? null,
      error: item.error ?? null,
      checks: run?.checks ?? null,
      caveats: run?.caveats ?? [],
      ...(item.codex_usd === undefined ? {} : { codex_usd: item.codex_usd }),
      ...(item.evaluation_usd === undefined ? {} : { evaluation_usd: item.evaluation_usd }),
      ...(item.tokens === undefined ? {} : { tokens: item.tokens })
    })),
    resumed_by: record.resumed_by,
    portfolio: record.portfolio
  }
}

/** One line: "7 of 24 replays done (5 completed, 2 failed), 4 running, 13 pending". */
export const batchProgressText = (summary: BatchSummary) => {
  const { counts } = summary
  const done = counts.completed + counts.failed + counts.cancelled
  const ended = [
    `${counts.completed} completed`,
    ...(counts.failed > 0 ? [`${counts.failed} failed`] : []),
    ...(counts.cancelled > 0 ? [`${counts.cancelled} cancelled`] : [])
  ]
  const note = typeof summary.status_note === "string" ? ` ${summary.status_note}` : ""
  return `Batch ${summary.batch_id} is ${summary.status}: ${done} of ${summary.total} replay(s) done (${ended.join(", ")}), ${counts.running} running, ${counts.pending} pending.${note}`
}
