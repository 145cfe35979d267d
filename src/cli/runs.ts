import { Console, Effect, Layer } from "effect"
import { invalidArgument } from "../domain/errors.js"
import { POSSIBLE_LEAK } from "../domain/report/integrity.js"
import { CoreLive } from "../layers.js"
import { MAX_RUNS_PAGE, type RUN_STATUSES, type RUN_WINNERS } from "../domain/runState.js"
import { listRuns, type RunSummary } from "../programs/runs/history.js"
import { visible } from "../domain/report/visible.js"
import { Settings } from "../services/Settings.js"
import { makeOutput, orDash, pageLine } from "./terminal.js"

export interface RunsOptions {
  readonly query: string | undefined
  readonly status: (typeof RUN_STATUSES)[number] | undefined
  readonly winner: (typeof RUN_WINNERS)[number] | undefined
  readonly limit: number
  readonly offset: number
  readonly json: boolean
}

/** The run root is read in this process: listing runs needs no controller. */
const RunsLive = CoreLive.pipe(Layer.provideMerge(Settings.fromEnv))

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
  })

const WINNER_WORDS: Record<string, string> = { codex: "Codex wins", claude: "Claude wins", tie: "tie", inconclusive: "inconclusive" }

/** One line per run: when, id, thread, model, status and the verdict; under it, indented, the checks' sentence when the run has checks. */
export const runLine = (run: RunSummary) => {
  const verdict = run.winner === null ? "" : `  ${WINNER_WORDS[run.winner] ?? run.winner}`
  // An inconclusive run won, tied and lost nothing: its ties would read as a verdict.
  const tally = run.dimensions === null || run.winner === "inconclusive" ? "" : ` (${run.dimensions.won} won, ${run.dimensions.tied} tied, ${run.dimensions.lost} lost)`
  const leak = run.possible_leak === true ? `  [${POSSIBLE_LEAK}]` : ""
  const split = run.judges_split === true ? "  [judges split]" : ""
  const where = run.supervision.read_only ? `  [running in controller ${run.supervision.controller_session_id}]` : ""
  const checks = typeof run.checks === "string" ? `\n    ${visible(run.checks)}` : ""
  return `${run.started_at.slice(0, 16).replace("T", " ")}  ${run.run_id}  ${orDash(run.thread_id)}  ${orDash(run.model)}  ${run.status}${verdict}${tally}${leak}${split}${where}${checks}`
}

/** `codex-replay runs`: every replay run in the run root, newest first, whichever controller ran it. */
export const runsCommand = (options: RunsOptions) =>
  Effect.gen(function*() {
    yield* validate(options)
    const out = makeOutput(options.json)
    const result = yield* listRuns({
      limit: options.limit,
      offset: options.offset,
      ...(options.query === undefined ? {} : { query: options.query }),
      ...(options.status === undefined ? {} : { status: options.status }),
      ...(options.winner === undefined ? {} : { winner: options.winner })
    })
    // A run left out because its state is damaged is named on stderr, whatever the format.
    for (const line of result.diagnostics) yield* Console.error(`Skipped: ${line}`)
    if (options.json) return yield* out.result(result)
    if (result.runs.length === 0) {
      return yield* out.say(result.total === 0 ? `No replay runs in ${result.run_root}.` : "No runs on this page.")
    }
    for (const run of result.runs) yield* out.say(runLine(run))
    const page = { offset: result.offset, shown: result.runs.length, total: result.total, hasMore: result.has_more }
    yield* out.say(pageLine(page, `run(s) in ${result.run_root}`))
  }).pipe(Effect.provide(RunsLive))
