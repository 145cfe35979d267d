/**
 * What every controller tool answers, Schema first: the handlers return these values, the RPC group
 * encodes them, the CLI and embedding programs receive them typed, and `/api/call` and MCP render their
 * text and `structuredContent` from them at the edge.
 *
 * Parts owned by other modules (a thread's inspection, a report, a portfolio) are described down to the
 * fields a client reads; their other fields pass through as they are (`open`), so an answer on the wire
 * is exactly the value the program returned.
 */
import { Schema } from "effect"
import { SpendLine, TokenTotals } from "../spend.js"
import { ChecksComparison } from "../checks/outcomes.js"
import { Caveats } from "../report/caveats.js"
import { RepeatLabel, RepeatOutcomes } from "./repeats.js"
import { RunState } from "./files.js"
import { Grid } from "./grid.js"
import { BlindCandidatesResult, RevealResult, SubmitVoteResult, VoteStatus } from "./votes.js"
import { BlockedThread, PrepareResult } from "./prepareResults.js"
import { Diagnostic, ModelOption, NullableString, open, Strings } from "./resultFields.js"
import { InferredWorkingDirectory, InspectThreadResult, ListingProgress, SynthesizedRequest, ThreadList } from "./threadResults.js"

export * from "./resultFields.js"
export * from "./threadResults.js"
export * from "./prepareResults.js"


// ---------------------------------------------------------------------------------------------------
// Runs

/** A run's state as a tool answers it: the stored state and the tail of its log. */
export const RunSnapshot = Schema.extend(RunState, Schema.Struct({ run_log: Schema.String }))
export type RunSnapshot = typeof RunSnapshot.Type

/** Who supervises a run, and whether this controller may change it. */
export const Supervision = Schema.Struct({
  controller_session_id: Schema.String,
  this_controller: Schema.Boolean,
  live: Schema.Boolean,
  read_only: Schema.Boolean,
  controller_url: NullableString
})
export type Supervision = typeof Supervision.Type

/** `get_run`. */
export const GetRunResult = Schema.Struct({
  run: Schema.extend(RunSnapshot, Schema.Struct({ supervision: Supervision })),
  /** The outcomes of every repeat of the run's (thread, model) start, now; absent for a run that is no repeat. */
  repeats: Schema.optionalWith(RepeatOutcomes, { exact: true })
})
export type GetRunResult = typeof GetRunResult.Type

/** One row of the run history (`list_runs`). */
export const RunSummary = Schema.Struct({
  run_id: Schema.String,
  thread_id: NullableString,
  /** Its thread's title as the history names it now; null when the history has no such thread. */
  thread_title: Schema.optionalWith(NullableString, { exact: true }),
  model: NullableString,
  /** The run's models, as its state records them (a start group's run has one). */
  models: Strings,
  status: Schema.String,
  phase: Schema.String,
  phase_label: Schema.String,
  winner: NullableString,
  dimensions: Schema.NullOr(Schema.Struct({ won: Schema.Number, tied: Schema.Number, lost: Schema.Number })),
  possible_leak: Schema.NullOr(Schema.Boolean),
  /** Whether the run's two judges disagreed on the winner; absent when it had no second judge. */
  judges_split: Schema.optionalWith(Schema.Boolean, { exact: true }),
  /** The checks' sentence of a completed run whose report has checks; null otherwise. */
  checks: Schema.optionalWith(NullableString, { exact: true }),
  /** The run's model calls summed (implementation, evaluation, whole run); absent in older runs. */
  spend: Schema.optionalWith(Schema.Struct({ implementation: SpendLine, evaluation: SpendLine, total: SpendLine }), { exact: true }),
  /** The tokens of the run's calls (input with cache reads and writes, output); absent in older runs. */
  tokens: Schema.optionalWith(TokenTotals, { exact: true }),
  /** The caveats of its verdict (`caveatsOf`); empty without a report. */
  caveats: Schema.optionalWith(Caveats, { exact: true }),
  started_at: Schema.String,
  completed_at: NullableString,
  updated_at: Schema.String,
  error: NullableString,
  chunk: Schema.NullOr(Schema.Struct({ range_start: Schema.String, range_end: NullableString })),
  report_ready: Schema.Boolean,
  /** A completed run with neither a blind vote nor a reveal: the page shows an offer, not its verdict. Absent otherwise. */
  blind: Schema.optionalWith(Schema.Boolean, { exact: true }),
  start_group: NullableString,
  /** Which repeat of its (thread, model) start the run is; absent for a start of one. */
  repeat: Schema.optionalWith(RepeatLabel, { exact: true }),
  supervision: Supervision
})
export type RunSummary = typeof RunSummary.Type

/** `list_runs`. */
export const RunList = Schema.Struct({
  runs: Schema.Array(RunSummary),
  total: Schema.Number,
  offset: Schema.Number,
  limit: Schema.Number,
  has_more: Schema.Boolean,
  run_root: Schema.String,
  /** Run directories left out because their state is damaged, one line each (at most 20). */
  diagnostics: Schema.Array(Schema.String)
})
export type RunList = typeof RunList.Type

/** `cancel_run`. */
export const CancelRunResult = Schema.Struct({ run_id: Schema.String, run: RunSnapshot, idempotent: Schema.Boolean })
export type CancelRunResult = typeof CancelRunResult.Type


export const LaunchError = Schema.Struct({ model: Schema.String, error: Schema.String, controller_code: Schema.Literal("launch_failed") })
export type LaunchError = typeof LaunchError.Type

export const StartedRun = Schema.Struct({ run_id: Schema.String, model: Schema.String, run: RunSnapshot })
export type StartedRun = typeof StartedRun.Type

/** `start_run` of one configuration: one run per model. */
export const StartRunResult = Schema.Struct({
  run_id: Schema.String,
  run: RunSnapshot,
  model: Schema.String,
  models: Strings,
  runs: Schema.Array(StartedRun),
  errors: Schema.Array(LaunchError),
  idempotent: Schema.Boolean
})
export type StartRunResult = typeof StartRunResult.Type

// ---------------------------------------------------------------------------------------------------
// Batches

const ItemStatus = Schema.Literal("pending", "running", "completed", "failed", "cancelled")

/** A batch's progress, as `get_batch`, `cancel_batch`, `start_run` and `get_state` answer it. */
export const BatchSummary = Schema.Struct({
  batch_id: Schema.String,
  status: Schema.Literal("running", "finished", "cancelled"),
  controller_session_id: Schema.String,
  created_at: Schema.String,
  ended_at: NullableString,
  elapsed_ms: Schema.Number,
  reviewer_model: Schema.String,
  models: Strings,
  threads: Schema.Number,
  blocked: Schema.Array(BlockedThread),
  total: Schema.Number,
  counts: Schema.Record({ key: ItemStatus, value: Schema.Number }),
  current_runs: Schema.Array(Schema.Struct({ run_id: Schema.String, thread_id: Schema.String, model: Schema.String, phase: Schema.String })),
  cost_usd: Schema.Struct({
    codex: Schema.Number,
    /** Once per thread. */
    claude: Schema.Number,
    unpriced_runs: Schema.Number,
    evaluation: Schema.optional(Schema.Number),
    evaluation_unpriced_runs: Schema.optional(Schema.Number)
  }),
  estimate_remaining_ms: Schema.NullOr(Schema.Number),
  items: Schema.Array(Schema.Struct({
    thread_id: Schema.String,
    model: Schema.String,
    run_id: NullableString,
    status: ItemStatus,
    phase: NullableString,
    winner: NullableString,
    error: NullableString,
    /** The checks' sentence of a completed run whose report has checks; null otherwise. */
    checks: Schema.optionalWith(NullableString, { exact: true }),
    /** The caveats of a completed run's verdict (`caveatsOf`); absent from older controllers. */
    caveats: Schema.optionalWith(Caveats, { exact: true }),
    /** A completed run with neither a blind vote nor a reveal (the page hides its verdict); absent otherwise. */
    blind: Schema.optionalWith(Schema.Boolean, { exact: true }),
    /** Once the run ended: Codex's cost, the evaluation's, and the tokens of its calls (`null`: not known); absent before, and from older controllers. */
    codex_usd: Schema.optionalWith(Schema.NullOr(Schema.Number), { exact: true }),
    evaluation_usd: Schema.optionalWith(Schema.NullOr(Schema.Number), { exact: true }),
    tokens: Schema.optionalWith(Schema.NullOr(TokenTotals), { exact: true })
  })),
  resumed_by: Strings,
  portfolio: Schema.NullOr(Schema.Struct({ portfolio_id: Schema.String, portfolio_json: Schema.String, portfolio_html: Schema.String })),
  /** What the running batch waits for now: `disk_space` while a write it needs is refused for want of space. */
  waiting_for: Schema.optionalWith(Schema.NullOr(Schema.Literal("disk_space")), { exact: true }),
  /** That wait in one sentence ("Waiting for disk space: …"). */
  status_note: Schema.optionalWith(NullableString, { exact: true })
})
export type BatchSummary = typeof BatchSummary.Type

/** `start_run` of a prepared batch, and `cancel_batch`. */
export const BatchAnswer = Schema.Struct({ batch_id: Schema.String, batch: BatchSummary, idempotent: Schema.Boolean })
export type BatchAnswer = typeof BatchAnswer.Type

/** `start_run`: a batch's answer has `batch_id`. */
export const StartResult = Schema.Union(BatchAnswer, StartRunResult)
export type StartResult = typeof StartResult.Type

/** `get_batch`. */
export const GetBatchResult = Schema.Struct({
  batch: BatchSummary,
  /** The batch as threads × models, with its statistics (the portfolio's once it has one); absent from older controllers. */
  grid: Schema.optional(Grid)
})
export type GetBatchResult = typeof GetBatchResult.Type

// ---------------------------------------------------------------------------------------------------
// The controller

/** What the page and clients know of the controller (`get_state`). */
export const ControllerState = Schema.Struct({
  plugin_version: Schema.String,
  controller_session_id: Schema.String,
  max_parallel_runs: Schema.Number,
  max_replay_threads: Schema.Number,
  /** This controller's current or most recent batch. */
  batch: Schema.NullOr(BatchSummary),
  models: Schema.Array(ModelOption),
  /** The controller's reviewer (CODEX_REPLAY_REVIEWER_MODEL), used when a configuration names no reviewer_model; null: the neutral rule. */
  reviewer_model: NullableString,
  /** Whether Claude can be a second judge here (Claude Code found), and why not. */
  second_judge: Schema.optional(Schema.Struct({ available: Schema.Boolean, reason: NullableString })),
  diagnostics: Schema.Array(Diagnostic),
  recent_runs: Schema.Array(RunState),
  run_root: Schema.String
})
export type ControllerState = typeof ControllerState.Type

/** `get_state`. */
export const StateResult = Schema.Struct({ state: ControllerState })
export type StateResult = typeof StateResult.Type

/** `open_controller` (MCP). */
export const OpenControllerResult = Schema.Struct({
  prepared: Schema.Literal(true),
  opened: Schema.Literal(false),
  launch_url: Schema.String,
  controller_session_id: Schema.String
})
export type OpenControllerResult = typeof OpenControllerResult.Type

// ---------------------------------------------------------------------------------------------------
// Reports and portfolios

/**
 * A run's `report.json`, down to the top-level fields the page and the command line read; each is optional
 * (a report of an earlier schema version may lack one) and the structure below them is the report's own
 * (domain/report), kept as it is.
 */
export const ReplayReport = open({
  schema_version: Schema.optional(Schema.Number),
  run_id: Schema.optional(Schema.String),
  thread_id: Schema.optional(Schema.String),
  generated_at: Schema.optional(Schema.String),
  original_request: Schema.optional(Schema.String),
  winner: Schema.optional(Schema.String),
  candidates: Schema.optional(open({ codex: open({}), claude: open({}) })),
  evaluation: Schema.optional(Schema.NullOr(open({}))),
  review_reasons: Schema.optional(Schema.NullOr(open({}))),
  about_review: Schema.optional(open({})),
  cost_note: Schema.optional(Schema.String),
  comparability: Schema.optional(Schema.NullOr(open({}))),
  integrity: Schema.optional(open({})),
  /** The approved checks side by side; absent in reports written before they ran. */
  checks: Schema.optional(Schema.NullOr(ChecksComparison)),
  /** What to weigh before acting on the verdict (`caveatsOf`); `get_report` derives them for older reports. */
  caveats: Schema.optional(Caveats),
  /** The outcomes of every repeat of the run's (thread, model) start; absent for a run that is no repeat. */
  repeats: Schema.optional(RepeatOutcomes)
})
export type ReplayReport = typeof ReplayReport.Type

/** `get_report` without a format: the parsed report and both paths. */
export const ReportPaths = Schema.Struct({
  report: ReplayReport,
  report_json: Schema.String,
  report_html: Schema.String
})

/** `get_report` with a format: exactly the artifact. */
export const ReportArtifact = Schema.Struct({
  artifact_content: Schema.String,
  artifact_format: Schema.Literal("json", "html"),
  artifact_mime_type: Schema.String,
  artifact_file_name: Schema.String
})

/** `get_report`. */
export const ReportResult = Schema.Union(ReportArtifact, ReportPaths)
export type ReportResult = typeof ReportResult.Type

/** A portfolio verdict, down to what its one-line text reads; the rest passes through. */
export const Portfolio = open({
  portfolio_id: Schema.String,
  run_ids: Strings,
  models: Schema.Array(open({
    model: Schema.String,
    overall: open({
      wins: open({ count: Schema.Number }),
      ties: open({ count: Schema.Number }),
      losses: open({ count: Schema.Number }),
      sign_test_p: Schema.NullOr(Schema.Number)
    })
  }))
})

/** `make_portfolio`. */
export const PortfolioResult = Schema.Struct({
  portfolio_id: Schema.String,
  portfolio: Portfolio,
  portfolio_json: Schema.String,
  portfolio_html: Schema.String,
  /** The grid as CSV, beside portfolio.html (`POST /api/download {portfolio_id, format: "csv"}`). */
  portfolio_csv: Schema.optional(Schema.String),
  /** The runs as threads × models, with the portfolio's statistics. */
  grid: Schema.optional(Grid),
  html: Schema.optional(Schema.String),
  html_file_name: Schema.optional(Schema.String)
})
export type PortfolioResult = typeof PortfolioResult.Type

// ---------------------------------------------------------------------------------------------------

/** Every controller tool's result Schema, by tool name. */
export const ToolResults = {
  get_state: StateResult,
  get_run: GetRunResult,
  list_runs: RunList,
  cancel_run: CancelRunResult,
  list_threads: ThreadList,
  list_threads_progress: ListingProgress,
  inspect_thread: InspectThreadResult,
  synthesize_request: SynthesizedRequest,
  infer_working_directory: InferredWorkingDirectory,
  get_report: ReportResult,
  prepare_run: PrepareResult,
  start_run: StartResult,
  make_portfolio: PortfolioResult,
  get_batch: GetBatchResult,
  cancel_batch: BatchAnswer,
  blind_candidates: BlindCandidatesResult,
  submit_vote: SubmitVoteResult,
  reveal_run: RevealResult,
  vote_status: VoteStatus
} as const

export type ToolResultName = keyof typeof ToolResults
/** What the tool `Name` answers. */
export type ToolResultOf<Name extends ToolResultName> = (typeof ToolResults)[Name]["Type"]

/** How `/api/call` and MCP render a tool's answer: its text, and the result as `structuredContent`. */
export const ToolResultSchema = Schema.Struct({
  content: Schema.Array(Schema.Struct({ type: Schema.Literal("text"), text: Schema.String })),
  structuredContent: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  isError: Schema.optional(Schema.Literal(true))
})
export type ToolResultSchema = typeof ToolResultSchema.Type
