/**
 * `list_threads` (docs/controller.md), apart from the thread inspection in threads.ts: `codex-replay threads` loads this
 * alone, not the baseline, Git and model services that inspecting a thread needs.
 */
import { Effect, Either, Schema } from "effect"
import * as path from "node:path"
import { DEFAULT_THREADS_PAGE, ListThreadsArguments, type ThreadSort } from "../../domain/contracts/threadPayloads.js"
import { inDateRange } from "../../domain/dateRange.js"
import { invalidArgument } from "../../domain/errors.js"
import { formatInteger } from "../../domain/report/format.js"
import { describeParseError } from "../../domain/toolResult.js"
import type { ThreadSummary } from "../../domain/history/session.js"
import { ClaudeHistory, type ListedThread } from "../../services/history/ClaudeHistory.js"
import { Samples } from "../../services/Samples.js"
import { Settings } from "../../services/Settings.js"

export { ListThreadsArguments, type ThreadSort } from "../../domain/contracts/threadPayloads.js"

export interface ListThreadsResult {
  readonly threads: ReadonlyArray<ThreadSummary>
  readonly source: "imported" | "sample"
  /** `date`: most recent first; `cost`: most expensive first (threads without a price last). */
  readonly sort: ThreadSort
  readonly sample_total: number
  readonly imported_total: number
  readonly offset: number
  readonly total: number
  readonly has_more: boolean
  readonly diagnostics: ReadonlyArray<string>
  /** Where imported threads are read (`$CLAUDE_CONFIG_DIR/projects`). */
  readonly history_directory: string
  /** "No Claude Code threads in <history_directory>." when that folder holds none (missing or empty), else null. */
  readonly empty_history: string | null
}

/** A tool's arguments by their contract's Schema; a mistake is a controller error with the Schema's message. */
export const decodeArguments = <A, I>(schema: Schema.Schema<A, I>, payload: unknown) =>
  Schema.decodeUnknownEither(schema)(payload ?? {}).pipe(Either.mapLeft((error) => invalidArgument(describeParseError(error))))

export const decodeListThreadsArguments = (payload: unknown) =>
  Either.map(decodeArguments(ListThreadsArguments, payload), (args) => ({
    offset: args.offset ?? 0,
    limit: args.limit ?? DEFAULT_THREADS_PAGE,
    query: args.query,
    source: args.source,
    sort: args.sort ?? "date",
    range: { since: args.since ?? undefined, until: args.until ?? undefined }
  }))

const SEARCH_FIELDS = ["title", "project_dir", "claude_model", "imported_thread_id"] as const

export const matchesQuery = (thread: ThreadSummary, query: string) => {
  const needle = query.trim().toLocaleLowerCase()
  return SEARCH_FIELDS.map((field) => thread[field] ?? "").join(" ").toLocaleLowerCase().includes(needle)
}

/** Most expensive first; threads whose cost is unknown last; otherwise the listing's own order (newest first). */
const byCost = (threads: ReadonlyArray<ListedThread>) =>
  [...threads].sort((left, right) => (right.cost_usd ?? -1) - (left.cost_usd ?? -1))

const listedSample = (summary: ThreadSummary): ListedThread => ({
  imported_thread_id: summary.imported_thread_id,
  cost_usd: summary.cost_usd,
  summary: Effect.succeed(summary)
})

/**
 * `list_threads` (docs/controller.md): a search (and `since`/`until`, on the local day a thread started) covers every
 * thread of the source, then the matches are paginated.
 */
export const listThreads = Effect.fn("threads.listThreads")(function*(payload: unknown) {
  const args = yield* decodeListThreadsArguments(payload)
  const history = yield* ClaudeHistory
  const samples = yield* Samples
  const historyDirectory = path.join((yield* Settings).claudeConfigDir, "projects")
  // Only the summaries of the page (and, for a search, those searched) are read from the index.
  const imported = yield* history.listing()
  const source = args.source ?? (imported.threads.length > 0 ? "imported" : "sample")
  // A listing of imported threads tells only how many samples there are: their transcripts are not read.
  const collection = source === "sample" ? (yield* samples.list()).map(listedSample) : imported.threads
  const sampleTotal = source === "sample" ? collection.length : yield* samples.count()
  const searching = args.query !== undefined && args.query.trim() !== ""
  const dated = args.range.since !== undefined || args.range.until !== undefined
  const matching = searching || dated
    ? yield* Effect.filter(collection, (thread) =>
      Effect.map(thread.summary, (summary) =>
        (!searching || matchesQuery(summary, args.query!)) && inDateRange(summary.started_at, args.range)))
    : collection
  const selected = args.sort === "cost" ? byCost(matching) : matching
  const threads = yield* Effect.forEach(selected.slice(args.offset, args.offset + args.limit), (thread) => thread.summary)
  return {
    threads,
    source,
    sort: args.sort,
    sample_total: sampleTotal,
    imported_total: imported.threads.length,
    offset: args.offset,
    total: selected.length,
    has_more: args.offset + threads.length < selected.length,
    diagnostics: imported.diagnostics.slice(0, 20),
    history_directory: historyDirectory,
    empty_history: imported.threads.length === 0 ? `No Claude Code threads in ${historyDirectory}.` : null
  } satisfies ListThreadsResult
})

/** "Reading 812 of 3,200 sessions…": what the page and the CLI show while a cold listing parses. */
export const readingMessage = (done: number, total: number) =>
  `Reading ${formatInteger(done)} of ${formatInteger(total)} sessions…`

export const listThreadsText = (result: ListThreadsResult) =>
  result.source === "sample"
    ? `Loaded ${result.threads.length} sample thread(s).`
    : `Loaded ${result.threads.length} imported Claude thread(s).`
