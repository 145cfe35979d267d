import { Either, ParseResult, Schema } from "effect"
import { caveatsOfReport, replacesWinner } from "../report/caveats.js"
import { Integrity, reportIntegrity } from "../report/integrity.js"
import { DIMENSIONS, type DimensionId } from "../review/dimensions.js"
import { userAgreement } from "./agreement.js"
import { checksFigures, RunChecks } from "./checksFigures.js"
import { combineRepeats, repeatAgreement } from "./repeats.js"
import type { Counted, ModelPortfolio, Portfolio, PortfolioRun, Tally, Totals } from "./portfolioFile.js"
import {
  median,
  moreThreadsForSignificance,
  SIGNIFICANCE_LEVEL,
  signTestPValue,
  wilsonInterval
} from "./statistics.js"

export const PORTFOLIO_SCHEMA_VERSION = 1
/** A portfolio counts 1 to this many runs. */
export const MAX_PORTFOLIO_RUNS = 100
/** A portfolio of 100 runs is a few hundred kilobytes; a file larger than this is not one. */
export const MAX_PORTFOLIO_FILE_BYTES = 64 * 1024 * 1024

export { type Counted, type ModelPortfolio, type Portfolio, PortfolioFile, type PortfolioRun, type Tally, type Totals } from "./portfolioFile.js"

const NullableNumber = Schema.NullOr(Schema.Number)
const Side = Schema.Struct({
  model: Schema.optional(Schema.NullOr(Schema.String)),
  patch: Schema.optional(Schema.String),
  elapsed_ms: Schema.optional(NullableNumber),
  cost: Schema.optional(Schema.Struct({ usd: Schema.optional(NullableNumber) }))
})
const DimensionOutcome = Schema.Struct({
  winner: Schema.String,
  comparable: Schema.optional(Schema.Boolean),
  order_dependent: Schema.optional(Schema.Boolean)
})

/** The parts of a run's `report.json` a portfolio reads (everything else in it is ignored). */
export const PortfolioReport = Schema.Struct({
  thread_id: Schema.optional(Schema.String),
  winner: Schema.Literal("codex", "claude", "tie", "inconclusive"),
  candidates: Schema.Struct({ codex: Side, claude: Side }),
  evaluation: Schema.NullOr(Schema.Struct({
    flips: Schema.optional(Schema.Number),
    /** Present when the run asked for a second judge. */
    second_judge: Schema.optional(Schema.Struct({ agreement: Schema.String })),
    dimensions: Schema.Record({ key: Schema.String, value: DimensionOutcome })
  })),
  comparability: Schema.optional(Schema.NullOr(Schema.Struct({ like_for_like: Schema.Boolean }))),
  /** Absent in reports written before the check: then measured from the two patches. */
  integrity: Schema.optional(Schema.NullOr(Integrity)),
  /** Absent in reports written before the checks ran: then the run is in no checks figure. */
  checks: Schema.optional(RunChecks),
  /** The run's ledger; absent in reports written before it was kept. */
  spend: Schema.optional(Schema.Struct({ evaluation: Schema.Struct({ usd: Schema.Number, unpriced_calls: Schema.Number }) }))
})
export type PortfolioReport = typeof PortfolioReport.Type

/** How one dimension of one run ended, from Codex's side; `not_counted`: not applicable, not compared or no verdict. */
export type DimensionOutcome = "win" | "tie" | "loss" | "not_counted"

const finite = (value: number | null | undefined) => (typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : null)

const dimensionOutcome = (outcome: typeof DimensionOutcome.Type | undefined): DimensionOutcome => {
  if (outcome === undefined || outcome.comparable === false) return "not_counted"
  return outcome.winner === "codex" ? "win" : outcome.winner === "claude" ? "loss" : outcome.winner === "tie" ? "tie" : "not_counted"
}

/**
 * A completed run's report as the portfolio counts it, or the sentence that says why it cannot be
 * counted. `fallbackModel` is the run state's model, for a report that names none.
 */
export const portfolioRun = (
  runId: string,
  report: unknown,
  fallbackModel: string | null,
  /** The user's blind vote on the overall winner, when there is one. */
  userVote: "codex" | "claude" | "tie" | null = null
): Either.Either<PortfolioRun, string> =>
  Either.flatMap(
    Either.mapLeft(Schema.decodeUnknownEither(PortfolioReport)(report), (error) =>
      `The report of run ${runId} cannot be read as a replay report (${ParseResult.TreeFormatter.formatErrorSync(error).split("\n")[0]}).`),
    (decoded) => {
      const model = decoded.candidates.codex.model ?? fallbackModel
      if (model === null || model === undefined || model === "") return Either.left(`The report of run ${runId} names no Codex model.`)
      const dimensions = Object.fromEntries(
        DIMENSIONS.map(({ id }) => [id, dimensionOutcome(decoded.evaluation?.dimensions[id])])
      ) as { [D in DimensionId]: DimensionOutcome }
      const caveats = caveatsOfReport(report)
      return Either.right({
        run_id: runId,
        thread_id: decoded.thread_id ?? null,
        model,
        winner: decoded.winner,
        dimensions,
        flipped_dimensions: decoded.evaluation?.flips ??
          Object.values(decoded.evaluation?.dimensions ?? {}).filter((outcome) => outcome.order_dependent === true).length,
        like_for_like: decoded.comparability?.like_for_like ?? null,
        possible_leak: reportIntegrity(decoded)?.matches_claude === true,
        ...(decoded.evaluation?.second_judge === undefined ? {} : { second_judge: { split: decoded.evaluation.second_judge.agreement === "split" } }),
        codex: { elapsed_ms: finite(decoded.candidates.codex.elapsed_ms), cost_usd: finite(decoded.candidates.codex.cost?.usd) },
        claude: { elapsed_ms: finite(decoded.candidates.claude.elapsed_ms), cost_usd: finite(decoded.candidates.claude.cost?.usd) },
        checks: decoded.checks === undefined || decoded.checks === null
          ? null
          : { edge: decoded.checks.edge, codex_keeps_claude_passes: decoded.checks.codex_keeps_claude_passes },
        ...(userVote === null ? {} : { user_vote: userVote }),
        ...(decoded.spend === undefined
          ? {}
          : { evaluation_usd: decoded.spend.evaluation.unpriced_calls > 0 ? null : finite(decoded.spend.evaluation.usd) }),
        caveats,
        self_review: caveats.some((caveat) => caveat.kind === "self_review")
      })
    }
  )

const counted = (runs: ReadonlyArray<PortfolioRun>): Counted => ({ count: runs.length, run_ids: runs.map((run) => run.run_id) })

const tally = (runs: ReadonlyArray<PortfolioRun>, outcomeOf: (run: PortfolioRun) => DimensionOutcome): Tally => {
  const having = (outcome: DimensionOutcome) => counted(runs.filter((run) => outcomeOf(run) === outcome))
  const wins = having("win")
  const losses = having("loss")
  const decisive = wins.count + losses.count
  const p = signTestPValue(wins.count, losses.count)
  return {
    wins,
    ties: having("tie"),
    losses,
    not_counted: having("not_counted"),
    win_rate: decisive === 0 ? null : wins.count / decisive,
    win_rate_interval: wilsonInterval(wins.count, decisive),
    sign_test_p: p,
    significant: p !== null && p < SIGNIFICANCE_LEVEL
  }
}

const OVERALL_OUTCOMES: Record<PortfolioReport["winner"], DimensionOutcome> = {
  codex: "win",
  claude: "loss",
  tie: "tie",
  inconclusive: "not_counted"
}

/** A run whose caveats say it has no winner counts in no overall figure (a tie by disagreement is no tie). */
const overallOutcome = (run: PortfolioRun): DimensionOutcome => (replacesWinner(run.caveats ?? []) ? "not_counted" : OVERALL_OUTCOMES[run.winner])

const totals = (runs: ReadonlyArray<PortfolioRun>, value: (run: PortfolioRun) => number | null): Totals => {
  const known = runs.filter((run) => value(run) !== null)
  const values = known.map((run) => value(run)!)
  return {
    total: values.length === 0 ? null : values.reduce((sum, each) => sum + each, 0),
    median: median(values),
    counted: counted(known)
  }
}

/**
 * One run per thread (its first): Claude's session is counted once however many times, with however many
 * models, it was replayed. Chunks of one thread are Claude's work in different ranges, with figures of their
 * own: the same thread with the same Claude figures is the same range.
 */
export const oncePerThread = (runs: ReadonlyArray<PortfolioRun>) => {
  const seen = new Set<string>()
  return runs.filter((run) => {
    if (run.thread_id === null) return true
    const key = JSON.stringify([run.thread_id, run.claude.cost_usd, run.claude.elapsed_ms])
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

const evaluationTotals = (runs: ReadonlyArray<PortfolioRun>) => totals(runs.filter((run) => run.evaluation_usd !== undefined), (run) => run.evaluation_usd ?? null)

const modelPortfolio = (model: string, every: ReadonlyArray<PortfolioRun>): ModelPortfolio => {
  // The repeats of one (thread, model) start are one observation (repeats.ts).
  const all = combineRepeats(every)
  const agreement = repeatAgreement(all)
  const runs = all.filter((run) => !run.possible_leak)
  const overall = tally(runs, overallOutcome)
  const dimensions = Object.fromEntries(DIMENSIONS.map(({ id, label }) => [id, { label, ...tally(runs, (run) => run.dimensions[id]) }])) as ModelPortfolio["dimensions"]
  return {
    model,
    runs,
    possible_leaks: counted(all.filter((run) => run.possible_leak)),
    overall: {
      ...overall,
      more_threads_for_significance: moreThreadsForSignificance(overall.wins.count, overall.losses.count, runs.length)
    },
    dimensions,
    flipped_dimensions: {
      count: runs.reduce((sum, run) => sum + run.flipped_dimensions, 0),
      runs: counted(runs.filter((run) => run.flipped_dimensions > 0))
    },
    not_like_for_like: counted(runs.filter((run) => run.winner !== "inconclusive" && run.like_for_like === false)),
    self_reviews: counted(runs.filter((run) => run.self_review === true)),
    ...secondJudgeFigures(runs),
    time_ms: { codex: totals(runs, (run) => run.codex.elapsed_ms), claude: totals(runs, (run) => run.claude.elapsed_ms) },
    cost_usd: {
      codex: totals(runs, (run) => run.codex.cost_usd),
      claude: totals(oncePerThread(runs), (run) => run.claude.cost_usd),
      evaluation: evaluationTotals(runs)
    },
    checks: checksFigures(runs),
    ...withAgreement(runs),
    ...(agreement === undefined ? {} : { repeat_agreement: agreement })
  }
}

const withAgreement = (runs: ReadonlyArray<PortfolioRun>) => {
  const agreement = userAgreement(runs)
  return agreement === undefined ? {} : { user_agreement: agreement }
}

/** Runs a second judge also judged, and the splits among them; nothing when no run had one. */
const secondJudgeFigures = (runs: ReadonlyArray<PortfolioRun>): Pick<ModelPortfolio, "second_judge"> => {
  const judged = runs.filter((run) => run.second_judge !== undefined)
  return judged.length === 0 ? {} : { second_judge: { judged: counted(judged), split: counted(judged.filter((run) => run.second_judge?.split === true)) } }
}

/** The portfolio verdict of some completed runs: one section per Codex model, in the order models first appear. */
export const buildPortfolio = (input: {
  readonly portfolio_id: string
  readonly generated_at: string
  readonly runs: ReadonlyArray<PortfolioRun>
}): Portfolio => {
  const models = [...new Set(input.runs.map((run) => run.model))]
  return {
    schema_version: PORTFOLIO_SCHEMA_VERSION,
    portfolio_id: input.portfolio_id,
    generated_at: input.generated_at,
    run_ids: input.runs.map((run) => run.run_id),
    significance_level: SIGNIFICANCE_LEVEL,
    confidence: 0.95,
    models: models.map((model) => modelPortfolio(model, input.runs.filter((run) => run.model === model))),
    cost_usd: {
      threads: oncePerThread(input.runs).length,
      codex: totals(input.runs, (run) => run.codex.cost_usd),
      claude: totals(oncePerThread(input.runs), (run) => run.claude.cost_usd),
      evaluation: evaluationTotals(input.runs)
    }
  }
}
