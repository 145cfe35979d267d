/**
 * The thread × model grid of a batch or a portfolio (docs/verdicts.md, "The grid"): a pure view model the
 * page, `portfolio.html` and the CSV export render alike. One row per thread, one cell per model, each
 * run of the cell its verdict in words and as a tone, its caveats, its check outcome and its address.
 */
import type { Grid, GridRow, GridRun, GridStatistics, GridTone } from "../contracts/grid.js"
import { type Caveat, capitalised, caveatsBesideVerdict, verdictWords, WINNER_WORDS } from "../report/caveats.js"
import type { ModelPortfolio, Portfolio, PortfolioRun } from "./portfolioFile.js"
import { percent, pValue } from "./format.js"
import { SIGNIFICANCE_LEVEL, signTestPValue, wilsonInterval } from "./statistics.js"

export type GridStatus = GridRun["status"]

/** What the grid needs of one run (or of a batch item that has no run yet). */
export interface GridEntry {
  readonly thread_id: string | null
  readonly model: string
  readonly run_id: string | null
  readonly status: GridStatus
  readonly winner: string | null
  readonly caveats: ReadonlyArray<Caveat>
  /** The check outcome in words; null without checks. */
  readonly checks: string | null
  /** The user has neither voted on nor revealed the run: its verdict stays hidden. */
  readonly blind?: boolean | undefined
}

/** A run's address in the controller (its Results, or its Run view while it runs). */
export const runAddress = (runId: string) => `/runs/${encodeURIComponent(runId)}`

const STATUS_WORDS: Record<Exclude<GridStatus, "completed">, string> = {
  pending: "Not started",
  running: "Running",
  failed: "Failed",
  cancelled: "Cancelled"
}

const has = (caveats: ReadonlyArray<Caveat>, kind: Caveat["kind"]) => caveats.some((entry) => entry.kind === kind)

const toneOf = (words: string): GridTone =>
  words === WINNER_WORDS.codex ? "win" : words === WINNER_WORDS.claude ? "loss" : words === WINNER_WORDS.tie ? "tie" : "none"

/** One run as a cell shows it. */
export const gridRun = (entry: GridEntry): GridRun => {
  const address = entry.run_id === null ? null : runAddress(entry.run_id)
  const base = { run_id: entry.run_id, address, status: entry.status, checks: null, caveats: [], loss: false, split: false, not_like_for_like: false }
  if (entry.status !== "completed") return { ...base, tone: entry.status, text: STATUS_WORDS[entry.status] }
  if (entry.blind === true) return { ...base, tone: "hidden", text: "Hidden until you vote or reveal" }
  const words = verdictWords(entry.winner, entry.caveats)
  return {
    ...base,
    tone: toneOf(words),
    text: capitalised(words),
    caveats: caveatsBesideVerdict(entry.caveats),
    checks: entry.checks,
    loss: words === WINNER_WORDS.claude,
    split: has(entry.caveats, "split"),
    not_like_for_like: has(entry.caveats, "not_like_for_like")
  }
}


/** The figures in a sentence: "gpt-5.5: Codex won 3, tied 1, lost 2 (1 not counted); win rate 60% (95% interval 23%–88%); sign test p = 1.000." */
const statisticsSentence = (figures: Omit<GridStatistics, "sentence">, soFar: boolean) => {
  const extra = [
    ...(figures.not_counted > 0 ? [`${figures.not_counted} without a verdict`] : []),
    ...(figures.unfinished > 0 ? [`${figures.unfinished} not completed`] : [])
  ]
  const rate = figures.win_rate === null || figures.win_rate_interval === null
    ? "no decisive verdict"
    : `win rate ${percent(figures.win_rate)} (95% interval ${percent(figures.win_rate_interval.lower)}–${percent(figures.win_rate_interval.upper)})`
  const p = figures.sign_test_p === null ? "" : `; sign test p = ${pValue(figures.sign_test_p)}${figures.significant ? " (significant)" : ""}`
  return `${figures.model}${soFar ? " so far" : ""}: Codex won ${figures.wins}, tied ${figures.ties}, lost ${figures.losses}${
    extra.length === 0 ? "" : ` (${extra.join(", ")})`
  }; ${rate}${p}.`
}

const withSentence = (figures: Omit<GridStatistics, "sentence">, soFar: boolean): GridStatistics => ({ ...figures, sentence: statisticsSentence(figures, soFar) })

/** A model's statistics as its portfolio counted them (possible leaks apart, runs without a verdict not counted). */
const portfolioStatistics = (model: ModelPortfolio, unfinished: number): GridStatistics =>
  withSentence({
    model: model.model,
    wins: model.overall.wins.count,
    ties: model.overall.ties.count,
    losses: model.overall.losses.count,
    not_counted: model.overall.not_counted.count,
    unfinished,
    win_rate: model.overall.win_rate,
    win_rate_interval: model.overall.win_rate_interval,
    sign_test_p: model.overall.sign_test_p,
    significant: model.overall.significant
  }, false)

/** A model's statistics from its cells, by the portfolio's rules, before a portfolio exists (a running batch). */
const entryStatistics = (model: string, runs: ReadonlyArray<GridRun>, entries: ReadonlyArray<GridEntry>): GridStatistics => {
  const leaks = new Set(entries.filter((entry) => has(entry.caveats, "possible_leak")).map((entry) => entry.run_id))
  const completed = runs.filter((run) => run.status === "completed" && run.tone !== "hidden" && !leaks.has(run.run_id))
  const count = (tone: GridTone) => completed.filter((run) => run.tone === tone).length
  const wins = count("win")
  const losses = count("loss")
  const p = signTestPValue(wins, losses)
  return withSentence({
    model,
    wins,
    ties: count("tie"),
    losses,
    not_counted: count("none"),
    unfinished: runs.filter((run) => run.status !== "completed").length,
    win_rate: wins + losses === 0 ? null : wins / (wins + losses),
    win_rate_interval: wilsonInterval(wins, wins + losses),
    sign_test_p: p,
    significant: p !== null && p < SIGNIFICANCE_LEVEL
  }, true)
}

export interface GridInput {
  readonly entries: ReadonlyArray<GridEntry>
  /** Thread titles by thread id; a thread without one shows its id. */
  readonly titles: ReadonlyMap<string, string>
  /** The portfolio of the same runs, once there is one: its statistics go above the grid. */
  readonly portfolio?: Portfolio | null | undefined
  /** The model order (a batch's); else the order models first appear. */
  readonly models?: ReadonlyArray<string> | undefined
}

/** The grid: threads in the order they first appear, models in the given order. */
export const buildGrid = (input: GridInput): Grid => {
  const models = [...new Set([...(input.models ?? []), ...input.entries.map((entry) => entry.model)])]
  const threads = new Map<string, Array<GridEntry>>()
  input.entries.forEach((entry, index) => {
    // A run without a thread id has a row of its own.
    const key = entry.thread_id ?? `\u0000${index}`
    threads.set(key, [...(threads.get(key) ?? []), entry])
  })
  const rows = [...threads.values()].map((entries): GridRow => {
    const threadId = entries[0]!.thread_id
    const cells = models.map((model) => ({ model, runs: entries.filter((entry) => entry.model === model).map(gridRun) }))
    const runs = cells.flatMap((cell) => cell.runs)
    return {
      thread_id: threadId,
      title: threadId === null ? null : input.titles.get(threadId) ?? null,
      cells,
      loss: runs.some((run) => run.loss),
      split: runs.some((run) => run.split),
      not_like_for_like: runs.some((run) => run.not_like_for_like)
    }
  })
  const runsOf = (model: string) => rows.flatMap((row) => row.cells.filter((cell) => cell.model === model).flatMap((cell) => cell.runs))
  const statistics = models.map((model) => {
    const counted = input.portfolio?.models.find((each) => each.model === model)
    const runs = runsOf(model)
    return counted === undefined
      ? entryStatistics(model, runs, input.entries.filter((entry) => entry.model === model))
      : portfolioStatistics(counted, runs.filter((run) => run.status !== "completed").length)
  })
  return {
    models,
    rows,
    statistics,
    filters: { loss: rows.filter((row) => row.loss).length, split: rows.filter((row) => row.split).length, not_like_for_like: rows.filter((row) => row.not_like_for_like).length }
  }
}

const EDGE_WORDS: Record<string, string> = {
  codex: "checks: Codex better",
  claude: "checks: Claude better",
  same: "checks: the same",
  mixed: "checks: mixed"
}

/** A portfolio's run as a grid entry (completed, with its report's verdict, caveats and check outcome). */
export const portfolioEntry = (run: PortfolioRun): GridEntry => ({
  thread_id: run.thread_id,
  model: run.model,
  run_id: run.run_id,
  status: "completed",
  winner: run.winner,
  caveats: run.caveats ?? [],
  checks: run.checks === undefined || run.checks === null ? null : run.checks.edge === null ? "checks: not comparable" : EDGE_WORDS[run.checks.edge] ?? null
})

/** The grid of a portfolio: every counted run, threads in the order of the portfolio's runs. */
export const portfolioGrid = (portfolio: Portfolio, titles: ReadonlyMap<string, string>): Grid => {
  const byId = new Map(portfolio.models.flatMap((model) => model.runs).map((run) => [run.run_id, run]))
  const runs = portfolio.run_ids.flatMap((runId) => {
    const run = byId.get(runId)
    return run === undefined ? [] : [run]
  })
  return buildGrid({ entries: runs.map(portfolioEntry), titles, portfolio, models: portfolio.models.map((model) => model.model) })
}
