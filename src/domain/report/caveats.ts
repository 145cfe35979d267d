import { Schema } from "effect"
import { visible } from "./visible.js"

/**
 * What to weigh before acting on a run's verdict, in the same words wherever the verdict is shown: the report,
 * the page, the CLI's text and `--json` (`replay`, `report`, `runs`, `batch`) and the portfolio (docs/verdicts.md
 * "Caveats"). One pure function over the facts a report (or, for runs written before caveats were recorded,
 * the run's report summary) holds.
 */

export const CAVEAT_KINDS = [
  "not_like_for_like",
  "self_review",
  "split",
  "missing_ballot",
  "no_verdict",
  "possible_leak",
  "inconclusive"
] as const
export type CaveatKind = (typeof CAVEAT_KINDS)[number]

/** One caveat: its kind, its short label (one-line views) and why, when there is more to say (`null` otherwise). */
export const Caveat = Schema.Struct({
  kind: Schema.Literal(...CAVEAT_KINDS),
  label: Schema.String,
  detail: Schema.NullOr(Schema.String)
})
export type Caveat = typeof Caveat.Type

/** The caveats a run's report summary records; absent in summaries written before they were. */
export const Caveats = Schema.Array(Caveat)

export const INCONCLUSIVE_DISAGREED = "inconclusive (the two orders disagreed)"
export const NOT_LIKE_FOR_LIKE_LABEL = "not like-for-like"
export const SELF_REVIEW_LABEL = "self-review"
export const POSSIBLE_LEAK_LABEL = "possible leak"

/** What the caveats are read from; every field may be unknown (an older run). */
export interface CaveatFacts {
  readonly winner: string | null
  /** `false` with `concerns` for why; `null`/absent when the run recorded no comparability. */
  readonly like_for_like?: boolean | null | undefined
  readonly concerns?: ReadonlyArray<string> | undefined
  /** The reviewer judged its own model's replay. */
  readonly self_review?: boolean | undefined
  readonly reviewer_model?: string | null | undefined
  /** The review orders without a validated ballot (`AB`, `BA`). */
  readonly missing_orders?: ReadonlyArray<string> | undefined
  /** Codex's patch is (nearly) Claude's. */
  readonly possible_leak?: boolean | undefined
  /** A tie because the two orders disagreed on every compared dimension. */
  readonly orders_disagreed?: boolean | undefined
  /** A second judge disagreed with the first on the overall winner. */
  readonly judges_split?: boolean | undefined
}

const ORDER_NAMES: Record<string, string> = { AB: "A/B", BA: "B/A" }
const SELF_REVIEW_CONCERN = /^Self-review:/i

const caveat = (kind: CaveatKind, label: string, detail: string | null = null): Caveat => ({
  kind,
  label,
  detail: detail === null ? null : visible(detail)
})

/** The caveats of a verdict, most serious first: a possible leak, no verdict or a missing ballot, disagreement, then comparability. */
export const caveatsOf = (facts: CaveatFacts): ReadonlyArray<Caveat> => {
  const caveats: Array<Caveat> = []
  if (facts.possible_leak === true) {
    caveats.push(caveat("possible_leak", POSSIBLE_LEAK_LABEL, "Codex's patch matches Claude's result; the verdict is not counted."))
  }
  const missing = facts.missing_orders ?? []
  if (missing.length >= 2) {
    caveats.push(caveat("no_verdict", "no verdict", "Neither review order has a validated ballot."))
  } else if (missing.length === 1) {
    const order = ORDER_NAMES[missing[0]!] ?? missing[0]!
    caveats.push(caveat("missing_ballot", `missing ballot (${order})`, `The ${order} order has no validated ballot, so no dimension is confirmed in both orders.`))
  }
  if (facts.orders_disagreed === true && missing.length === 0) {
    caveats.push(caveat("inconclusive", INCONCLUSIVE_DISAGREED, "The two review orders disagreed on every dimension compared: each counts as a tie, which is no verdict."))
  }
  if (facts.judges_split === true) caveats.push(caveat("split", "split", "The two judges disagree on the overall winner."))
  if (facts.like_for_like === false) {
    // A self-review is its own caveat: the comparability's sentence for it is not repeated.
    const reasons = (facts.concerns ?? []).filter((concern) => !SELF_REVIEW_CONCERN.test(concern))
    caveats.push(caveat("not_like_for_like", NOT_LIKE_FOR_LIKE_LABEL, reasons.length === 0 ? (facts.self_review === true ? "The reviewer judged its own replay." : null) : reasons.join(" ")))
  }
  if (facts.self_review === true) {
    const reviewer = typeof facts.reviewer_model === "string" ? facts.reviewer_model : "the replayed model"
    caveats.push(caveat("self_review", SELF_REVIEW_LABEL, `${reviewer} judged its own replay against Claude's result.`))
  }
  return caveats
}

/**
 * A winner in words: the one map every view says a verdict from (the report, the page, the portfolio, the
 * grid, the CLI). Inside a line as they are (`verdictWords`), at the start of one capitalised (`WINNER_LINES`).
 */
export const WINNER_WORDS = {
  codex: "Codex wins",
  claude: "Claude wins",
  tie: "tie",
  inconclusive: "inconclusive (no order-balanced verdict)"
} as const

const wordsOf: Readonly<Record<string, string>> = WINNER_WORDS

/** Words starting a line or a cell: their first letter capitalised. */
export const capitalised = (words: string) => `${words.charAt(0).toUpperCase()}${words.slice(1)}`

/** `WINNER_WORDS` starting a line: `Codex wins`, `Claude wins`, `Tie`, `Inconclusive (no order-balanced verdict)`. */
export const WINNER_LINES: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(WINNER_WORDS).map(([winner, words]) => [winner, capitalised(words)])
)

/** The caveat said instead of a winner, if any: no verdict, then orders that disagreed, then judges that split. */
const replacingKind = (caveats: ReadonlyArray<Caveat>) =>
  (["no_verdict", "inconclusive", "split"] as const).find((kind) => caveats.some((entry) => entry.kind === kind))

const REPLACING_WORDS = { no_verdict: "no verdict", inconclusive: INCONCLUSIVE_DISAGREED, split: "split" } as const

/** The verdict in a few words: the winner, unless a caveat says there is none (no verdict, the orders disagreed, the judges split). */
export const verdictWords = (winner: string | null, caveats: ReadonlyArray<Caveat>) => {
  const replacing = replacingKind(caveats)
  if (replacing !== undefined) return REPLACING_WORDS[replacing]
  return winner === null ? "no verdict" : wordsOf[winner] ?? winner
}

/** `verdictWords` starting a line or a cell (the page's lists, the grid, the portfolio's runs). */
export const verdictLine = (winner: string | null, caveats: ReadonlyArray<Caveat>) => capitalised(verdictWords(winner, caveats))

/** Whether a caveat is said instead of the winner (no verdict, orders that disagreed, judges that split). */
export const replacesWinner = (caveats: ReadonlyArray<Caveat>) => replacingKind(caveats) !== undefined

/** A run's winner as the tallies count it: `inconclusive` when a caveat says it has none. */
export const countedWinner = <W extends string>(winner: W, caveats: ReadonlyArray<Caveat>): W | "inconclusive" =>
  replacesWinner(caveats) ? "inconclusive" : winner

/** The caveats left to name beside `verdictWords` (the one said instead of a winner is not repeated). */
export const caveatsBesideVerdict = (caveats: ReadonlyArray<Caveat>) => {
  const replacing = replacingKind(caveats)
  return caveats.filter((entry) => entry.kind !== replacing)
}

/** A caveat in a sentence: its label and why. */
export const caveatText = (entry: Caveat) => (entry.detail === null ? entry.label : `${entry.label}: ${entry.detail}`)

/** The caveats' labels on one line (`runs`, `batch`), or "" without any. */
export const caveatLabels = (caveats: ReadonlyArray<Caveat>) => caveats.map((entry) => entry.label).join(" · ")

/** Whether a verdict's tally (won, tied, lost) means anything: not when there is no verdict or the orders disagreed. */
export const tallyCounts = (winner: string | null, caveats: ReadonlyArray<Caveat>) =>
  winner !== null && winner !== "inconclusive" &&
  !caveats.some((entry) => entry.kind === "no_verdict" || entry.kind === "inconclusive" || entry.kind === "missing_ballot" || entry.kind === "split")

// ---------------------------------------------------------------------------------------------
// Facts from a report, or from a run's report summary

type Json = { readonly [key: string]: unknown }
const isJson = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value)
const strings = (value: unknown) => (Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [])

/** The orders without a validated ballot, from an evaluation's (or a summary's) reviews. */
const missingOrders = (evaluation: Json | undefined) => {
  const reviews = evaluation?.reviews
  if (!Array.isArray(reviews)) return undefined
  return reviews.filter((review) => !isJson(review) || review.status !== "completed").map((review) => String(isJson(review) ? review.order : ""))
}

/** A tie because every compared dimension depended on the order. */
const disagreed = (winner: unknown, evaluation: Json | undefined) => {
  if (winner !== "tie" || evaluation === undefined) return false
  const comparable = strings(evaluation.comparable_dimensions)
  const dimensions = isJson(evaluation.dimensions) ? evaluation.dimensions : {}
  if (comparable.length === 0) return false
  // A report holds each dimension's outcome; a summary only the flips' count.
  const outcomes = comparable.map((id) => dimensions[id])
  return outcomes.every(isJson)
    ? outcomes.every((outcome) => isJson(outcome) && outcome.order_dependent === true)
    : typeof evaluation.flips === "number" && evaluation.flips >= comparable.length
}

/** The facts of a `report.json` (any version: what it lacks is unknown). */
export const caveatFactsOfReport = (report: unknown): CaveatFacts => {
  if (!isJson(report)) return { winner: null }
  const evaluation = isJson(report.evaluation) ? report.evaluation : undefined
  const comparability = isJson(report.comparability) ? report.comparability : undefined
  const about = isJson(report.about_review) ? report.about_review : undefined
  const integrity = isJson(report.integrity) ? report.integrity : undefined
  const judges = isJson(report.judges) ? report.judges : undefined
  return {
    winner: typeof report.winner === "string" ? report.winner : null,
    like_for_like: typeof comparability?.like_for_like === "boolean" ? comparability.like_for_like : null,
    concerns: strings(comparability?.concerns),
    self_review: about?.self_review === true,
    reviewer_model: typeof about?.reviewer_model === "string" ? about.reviewer_model : null,
    missing_orders: report.evaluation === null ? ["AB", "BA"] : missingOrders(evaluation),
    possible_leak: integrity?.matches_claude === true,
    orders_disagreed: disagreed(report.winner, evaluation),
    judges_split: judges?.split === true || evaluation?.judges_split === true
  }
}

/** A report's caveats: those it recorded, else derived from it. */
export const caveatsOfReport = (report: unknown): ReadonlyArray<Caveat> => {
  const recorded = isJson(report) ? Schema.decodeUnknownOption(Caveats)(report.caveats) : undefined
  return recorded !== undefined && recorded._tag === "Some" ? recorded.value : caveatsOf(caveatFactsOfReport(report))
}

/**
 * A run's caveats from its state's report summary: those recorded with it, else (a run written before they
 * were) what the summary still tells: a possible leak, missing ballots, orders that disagreed. `[]` without a summary.
 */
export const caveatsOfSummary = (summary: unknown): ReadonlyArray<Caveat> => {
  if (!isJson(summary)) return []
  const recorded = Schema.decodeUnknownOption(Caveats)(summary.caveats)
  if (recorded._tag === "Some") return recorded.value
  const evaluation = isJson(summary.evaluation) ? summary.evaluation : undefined
  return caveatsOf({
    winner: typeof summary.winner === "string" ? summary.winner : null,
    missing_orders: missingOrders(evaluation),
    possible_leak: summary.possible_leak === true,
    orders_disagreed: disagreed(summary.winner, evaluation),
    judges_split: summary.judges_split === true
  })
}
