/**
 * The run state and the controller's own files (`controller-state.json`, the runtime file, `/health`,
 * `attempt.json`), Schema first.
 */
import { Schema } from "effect"
import { CONTROLLER_SESSION_ID_PATTERN, RUN_ID_PATTERN } from "../ids.js"
import { RepeatLabel } from "./repeats.js"

// ---------------------------------------------------------------------------------------------------
// Run state (`controller-state.json`)

export const RUN_STATUSES = ["running", "completed", "failed", "cancelled"] as const
export const RUN_WINNERS = ["codex", "claude", "tie", "inconclusive"] as const
export const DEFAULT_RUNS_PAGE = 50
export const MAX_RUNS_PAGE = 200

/** Bounds on what a stored state may hold: a field beyond them is damage, not data. */
const Name = Schema.String.pipe(Schema.maxLength(256))
/** An ISO 8601 time, as every state records it. */
const Timestamp = Schema.String.pipe(Schema.maxLength(64), Schema.filter((text) => !Number.isNaN(Date.parse(text)), { message: () => "is not an ISO 8601 time" }))
const LongText = Schema.String.pipe(Schema.maxLength(64 * 1024))
const ProcessId = Schema.Number.pipe(Schema.int(), Schema.between(1, 2 ** 31 - 1))

export const PhaseRow = Schema.Struct({ id: Name, label: Name, status: Name })
export type PhaseRow = typeof PhaseRow.Type

export const RunEvent = Schema.Struct({
  at: Timestamp,
  phase: Name,
  status: Name,
  summary: Schema.String.pipe(Schema.maxLength(1000))
})
export type RunEvent = typeof RunEvent.Type

/**
 * The durable state of one run. The first fields are every run's; the optional ones are what the
 * controller records as the run goes (its model, its report, how it failed). Fields this version does
 * not know are kept as they are. Every state read from disk is decoded with it: one that does not decode
 * is damaged, and is skipped where runs are listed.
 */
export const RunState = Schema.Struct(
  {
    schema_version: Schema.Number.pipe(Schema.int(), Schema.between(0, 1000)),
    controller_session_id: Schema.String.pipe(Schema.pattern(CONTROLLER_SESSION_ID_PATTERN)),
    run_id: Schema.String.pipe(Schema.pattern(RUN_ID_PATTERN)),
    status: Schema.Literal(...RUN_STATUSES),
    phase: Name,
    phases: Schema.Array(PhaseRow).pipe(Schema.maxItems(64)),
    events: Schema.Array(RunEvent).pipe(Schema.maxItems(200)),
    coordinator_pid: Schema.NullOr(ProcessId),
    started_at: Timestamp,
    updated_at: Timestamp,
    completed_at: Schema.optional(Schema.NullOr(Timestamp)),
    error: Schema.NullOr(LongText),
    /** The tag on every process of the run (absent in states written before tags). */
    run_tag: Schema.optional(Name),
    thread_id: Schema.optional(Name),
    model: Schema.optional(Name),
    models: Schema.optional(Schema.Array(Name).pipe(Schema.maxItems(64))),
    range_start: Schema.optional(Schema.NullOr(Name)),
    range_end: Schema.optional(Schema.NullOr(Name)),
    prepare_token_hash: Schema.optional(Schema.NullOr(Name)),
    configuration_fingerprint: Schema.optional(Name),
    report_json: Schema.optional(Schema.NullOr(LongText)),
    report_html: Schema.optional(Schema.NullOr(LongText)),
    cancelled: Schema.optional(Schema.Boolean),
    cancellation_reason: Schema.optional(LongText),
    /** Which repeat of its (thread, model) start the run is; absent for a start of one. */
    repeat: Schema.optional(RepeatLabel)
  },
  Schema.Record({ key: Schema.String, value: Schema.Unknown })
)
export type RunState = typeof RunState.Type

/** What makes a JSON object a run state worth reading; every other field is read as it comes. */
export const StoredRunState = Schema.Struct(
  { run_id: Schema.String, status: Schema.String, controller_session_id: Schema.String },
  Schema.Record({ key: Schema.String, value: Schema.Unknown })
)
export type StoredRunState = typeof StoredRunState.Type


// ---------------------------------------------------------------------------------------------------
// The controller's own files and `/health`

/**
 * The settings that make two controllers interchangeable: the history read, the run root, the Codex executable,
 * the reviewer setting (`CODEX_REPLAY_REVIEWER_MODEL`) and the Codex prices (`CODEX_REPLAY_PRICING`: the file and
 * a digest of the prices read from it); the last two are absent in runtime files of older versions.
 */
export const ControllerSettings = Schema.Struct({
  claude_config_dir: Schema.String,
  run_root: Schema.String,
  codex_cli_path: Schema.NullOr(Schema.String),
  reviewer_model: Schema.optional(Schema.NullOr(Schema.String)),
  pricing_file: Schema.optional(Schema.NullOr(Schema.String)),
  pricing_sha256: Schema.optional(Schema.NullOr(Schema.String))
})
export type ControllerSettings = typeof ControllerSettings.Type

const Port = Schema.Number.pipe(Schema.int(), Schema.between(1, 65535))
const ControlToken = Schema.String.pipe(Schema.minLength(32))
/** The API token: 32 random bytes in lowercase hex, presented as `Authorization: Bearer …` or the page's cookie. */
const ApiToken = Schema.String.pipe(Schema.pattern(/^[0-9a-f]{64}$/))

/** `controllers/<session>/controller-server.json`: how launchers find and prove a running controller. */
export const RuntimeFile = Schema.Struct({
  server: Schema.String,
  protocol_version: Schema.Number,
  version: Schema.String,
  pid: Schema.Number,
  port: Port,
  controller_session_id: Schema.String,
  control_token: ControlToken,
  api_token: ApiToken,
  /** What this controller works on; absent in runtime files of older versions. */
  settings: Schema.optional(ControllerSettings)
})
export type RuntimeFile = typeof RuntimeFile.Type

/** The part of a runtime file a launcher needs: where the controller listens and its tokens (older versions wrote no API token). */
export const RuntimeFileAddress = Schema.Struct({
  port: Port,
  control_token: ControlToken,
  api_token: Schema.optional(ApiToken),
  settings: Schema.optional(Schema.Unknown)
})

/**
 * `GET /health?challenge=C`: what the controller is and the proof of its control token, for anyone; its
 * version, process, session and active runs only to a caller presenting its API token.
 */
export const Health = Schema.Struct({
  server: Schema.String,
  protocol_version: Schema.Number,
  /** HMAC-SHA256(control token, challenge), hex; empty without a challenge. */
  proof: Schema.String,
  version: Schema.optional(Schema.String),
  pid: Schema.optional(Schema.Number),
  controller_session_id: Schema.optional(Schema.String),
  active_runs: Schema.optional(Schema.Number)
})
export type Health = typeof Health.Type

/** One model's launch in `attempt.json`. */
export const ModelLaunch = Schema.Struct(
  {
    model: Schema.String,
    /** Which repeat of the model this launch is; absent for a start of one. */
    repeat: Schema.optional(Schema.Number),
    launch_status: Schema.optional(Schema.Literal("pending", "started", "failed")),
    run_id: Schema.optional(Schema.String),
    error: Schema.optional(Schema.String),
    controller_code: Schema.optional(Schema.String)
  },
  Schema.Record({ key: Schema.String, value: Schema.Unknown })
)
export type ModelLaunch = typeof ModelLaunch.Type

/**
 * `controllers/<session>/attempt.json`: the single-use launch of a controller session (written by
 * `open_controller`) and each model's launch of a start (written by `start_run`).
 */
export const AttemptFile = Schema.Struct(
  {
    version: Schema.optional(Schema.Number),
    controller_session_id: Schema.optional(Schema.String),
    created_at: Schema.optional(Schema.String),
    launch_requested_at: Schema.optional(Schema.String),
    controller_ready: Schema.optional(Schema.Boolean),
    controller_pid: Schema.optional(Schema.Number),
    start_requested: Schema.optional(Schema.Boolean),
    final_results_ready: Schema.optional(Schema.Boolean),
    startup_failed: Schema.optional(Schema.Boolean),
    startup_error: Schema.optional(Schema.String),
    models: Schema.optional(Schema.Array(ModelLaunch))
  },
  Schema.Record({ key: Schema.String, value: Schema.Unknown })
)
export type AttemptFile = typeof AttemptFile.Type
