/**
 * `portfolio.json`, Schema first: what `buildPortfolio` writes and every reader decodes. A file that does
 * not decode is damaged, never cast into shape.
 */
import { Schema } from "effect"
import { Caveats } from "../report/caveats.js"
import { DIMENSION_IDS, type DimensionId } from "../review/dimensions.js"
import { ChecksFigures, RunChecks } from "./checksFigures.js"
import { RepeatAgreement } from "./repeats.js"

const NullableNumber = Schema.NullOr(Schema.Number)
const Outcome = Schema.Literal("win", "tie", "loss", "not_counted")
const Side = Schema.Struct({ elapsed_ms: NullableNumber, cost_usd: NullableNumber })

/** The dimensions of a run or a model, one field per dimension id. */
const perDimension = <A, I>(value: Schema.Schema<A, I, never>) =>
  Schema.Struct(Object.fromEntries(DIMENSION_IDS.map((id) => [id, value])) as { readonly [D in DimensionId]: Schema.Schema<A, I, never> })

/** One completed run as the portfolio counts it. */
export const PortfolioRun = Schema.Struct({
  run_id: Schema.String,
  thread_id: Schema.NullOr(Schema.String),
  model: Schema.String,
  winner: Schema.Literal("codex", "claude", "tie", "inconclusive"),
  dimensions: perDimension(Outcome),
  flipped_dimensions: Schema.Number,
  /** `null`: the run recorded no comparability facts. */
  like_for_like: Schema.NullOr(Schema.Boolean),
  /** Codex's patch is (nearly) Claude's: the run is counted apart, in none of the statistics. */
  possible_leak: Schema.Boolean,
  /** Whether a second judge ran and whether the two judges disagreed on the winner (absent in older portfolios). */
  second_judge: Schema.optionalWith(Schema.Struct({ split: Schema.Boolean }), { exact: true }),
  codex: Side,
  claude: Side,
  /** What its report says of the checks; null without them (absent in portfolios written before them). */
  checks: Schema.optionalWith(RunChecks, { exact: true }),
  /** The user's own blind vote on the overall winner; absent when the user did not vote. */
  user_vote: Schema.optionalWith(Schema.Literal("codex", "claude", "tie"), { exact: true }),
  /** What the run's evaluation cost (every call but the implementation); null when a call had no price; absent before it was kept. */
  evaluation_usd: Schema.optionalWith(NullableNumber, { exact: true }),
  /** Its verdict's caveats (`caveatsOf`), as the report, the page and the CLI word them (absent in older portfolios). */
  caveats: Schema.optionalWith(Caveats, { exact: true }),
  /** The reviewer judged its own model's replay (absent in older portfolios). */
  self_review: Schema.optionalWith(Schema.Boolean, { exact: true }),
  /** Which repeat of its (thread, model) start the run is; absent for a start of one. */
  repeat: Schema.optionalWith(Schema.Struct({ index: Schema.Number, of: Schema.Number, group: Schema.String }), { exact: true }),
  /** A cell combined from repeats (repeats.ts): its runs and each one's winner as counted; absent otherwise. */
  repeats: Schema.optionalWith(Schema.Struct({ run_ids: Schema.Array(Schema.String), winners: Schema.Array(Schema.String) }), { exact: true })
})
export type PortfolioRun = typeof PortfolioRun.Type

/** Judge–user agreement on the overall winner over the runs the user voted on (agreement.ts). */
export const UserAgreement = Schema.Struct({
  n: Schema.Number,
  agreeing: Schema.Number,
  share: NullableNumber,
  kappa: NullableNumber,
  run_ids: Schema.Array(Schema.String),
  /** Voted runs left out of n because the judge reached no verdict on them; absent when there are none. */
  no_verdict: Schema.optionalWith(Schema.Struct({ count: Schema.Number, run_ids: Schema.Array(Schema.String) }), { exact: true })
})
export type UserAgreement = typeof UserAgreement.Type

/** A figure and the runs it counts, so that every number can link to them. */
export const Counted = Schema.Struct({ count: Schema.Number, run_ids: Schema.Array(Schema.String) })
export type Counted = typeof Counted.Type

const Interval = Schema.Struct({ lower: Schema.Number, upper: Schema.Number })
const Projection = Schema.Struct({ threads: Schema.Number, more: Schema.Number })

/** Wins, ties and losses, the win rate among decisive verdicts, its Wilson interval and the sign test. */
const tallyFields = {
  wins: Counted,
  ties: Counted,
  losses: Counted,
  /** Verdicts that are none of the three: inconclusive runs, or dimensions not applicable or not compared. */
  not_counted: Counted,
  /** wins ÷ (wins + losses); `null` without a decisive verdict. */
  win_rate: NullableNumber,
  win_rate_interval: Schema.NullOr(Interval),
  /** Two-sided exact sign test, ties excluded; `null` without a decisive verdict. */
  sign_test_p: NullableNumber,
  significant: Schema.Boolean
}
export const Tally = Schema.Struct(tallyFields)
export type Tally = typeof Tally.Type

const Totals = Schema.Struct({
  total: NullableNumber,
  median: NullableNumber,
  /** The runs whose figure is known (the total and the median are over these). */
  counted: Counted
})
export type Totals = typeof Totals.Type

export const ModelPortfolio = Schema.Struct({
  model: Schema.String,
  /** The runs the statistics count: every run of the model but the possible leaks. */
  runs: Schema.Array(PortfolioRun),
  /** Runs whose Codex patch matches Claude's (a possible leak): counted apart, in no figure below. */
  possible_leaks: Counted,
  /** `more_threads_for_significance`: see `moreThreadsForSignificance`; `null` when no number of threads would do. */
  overall: Schema.Struct({ ...tallyFields, more_threads_for_significance: Schema.NullOr(Projection) }),
  dimensions: perDimension(Schema.Struct({ ...tallyFields, label: Schema.String })),
  /** Dimensions whose winner changed when the order of the candidates was swapped, over all runs. */
  flipped_dimensions: Schema.Struct({ count: Schema.Number, runs: Counted }),
  /** Verdicts (not inconclusive) reached while the comparison was not like-for-like. */
  not_like_for_like: Counted,
  /** Runs whose reviewer judged its own model's replay, counted apart (absent in older portfolios). */
  self_reviews: Schema.optionalWith(Counted, { exact: true }),
  /** Runs a second judge (Claude) also judged, and those where the two judges split on the winner (absent in older portfolios). */
  second_judge: Schema.optionalWith(Schema.Struct({ judged: Counted, split: Counted }), { exact: true }),
  time_ms: Schema.Struct({ codex: Totals, claude: Totals }),
  /** Claude's cost counts once per thread: a thread replayed twice cost Claude once. `evaluation`: absent in older portfolios. */
  cost_usd: Schema.Struct({ codex: Totals, claude: Totals, evaluation: Schema.optionalWith(Totals, { exact: true }) }),
  /** The checks figures over the runs whose report has checks (absent in portfolios written before them). */
  checks: Schema.optionalWith(ChecksFigures, { exact: true }),
  /** Present when the user voted on at least one of the runs. */
  user_agreement: Schema.optionalWith(UserAgreement, { exact: true }),
  /** How often the repeats of a (thread, model) cell agree; present when some cell was replayed more than once. */
  repeat_agreement: Schema.optionalWith(RepeatAgreement, { exact: true })
})
export type ModelPortfolio = typeof ModelPortfolio.Type

export const PortfolioFile = Schema.Struct({
  schema_version: Schema.Number,
  portfolio_id: Schema.String,
  generated_at: Schema.String,
  run_ids: Schema.Array(Schema.String),
  significance_level: Schema.Number,
  confidence: Schema.Number,
  models: Schema.Array(ModelPortfolio),
  /**
   * Every run's cost together: Codex's implementations, Claude's once per thread across every model, and the
   * evaluation (what it cost to know) apart; absent in portfolios written before it.
   */
  cost_usd: Schema.optionalWith(Schema.Struct({ threads: Schema.Number, codex: Totals, claude: Totals, evaluation: Totals }), { exact: true })
})
export type Portfolio = typeof PortfolioFile.Type
