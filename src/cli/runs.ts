import { Effect, Either, Layer } from "effect"
import { invalidArgument } from "../domain/errors.js"
import { caveatLabels, caveatsBesideVerdict, tallyCounts, verdictWords } from "../domain/report/caveats.js"
import { POSSIBLE_LEAK } from "../domain/report/integrity.js"
import { CoreLive } from "../layers.js"
import { MAX_RUNS_PAGE, type RUN_STATUSES, type RUN_WINNERS } from "../domain/runState.js"
import { listRuns, type RunSummary } from "../programs/runs/history.js"
import { visible } from "../domain/report/visible.js"
import { type DateRange, dateRangeOf, localMinute } from "../domain/dateRange.js"
import { ControllerClient } from "../services/ControllerClient.js"
import { Settings } from "../services/Settings.js"
import { runningControllerUrl, runsPageAddress } from "./addresses.js"
import { HistoryLive } from "./historyLayer.js"
import { renderTable, REPLAY_COLUMNS, spendCells, type SpendCells, spendTotals, type TableSpec } from "./table.js"
import { CommandLineIo, writeTo } from "./io.js"
import { daysWords, makeOutput, orDash, pageLine } from "./terminal.js"

export interface RunsOptions {
  readonly query: string | undefined
  readonly status: (typeof RUN_STATUSES)[number] | undefined
  readonly winner: (typeof RUN_WINNERS)[number] | undefined
  readonly limit: number
  readonly offset: number
  /** `--since` / `--until`: the local days the runs started in (YYYY-MM-DD or YYYYMMDD). */
  readonly since?: string | undefined
  readonly until?: string | undefined
  readonly json: boolean
}

/** The run root (and the history, for the threads' titles) is read in this process: listing runs needs no controller. */
const RunsBase = Layer.merge(CoreLive, HistoryLive).pipe(Layer.provideMerge(Settings.fromEnv))
const RunsLive = Layer.merge(RunsBase, ControllerClient.Default.pipe(Layer.provide(RunsBase)))

const validate = (options: RunsOptions) =>
  Effect.gen(function*() {
    if (!(Number.isInteger(options.limit) && options.limit >= 1 && options.limit <= MAX_RUNS_PAGE)) {
      return yield* invalidArgument(`--limit must be a whole number from 1 through ${MAX_RUNS_PAGE}.`)
    }
    if (!(Number.isInteger(options.offset) && options.offset >= 0 && options.offset <= 1_000_000)) {
      return yield* invalidArgument("--offset must be a whole number from 0 through 1000000.")
    }
    if (options.query !== undefined && options.query.length > 1000) {
      return yield* invalidArgument("--query must be at most 1000 characters.")
    }
    return yield* Either.mapLeft(dateRangeOf(options), invalidArgument)
  })

/**
 * A run's verdict as the table shows it: the verdict with its caveats' labels (`caveatsOf`: a tie by
 * disagreement reads "inconclusive (the two orders disagreed)", never a tally), who runs it when another
 * controller does, and under it the checks' sentence when the run has checks.
 */
export const verdictCell = (run: RunSummary) => {
  const caveats = run.caveats ?? []
  const verdict = run.winner === null ? "" : verdictWords(run.winner, caveats)
  const tally = run.dimensions === null || !tallyCounts(run.winner, caveats) ? "" : ` (${run.dimensions.won} won, ${run.dimensions.tied} tied, ${run.dimensions.lost} lost)`
  const leak = run.possible_leak === true ? `  [${POSSIBLE_LEAK}]` : ""
  // A possible leak is said above, with its words.
  const labels = caveatLabels(caveatsBesideVerdict(caveats).filter((caveat) => caveat.kind !== "possible_leak"))
  const where = run.supervision.read_only ? `  [running in controller ${run.supervision.controller_session_id}]` : ""
  const checks = typeof run.checks === "string" ? `\n${visible(run.checks)}` : ""
  return `${verdict}${tally}${leak}${labels === "" ? "" : `  [${labels}]`}${where}`.trim() + checks
}

/** The thread a run replayed, by its title when the history has it, else by its id. */
const threadCell = (run: RunSummary) => run.thread_title ?? run.thread_id ?? "-"

/** A run's tokens (of all its calls) and its cost, the implementation apart from the evaluation. */
const spendOf = (run: RunSummary): SpendCells => ({
  input: run.tokens?.input,
  output: run.tokens?.output,
  codex: run.spend?.implementation.usd,
  evaluation: run.spend?.evaluation.usd
})

/**
 * The runs as a table: when, run id, thread title, model, status, verdict, the tokens of the run's calls and
 * its cost split into the Codex implementation and the evaluation (what it cost to know); a totals row.
 */
export const runsTable = (runs: ReadonlyArray<RunSummary>, whole: boolean): TableSpec => ({
  // The run id says when it started too, so a narrow terminal loses Started last, and never the id.
  columns: [{ header: "Started", dropOrder: 0 }, ...REPLAY_COLUMNS],
  rows: runs.map((run) => [
    localMinute(run.started_at),
    run.run_id,
    threadCell(run),
    orDash(run.model),
    run.status,
    verdictCell(run),
    ...spendCells(spendOf(run))
  ]),
  totals: [
    whole ? "Total" : "Page",
    "",
    "",
    "",
    "",
    "",
    ...spendTotals(runs.map(spendOf))
  ]
})

/** What an empty page says: the days asked for, when given, and whether a search narrowed them. */
const noRunsSentence = (options: RunsOptions, range: DateRange, result: { readonly total: number; readonly run_root: string }) => {
  if (result.total > 0) return "No runs on this page."
  const days = daysWords(range)
  if (days === undefined) return `No replay runs in ${result.run_root}.`
  const searched = options.query !== undefined || options.status !== undefined || options.winner !== undefined
  return searched ? `No run started ${days} matches the search in ${result.run_root}.` : `No runs started ${days} in ${result.run_root}.`
}

/** `codex-replay runs`: every replay run in the run root, newest first, whichever controller ran it. */
export const runsCommand = (options: RunsOptions) =>
  Effect.gen(function*() {
    const range = yield* validate(options)
    const out = yield* makeOutput(options.json)
    const result = yield* listRuns({
      limit: options.limit,
      offset: options.offset,
      ...(range.since === undefined ? {} : { since: range.since }),
      ...(range.until === undefined ? {} : { until: range.until }),
      ...(options.query === undefined ? {} : { query: options.query }),
      ...(options.status === undefined ? {} : { status: options.status }),
      ...(options.winner === undefined ? {} : { winner: options.winner })
    })
    // A run left out because its state is damaged is named on stderr, whatever the format.
    const { stderr } = yield* CommandLineIo
    for (const line of result.diagnostics) yield* writeTo(stderr, `Skipped: ${line}\n`)
    // The same list in the page, when a controller of this run root runs (none is started for it).
    const settings = yield* Settings
    const controller = yield* runningControllerUrl(settings.controllersRoot, settings.runRoot)
    const address = controller === null ? null : runsPageAddress(controller, options)
    if (options.json) return yield* out.result({ ...result, address })
    if (result.runs.length === 0) return yield* out.say(noRunsSentence(options, range, result))
    const whole = result.offset === 0 && !result.has_more
    yield* out.say(renderTable(runsTable(result.runs, whole), out.look))
    const page = { offset: result.offset, shown: result.runs.length, total: result.total, hasMore: result.has_more }
    yield* out.say(pageLine(page, `run(s) in ${result.run_root}`))
    if (address !== null) yield* out.say(`Address: ${address}`)
  }).pipe(Effect.provide(RunsLive))
