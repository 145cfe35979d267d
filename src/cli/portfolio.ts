import { Effect, Layer } from "effect"
import { invalidArgument, notFound } from "../domain/errors.js"
import { agreementText } from "../domain/portfolio/agreement.js"
import { repeatAgreementText } from "../domain/portfolio/repeats.js"
import { checksFigureLines } from "../domain/portfolio/checksFigures.js"
import { evaluationTotalsText, oncePerThreadText, percent, portfolioHeadline, projectionSentence, pValue, selfReviewsText, totalsText } from "../domain/portfolio/html.js"
import { caveatLabels, caveatsBesideVerdict, verdictWords } from "../domain/report/caveats.js"
import { MAX_PORTFOLIO_RUNS, type ModelPortfolio, type Portfolio } from "../domain/portfolio/portfolio.js"
import { formatElapsed, formatUsd } from "../domain/report/format.js"
import { CoreLive } from "../layers.js"
import { makePortfolio, recentCompletedRunIds } from "../programs/portfolio/portfolio.js"
import { ClaudeHistory } from "../services/history/ClaudeHistory.js"
import { ControllerClient } from "../services/ControllerClient.js"
import { RunStore } from "../services/RunStore.js"
import { Samples } from "../services/Samples.js"
import { Settings } from "../services/Settings.js"
import { pageAddress, runningControllerUrl } from "./addresses.js"
import { makeOutput } from "./terminal.js"
import { resolveRunId } from "./threadRefs.js"

export interface PortfolioOptions {
  readonly runIds: ReadonlyArray<string>
  readonly recent: number | undefined
  readonly json: boolean
  /** Print the grid's CSV instead of the figures. */
  readonly csv?: boolean | undefined
}

/** The run root is read and written in this process: a portfolio needs no controller (the history gives the grid its titles). */
const PortfolioLive = Layer.mergeAll(CoreLive, ClaudeHistory.Default, Samples.Default).pipe(Layer.provideMerge(Settings.fromEnv))

/** The chosen runs: the ids given, or the `--recent N` most recent completed runs. */
const chosenRuns = (options: PortfolioOptions) =>
  Effect.gen(function*() {
    if (options.recent === undefined) {
      if (options.runIds.length === 0) return yield* invalidArgument("Choose the runs: give their run ids or --recent N.")
      // Each run by its id or a unique start of it.
      return yield* Effect.forEach(options.runIds, resolveRunId)
    }
    if (options.runIds.length > 0) return yield* invalidArgument("Give run ids or --recent N, not both.")
    if (!(Number.isInteger(options.recent) && options.recent >= 1 && options.recent <= MAX_PORTFOLIO_RUNS)) {
      return yield* invalidArgument(`--recent must be a whole number from 1 through ${MAX_PORTFOLIO_RUNS}.`)
    }
    const recent = yield* recentCompletedRunIds(options.recent)
    if (recent.length === 0) return yield* notFound(`No completed run in ${(yield* RunStore).runRoot}.`)
    return recent
  })

/** Each run with caveats: its verdict in the words of every view and its other caveats' labels (`caveatsOf`). */
const caveatLines = (model: ModelPortfolio) =>
  model.runs.flatMap((run) => {
    const caveats = run.caveats ?? []
    if (caveats.length === 0) return []
    const labels = caveatLabels(caveatsBesideVerdict(caveats))
    return [`  Caveats:        ${run.run_id}: ${verdictWords(run.winner, caveats)}${labels === "" ? "" : ` [${labels}]`}`]
  })

/** A model's section in a few lines, the figures of portfolio.html. */
export const modelLines = (model: ModelPortfolio) => {
  const { overall } = model
  const runs = model.runs.length
  const interval = overall.win_rate_interval === null
    ? ""
    : ` (95% Wilson interval ${percent(overall.win_rate_interval.lower)}–${percent(overall.win_rate_interval.upper)})`
  return [
    `${model.model}: ${portfolioHeadline(model)}`,
    `  Win rate:       ${percent(overall.win_rate)}${interval}, sign test p = ${pValue(overall.sign_test_p)}`,
    `  For 5%:         ${projectionSentence(model)}`,
    `  Flips:          ${model.flipped_dimensions.count} dimension(s) order-dependent, in ${model.flipped_dimensions.runs.count} run(s)`,
    `  Not like-for-like: ${model.not_like_for_like.count} verdict(s) of ${runs}`,
    `  Self-reviews:   ${selfReviewsText(model)}${(model.self_reviews?.count ?? 0) === 0 ? "" : `: ${model.self_reviews!.run_ids.join(", ")}`}`,
    ...(model.second_judge === undefined ? [] : [`  Judges split:   ${model.second_judge.split.count} of ${model.second_judge.judged.count} run(s) a second judge (Claude) also judged${model.second_judge.split.count === 0 ? "" : `: ${model.second_judge.split.run_ids.join(", ")}`}`]),
    `  Possible leaks: ${model.possible_leaks.count}${model.possible_leaks.count === 0 ? "" : ` (matches Claude's result; not counted): ${model.possible_leaks.run_ids.join(", ")}`}`,
    `  Time:           Codex ${totalsText(model.time_ms.codex, formatElapsed, runs)} · Claude ${totalsText(model.time_ms.claude, formatElapsed, runs)}`,
    `  Cost:           Codex ${totalsText(model.cost_usd.codex, formatUsd, runs)} · Claude ${oncePerThreadText(model.cost_usd.claude)}`,
    `  Evaluation:     ${evaluationTotalsText(model.cost_usd.evaluation, runs)} (what it cost to know)`,
    ...(model.checks === undefined ? [] : checksFigureLines(model.checks, runs).map((line) => `  ${line}`)),
    ...(model.user_agreement === undefined ? [] : [`  You and judge:  ${agreementText(model.user_agreement)}`]),
    ...(model.repeat_agreement === undefined ? [] : [`  Repeats:        ${repeatAgreementText(model.repeat_agreement)}`]),
    ...caveatLines(model)
  ]
}

/** Every run together: Codex's implementations, Claude once per thread across every model, the evaluation apart. */
export const costLines = (portfolio: Portfolio) => {
  const cost = portfolio.cost_usd
  if (cost === undefined) return []
  const runs = portfolio.run_ids.length
  return [
    `All runs: Codex implementations ${totalsText(cost.codex, formatUsd, runs)} · Claude ${oncePerThreadText(cost.claude)} · evaluation ${
      evaluationTotalsText(cost.evaluation, runs)
    } (what it cost to know)`
  ]
}

/** `codex-replay portfolio RUN_ID… | --recent N`: the portfolio verdict, written under the run root. */
export const portfolioCommand = (options: PortfolioOptions) =>
  Effect.gen(function*() {
    const out = yield* makeOutput(options.json)
    if (options.csv === true && options.json) return yield* invalidArgument("Give --csv or --json, not both.")
    const written = yield* makePortfolio(yield* chosenRuns(options))
    if (options.csv === true) return yield* out.raw(written.csv)
    // Its address in a running controller of the run root (none is started for it).
    const settings = yield* Settings
    const controller = yield* runningControllerUrl(settings.controllersRoot, settings.runRoot)
    const address = controller === null ? null : pageAddress(controller, `/portfolios/${written.portfolio.portfolio_id}`)
    if (options.json) {
      return yield* out.result({
        portfolio_id: written.portfolio.portfolio_id,
        portfolio_json: written.portfolio_json,
        portfolio_html: written.portfolio_html,
        portfolio_csv: written.portfolio_csv,
        address,
        portfolio: written.portfolio,
        grid: written.grid
      })
    }
    yield* out.say(`Portfolio of ${written.portfolio.run_ids.length} run(s):`)
    for (const model of written.portfolio.models) for (const line of modelLines(model)) yield* out.say(line)
    for (const line of costLines(written.portfolio)) yield* out.say(line)
    yield* out.say(`Report:  ${written.portfolio_html}`)
    yield* out.say(`         ${written.portfolio_json}`)
    yield* out.say(`Grid:    ${written.portfolio_csv}`)
    if (address !== null) yield* out.say(`Address: ${address}`)
  }).pipe(Effect.provide(Layer.merge(PortfolioLive, ControllerClient.Default.pipe(Layer.provide(PortfolioLive)))))
