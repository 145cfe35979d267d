/**
 * What a portfolio says of the checks (docs/controller.md#checks): per Codex model, among the runs whose
 * report has a `checks` section, how often Codex's result passes every check Claude's result passed, and
 * how often it is strictly better or worse on the checks, each with its 95% Wilson interval. Runs
 * without checks are in none of these figures; a check that could not run was never counted (outcomes.ts).
 */
import { Schema } from "effect"
import { wilsonInterval } from "./statistics.js"

const Counted = Schema.Struct({ count: Schema.Number, run_ids: Schema.Array(Schema.String) })
const Interval = Schema.Struct({ lower: Schema.Number, upper: Schema.Number })

/** What a run's report says of its checks, as a portfolio counts it; null when the report has none. */
export const RunChecks = Schema.NullOr(Schema.Struct({
  edge: Schema.NullOr(Schema.Literal("codex", "claude", "same", "mixed")),
  codex_keeps_claude_passes: Schema.NullOr(Schema.Boolean)
}))
export type RunChecks = typeof RunChecks.Type

/** `count` runs out of `of`, the share and its 95% Wilson interval (both null when `of` is 0). */
export const CheckRate = Schema.Struct({
  count: Counted,
  of: Schema.Number,
  rate: Schema.NullOr(Schema.Number),
  interval: Schema.NullOr(Interval)
})
export type CheckRate = typeof CheckRate.Type

export const ChecksFigures = Schema.Struct({
  /** The runs whose report has checks: the only ones these figures count. */
  runs_with_checks: Counted,
  /** Codex's result passes every check Claude's result passed, out of runs where Claude's passed one that ran on both. */
  keeps_claude_passes: CheckRate,
  /** Codex strictly better on the checks (`edge` codex), out of runs where a check ran on both results. */
  better: CheckRate,
  /** Codex strictly worse on the checks (`edge` claude), out of the same runs. */
  worse: CheckRate
})
export type ChecksFigures = typeof ChecksFigures.Type

interface Counting {
  readonly run_id: string
  readonly checks?: RunChecks | undefined
}

const counted = (runs: ReadonlyArray<Counting>) => ({ count: runs.length, run_ids: runs.map((run) => run.run_id) })

const rate = (hits: ReadonlyArray<Counting>, of: number): CheckRate => ({
  count: counted(hits),
  of,
  rate: of === 0 ? null : hits.length / of,
  interval: wilsonInterval(hits.length, of)
})

/** A model's checks figures over its counted runs. */
export const checksFigures = (runs: ReadonlyArray<Counting>): ChecksFigures => {
  const withChecks = runs.filter((run) => run.checks !== undefined && run.checks !== null)
  const kept = withChecks.filter((run) => run.checks?.codex_keeps_claude_passes !== null)
  const edged = withChecks.filter((run) => run.checks?.edge !== null)
  return {
    runs_with_checks: counted(withChecks),
    keeps_claude_passes: rate(kept.filter((run) => run.checks?.codex_keeps_claude_passes === true), kept.length),
    better: rate(edged.filter((run) => run.checks?.edge === "codex"), edged.length),
    worse: rate(edged.filter((run) => run.checks?.edge === "claude"), edged.length)
  }
}

const percent = (share: number) => `${(share * 100).toFixed(0)}%`

/** A rate in words: "3 of 4 (75%, 95% Wilson interval 30%–95%)", or "none to count". */
export const checkRateText = (figure: CheckRate) =>
  figure.of === 0 || figure.rate === null || figure.interval === null
    ? "none to count"
    : `${figure.count.count} of ${figure.of} (${percent(figure.rate)}, 95% Wilson interval ${percent(figure.interval.lower)}–${percent(figure.interval.upper)})`

/** The figures in words, the first naming how many runs had checks. */
export const checksFigureLines = (figures: ChecksFigures, runs: number) => [
  `Checks ran in ${figures.runs_with_checks.count} of ${runs} run(s); runs without checks are not counted in these figures.`,
  `Codex keeps every check Claude's result passed: ${checkRateText(figures.keeps_claude_passes)}`,
  `Codex strictly better on checks: ${checkRateText(figures.better)}`,
  `Codex strictly worse on checks: ${checkRateText(figures.worse)}`
]
