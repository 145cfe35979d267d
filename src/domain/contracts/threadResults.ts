/**
 * What the thread tools answer (list_threads, list_threads_progress, inspect_thread, synthesize_request,
 * infer_working_directory): see results.ts.
 */
import { Schema } from "effect"
import { Diagnostic, ModelOption, NullableString, open, Strings } from "./resultFields.js"

export const TokenCounts = Schema.Struct({
  input: Schema.Number,
  cache_read: Schema.Number,
  cache_write_5m: Schema.Number,
  cache_write_1h: Schema.Number,
  output: Schema.Number
})

/** One thread of a listing. */
export const ThreadSummary = Schema.Struct({
  imported_thread_id: Schema.String,
  title: Schema.String,
  project_dir: NullableString,
  git_branch: NullableString,
  claude_model: NullableString,
  claude_models: Strings,
  started_at: NullableString,
  ended_at: NullableString,
  human_turns: Schema.Number,
  changed_files: Schema.Number,
  tokens: TokenCounts,
  cost_usd: Schema.NullOr(Schema.Number),
  source_path: Schema.String,
  source: Schema.Literal("imported", "sample")
})
export type ThreadSummary = typeof ThreadSummary.Type

/** `list_threads`. */
export const ThreadList = Schema.Struct({
  threads: Schema.Array(ThreadSummary),
  source: Schema.Literal("imported", "sample"),
  /** `date`: most recent first; `cost`: most expensive first (threads without a price last). */
  sort: Schema.Literal("date", "cost"),
  sample_total: Schema.Number,
  imported_total: Schema.Number,
  offset: Schema.Number,
  total: Schema.Number,
  has_more: Schema.Boolean,
  diagnostics: Strings,
  /** Where imported threads are read (`$CLAUDE_CONFIG_DIR/projects`). */
  history_directory: Schema.String,
  /** "No Claude Code threads in <history_directory>." when that folder holds none, else null. */
  empty_history: NullableString
})
export type ThreadList = typeof ThreadList.Type

/** `list_threads_progress`: how far a cold listing is. */
export const ListingProgress = Schema.Struct({
  reading: Schema.Boolean,
  done: Schema.Number,
  total: Schema.Number,
  message: NullableString
})
export type ListingProgress = typeof ListingProgress.Type

/** A thread as inspected: its summary, its request and how the request was made. */
export const InspectedThread = open({
  imported_thread_id: Schema.String,
  source: Schema.Literal("imported", "sample"),
  request: Schema.String,
  request_generation: open({ method: Schema.String }),
  title: Schema.optional(Schema.String),
  source_path: Schema.optional(Schema.String),
  message_uuid: Schema.optional(NullableString),
  /** Every file Claude changed, with its kind; an abandoned change was undone before the session ended. */
  historical_changed_files: Schema.optional(Schema.Array(open({
    path: Schema.String,
    kind: Schema.Literal("created", "modified"),
    abandoned: Schema.Boolean
  })))
})

const StateKind = Schema.Literal("git", "non_git")

/**
 * `inspect_thread`: the thread, what a replay of it would compare, and what blocks it. The baseline,
 * capabilities, file selection, workspace and chunk offer are described where a client reads them.
 */
/** A prompt of a thread where a chunk can start (`inspect_thread`'s `chunks.split_points`). */
export const SplitPoint = Schema.Struct({
  index: Schema.Number,
  message_id: Schema.String,
  timestamp: Schema.String,
  prompt: Schema.String,
  files_touched: Strings
})

/** The chunk asked for (`range_start`/`range_end`): its request and the files carried into it. */
export const ChunkSelection = Schema.Struct({
  range_start: Schema.String,
  range_end: Schema.String,
  first_index: Schema.Number,
  last_index: Schema.Number,
  request: Schema.String,
  carried_forward_files: Strings
})

/** Whether a thread can be replayed in chunks, and where it can be split. */
export const ChunkOffer = Schema.Struct({
  available: Schema.Boolean,
  reason: NullableString,
  split_points: Schema.Array(SplitPoint),
  selected: Schema.optional(ChunkSelection)
})
export type ChunkOffer = typeof ChunkOffer.Type

/** A check Claude ran through `Bash` (a test, build, type check or linter), as the thread records it. */
export const ThreadCheck = Schema.Struct({
  command: Schema.String,
  /** Where it ran, relative to the project directory (`.` for the project itself). */
  directory: Schema.String,
  kind: Schema.Literal("test", "build", "typecheck", "lint"),
  runs: Schema.Number,
  /** How its last run ended (`unknown`: no result, or a failed chain that does not say which command failed). */
  last_outcome: Schema.Literal("passed", "failed", "unknown"),
  last_exit_code: Schema.NullOr(Schema.Number),
  /** Whether its last run came after Claude's last successful edit. */
  after_last_edit: Schema.Boolean
})

/** The checks of the thread (or the chunk asked for) and the set-up commands Claude ran before them. */
export const ThreadChecks = Schema.Struct({
  checks: Schema.Array(ThreadCheck),
  setup: Schema.Array(Schema.Struct({ command: Schema.String, directory: Schema.String, runs: Schema.Number }))
})
export type ThreadChecks = typeof ThreadChecks.Type

export const InspectThreadResult = Schema.Struct({
  thread: InspectedThread,
  replay: InspectedThread,
  /** The proposed beginning and end; empty when no baseline could be proposed. */
  baseline: open({
    repository: Schema.optional(NullableString),
    source_kind: Schema.optional(StateKind),
    beginning_kind: Schema.optional(StateKind),
    ending_kind: Schema.optional(StateKind),
    commit: Schema.optional(NullableString),
    ending_commit: Schema.optional(NullableString)
  }),
  capabilities: open({
    items: Schema.optional(Schema.Array(open({ name: Schema.optional(Schema.String), title: Schema.String, status: Schema.String, guidance: Schema.String })))
  }),
  file_selection: open({ preexisting_files: Schema.optional(Strings) }),
  workspace: open({
    kind: Schema.NullOr(StateKind),
    /** The files Claude changed that the replay may carry, and which of them are selected. */
    files: Schema.Array(open({ path: Schema.String, kind: Schema.Literal("created", "modified"), selected: Schema.Boolean })),
    requires_empty_attestation: Schema.Boolean,
    requires_confirmation: Schema.Boolean,
    complete: Schema.Boolean
  }),
  models: Schema.Array(ModelOption),
  chunks: ChunkOffer,
  checks: ThreadChecks,
  questions: Strings,
  repository_blockers: Strings,
  blockers: Strings,
  diagnostics: Schema.Array(Diagnostic)
})
export type InspectThreadResult = typeof InspectThreadResult.Type

export const RequestGeneration = Schema.Union(
  Schema.Struct({ method: Schema.Literal("single_user_prompt") }),
  Schema.Struct({ method: Schema.Literal("concatenated_fallback") }),
  Schema.Struct({
    method: Schema.Literal("llm_synthesis"),
    model: Schema.String,
    generated_at: Schema.String,
    /** The synthesis call's tokens, so a run can count it (docs/verdicts.md#cost). */
    usage: Schema.optional(Schema.Struct({ input: Schema.Number, cached_input: Schema.Number, cache_write: Schema.Number, output: Schema.Number }))
  })
)
export type RequestGeneration = typeof RequestGeneration.Type

/** `synthesize_request`. */
export const SynthesizedRequest = Schema.Struct({
  thread_id: Schema.String,
  request: Schema.String,
  request_generation: RequestGeneration
})
export type SynthesizedRequest = typeof SynthesizedRequest.Type

/** `infer_working_directory`; `working_directory` is "" when unavailable. */
export const InferredWorkingDirectory = Schema.Struct({
  thread_id: Schema.String,
  working_directory: Schema.String,
  source: Schema.Literal("codex", "cwd", "unavailable")
})
export type InferredWorkingDirectory = typeof InferredWorkingDirectory.Type
