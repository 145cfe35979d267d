import { Clock, DateTime, Effect, Either, Option } from "effect"
import * as path from "node:path"
import { conflict, invalidArgument, isControllerError, notFound, unreadableFile } from "../../domain/errors.js"
import { isRunId } from "../../domain/ids.js"
import { timestampedId } from "../../domain/ids.js"
import { renderPortfolioHtml } from "../../domain/portfolio/html.js"
import { portfolioGrid } from "../../domain/portfolio/grid.js"
import { GRID_CSV_FILE, gridCsv } from "../../domain/portfolio/gridCsv.js"
import type { Grid } from "../../domain/contracts/grid.js"
import { controllerOriginHere, reportHtmlOf, threadTitles } from "./pageInputs.js"
import { buildPortfolio, MAX_PORTFOLIO_RUNS, type Portfolio, portfolioRun, type PortfolioRun } from "../../domain/portfolio/portfolio.js"
import { excerpt } from "../../domain/toolResult.js"
import type { PortfolioResult } from "../../domain/contracts/index.js"
import { FileStore } from "../../services/FileStore.js"
import { RunStore } from "../../services/RunStore.js"
import { locateReport } from "../reports/reports.js"
import { readVote } from "../votes/votes.js"

export const PORTFOLIOS_DIRECTORY = "portfolios"
export const PORTFOLIO_JSON_FILE = "portfolio.json"
export const PORTFOLIO_HTML_FILE = "portfolio.html"

export const newPortfolioId = timestampedId("portfolio")

/** The selection itself: 1 to 100 distinct, well-formed run ids. */
const checkSelection = (runIds: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    if (runIds.length === 0) return yield* invalidArgument("Choose at least one completed run (run_ids).")
    if (runIds.length > MAX_PORTFOLIO_RUNS) {
      return yield* invalidArgument(`A portfolio counts at most ${MAX_PORTFOLIO_RUNS} runs; ${runIds.length} were chosen.`)
    }
    const invalid = runIds.find((runId) => !isRunId(runId))
    if (invalid !== undefined) return yield* invalidArgument(`The run ID ${excerpt(invalid)} is invalid.`)
    const repeated = runIds.find((runId, index) => runIds.indexOf(runId) !== index)
    if (repeated !== undefined) return yield* invalidArgument(`Run ${repeated} is chosen twice; choose each run once.`)
  })

const readReport = (directory: string, runId: string) =>
  Effect.gen(function*() {
    const files = yield* FileStore
    const unreadable = unreadableFile(`The report of run ${runId} cannot be read.`)
    const found = yield* locateReport(directory, "json").pipe(Effect.mapError(() => unreadable))
    // Reports have no size limit (patches can be large); the portfolio reads a few fields of them.
    const text = yield* files.readBounded(found.path, Number.MAX_SAFE_INTEGER).pipe(Effect.mapError(() => unreadable))
    return yield* Effect.try({ try: () => JSON.parse(text) as unknown, catch: () => unreadable })
  })

/** One chosen run, counted: it must be in the run root and completed, with a readable report. */
const countedRun = (runId: string) =>
  Effect.gen(function*() {
    const runs = yield* RunStore
    const { directory, state } = yield* runs.readAny(runId).pipe(
      Effect.catchIf(isControllerError, () => Effect.fail(notFound(`No run ${runId} in ${runs.runRoot}.`)))
    )
    if (state.status !== "completed") {
      return yield* conflict(`Run ${runId} is ${state.status}, not completed: only a completed run has a verdict to count.`)
    }
    // A damaged vote.json counts as no vote.
    const vote = yield* Effect.orElseSucceed(readVote(directory), () => Option.none())
    const reportHtml = yield* reportHtmlOf(directory)
    const counted = portfolioRun(
      runId,
      yield* readReport(directory, runId),
      typeof state.model === "string" ? state.model : null,
      Option.match(vote, { onNone: () => null, onSome: (stored) => stored.overall })
    )
    if (Either.isLeft(counted)) return yield* unreadableFile(counted.left)
    return { run: state.repeat === undefined ? counted.right : { ...counted.right, repeat: state.repeat }, reportHtml }
  })

export interface WrittenPortfolio {
  readonly portfolio: Portfolio
  readonly directory: string
  readonly portfolio_json: string
  readonly portfolio_html: string
  /** The grid as CSV (`portfolio.csv`, beside portfolio.html). */
  readonly portfolio_csv: string
  readonly html: string
  /** The thread × model grid portfolio.html shows. */
  readonly grid: Grid
  readonly csv: string
}

/** Writes `portfolios/<id>/portfolio.json` and `portfolio.html` under the run root (0700 directories, 0600 files, atomic). */
const writePortfolio = (counted: ReadonlyArray<{ readonly run: PortfolioRun; readonly reportHtml: string | null }>) =>
  Effect.gen(function*() {
    const runs = counted.map((each) => each.run)
    const store = yield* RunStore
    const files = yield* FileStore
    const now = yield* Clock.currentTimeMillis
    const portfolioId = yield* newPortfolioId
    const portfolio = buildPortfolio({ portfolio_id: portfolioId, generated_at: DateTime.formatIso(DateTime.unsafeMake(now)), runs })
    const directory = path.join(store.runRoot, PORTFOLIOS_DIRECTORY, portfolioId)
    const titles = yield* threadTitles(runs.flatMap((run) => (run.thread_id === null ? [] : [run.thread_id])))
    const origin = yield* controllerOriginHere
    const html = renderPortfolioHtml(portfolio, {
      titles,
      reports: new Map(counted.map((each) => [each.run.run_id, each.reportHtml])),
      controllerOrigin: origin
    })
    const grid = portfolioGrid(portfolio, titles)
    const csv = gridCsv(grid, origin)
    const portfolioJson = path.join(directory, PORTFOLIO_JSON_FILE)
    const portfolioHtml = path.join(directory, PORTFOLIO_HTML_FILE)
    const portfolioCsv = path.join(directory, GRID_CSV_FILE)
    // A portfolio the disk took only half of (it was full) is no portfolio: nothing of it stays.
    yield* Effect.gen(function*() {
      yield* files.ensurePrivateDirectoryInside(store.runRoot, directory)
      yield* files.writeJson(portfolioJson, portfolio)
      yield* files.writeTextAtomic(portfolioHtml, html)
      yield* files.writeTextAtomic(portfolioCsv, csv)
    }).pipe(Effect.tapError(() => Effect.ignore(files.remove(directory))))
    return { portfolio, directory, portfolio_json: portfolioJson, portfolio_html: portfolioHtml, portfolio_csv: portfolioCsv, html, grid, csv } satisfies WrittenPortfolio
  })

/**
 * The portfolio verdict of chosen completed runs. Every run is checked before anything is written,
 * so a selection with one bad run writes nothing.
 */
export const makePortfolio = Effect.fn("portfolio.makePortfolio")(function*(runIds: ReadonlyArray<string>) {
  yield* checkSelection(runIds)
  const runs = yield* Effect.forEach(runIds, countedRun)
  return yield* writePortfolio(runs)
})

/** The most recent `count` completed runs of the run root, newest first. */
export const recentCompletedRunIds = (count: number) =>
  Effect.map(Effect.flatMap(RunStore, (runs) => runs.listAll()), (states) =>
    states.filter((state) => state.status === "completed").slice(0, count).map((state) => state.run_id))

/** One sentence per model: wins, ties and losses, and the sign test. */
export const portfolioText = (portfolio: PortfolioResult["portfolio"]) =>
  [
    `Portfolio of ${portfolio.run_ids.length} run(s).`,
    ...portfolio.models.map((model) => {
      const { overall } = model
      const p = overall.sign_test_p === null ? "no decisive verdict" : `sign test p = ${overall.sign_test_p.toFixed(3)}`
      return `${model.model}: ${overall.wins.count} win(s), ${overall.ties.count} tie(s), ${overall.losses.count} loss(es) against Claude; ${p}.`
    })
  ].join(" ")
