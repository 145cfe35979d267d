import { type BallotView, type DimensionWinnerLetter, decideDimension } from "./ballot.js"
import { DIMENSION_IDS, DIMENSIONS, type DimensionId, checksOf } from "./dimensions.js"
import type { SecondJudgeResult } from "./secondJudge.js"

export type Author = "codex" | "claude"
export type Position = "A" | "B"
/** Which author stands behind each anonymous letter. */
export interface CandidateMapping {
  readonly A: Author
  readonly B: Author
}
/** `AB`: the reviewer saw candidate A first; `BA`: the same review with the candidates swapped. */
export type ReviewOrder = "AB" | "BA"
export const REVIEW_ORDERS: ReadonlyArray<ReviewOrder> = ["AB", "BA"]

export type ReviewStatus = "completed" | "invalid" | "failed"

export interface ReviewRecord {
  readonly order: ReviewOrder
  readonly evaluator: string
  readonly model: string
  readonly status: ReviewStatus
  readonly error: string | null
  /** The authors the reviewer saw as its own A and B in this order. */
  readonly positions: CandidateMapping
  /** The validated ballot (scores recomputed, winners decided), in the reviewer's own letters. */
  readonly ballot: BallotView | null
  /** Whether a repair pass rebuilt the ballot (runs before ballots were asked again instead; always false now). */
  readonly normalized: boolean
  /** Whether the review was asked again after an answer that did not match the ballot schema. */
  readonly asked_again?: boolean
}

export type DimensionWinner = Author | "tie" | "not_applicable"
/** `inconclusive`: fewer than two validated ballots, so no order-balanced verdict exists. */
export type AggregateWinner = DimensionWinner | "inconclusive"
export type Agreement = "agreed" | "order_dependent" | "incomplete"

export interface DimensionResult {
  readonly label: string
  readonly winner: AggregateWinner
  readonly agreement: Agreement
  readonly order_dependent: boolean
  readonly comparable: boolean
  /** The winner each order's ballot gave, with identities revealed (`null`: no ballot). */
  readonly by_order: ReadonlyArray<{ readonly order: ReviewOrder; readonly winner: DimensionWinner | null }>
}

export type OverallWinner = Author | "tie" | "inconclusive"

export interface Evaluation {
  readonly candidate_mapping: CandidateMapping
  readonly reviews: ReadonlyArray<ReviewRecord>
  readonly dimensions: { readonly [D in DimensionId]: DimensionResult }
  readonly flips: number
  readonly comparable_dimensions: ReadonlyArray<DimensionId>
  readonly winner: OverallWinner
  /** The orders without a validated ballot (a failed reviewer, or an answer that was twice not a ballot); absent in older runs. */
  readonly missing_orders?: ReadonlyArray<ReviewOrder>
  /** The second judge from the other family, when the run asked for one (docs/verdicts.md). */
  readonly second_judge?: SecondJudgeResult
  /** Whether the two judges disagree on the overall winner; present when a second judge was asked for. */
  readonly judges_split?: boolean
}

export const mappingWithCodexAs = (position: Position): CandidateMapping =>
  position === "A" ? { A: "codex", B: "claude" } : { A: "claude", B: "codex" }

/** The letters the reviewer sees in one order: `BA` swaps who is presented as A. */
export const positionsFor = (order: ReviewOrder, mapping: CandidateMapping): CandidateMapping =>
  order === "AB" ? mapping : { A: mapping.B, B: mapping.A }

/** The run's candidate file a reviewer letter stands for in one order. */
export const sourceLetterFor = (order: ReviewOrder, position: Position): Position =>
  order === "AB" ? position : position === "A" ? "B" : "A"

export const revealWinner = (letter: DimensionWinnerLetter, positions: CandidateMapping): DimensionWinner =>
  letter === "A" || letter === "B" ? positions[letter] : letter

/** One ballot's winner of one dimension, with the identity revealed. */
export const ballotWinner = (review: ReviewRecord, dimension: DimensionId): DimensionWinner | null => {
  const answers = review.status === "completed" ? review.ballot?.dimensions[dimension] : undefined
  if (answers === undefined) return null
  const checks = checksOf(dimension).map((check) => check.id)
  return revealWinner(decideDimension(answers, checks), review.positions)
}

const combine = (winners: ReadonlyArray<DimensionWinner | null>): { winner: AggregateWinner; agreement: Agreement } => {
  const [first, second] = winners
  if (winners.length < 2 || first === null || first === undefined || second === null || second === undefined) {
    return { winner: "inconclusive", agreement: "incomplete" }
  }
  return first === second ? { winner: first, agreement: "agreed" } : { winner: "tie", agreement: "order_dependent" }
}

const dimensionResult = (
  dimension: DimensionId,
  reviews: ReadonlyArray<ReviewRecord>,
  comparable: ReadonlyArray<DimensionId>
): DimensionResult => {
  const by_order = REVIEW_ORDERS.map((order) => {
    const review = reviews.find((candidate) => candidate.order === order)
    return { order, winner: review === undefined ? null : ballotWinner(review, dimension) }
  })
  const { winner, agreement } = combine(by_order.map((entry) => entry.winner))
  return {
    label: DIMENSIONS.find((entry) => entry.id === dimension)?.label ?? dimension,
    winner,
    agreement,
    order_dependent: agreement === "order_dependent",
    comparable: comparable.includes(dimension),
    by_order
  }
}

/**
 * The overall winner from the agreed winners of the comparable dimensions only: more dimensions won
 * wins; equal counts tie; no validated pair of ballots at all is inconclusive.
 */
export const overallWinner = (dimensions: { readonly [D in DimensionId]: DimensionResult }): OverallWinner => {
  const counted = DIMENSION_IDS.map((id) => dimensions[id]).filter((result) => result.comparable)
  if (counted.length === 0 || counted.every((result) => result.agreement === "incomplete")) return "inconclusive"
  const wins = (author: Author) => counted.filter((result) => result.winner === author).length
  const difference = wins("codex") - wins("claude")
  return difference > 0 ? "codex" : difference < 0 ? "claude" : "tie"
}

/** Combines the two orders' reviews into the order-balanced evaluation (docs/verdicts.md). */
export const aggregateEvaluation = (input: {
  readonly candidate_mapping: CandidateMapping
  readonly reviews: ReadonlyArray<ReviewRecord>
  readonly comparable_dimensions?: ReadonlyArray<DimensionId>
}): Evaluation => {
  const comparable = DIMENSION_IDS.filter((id) => (input.comparable_dimensions ?? DIMENSION_IDS).includes(id))
  const result = (id: DimensionId) => dimensionResult(id, input.reviews, comparable)
  const dimensions = {
    reliability: result("reliability"),
    code_quality: result("code_quality"),
    request_fulfillment: result("request_fulfillment"),
    change_scope: result("change_scope"),
    safe_operations: result("safe_operations"),
    accurate_reporting: result("accurate_reporting")
  }
  return {
    candidate_mapping: input.candidate_mapping,
    reviews: input.reviews,
    dimensions,
    flips: DIMENSION_IDS.filter((id) => dimensions[id].order_dependent).length,
    comparable_dimensions: comparable,
    winner: overallWinner(dimensions),
    missing_orders: REVIEW_ORDERS.filter((order) => !input.reviews.some((review) => review.order === order && review.status === "completed"))
  }
}

/**
 * The candidate labels as the ballot uses them (`Candidate A`, `candidate B`). A letter on its own is
 * left alone: "Plan B", "Option A" and "A/B testing" are not candidates.
 */
const LETTER_REFERENCE = /\b[Cc]andidate ([AB])\b(?![/-])/g

/**
 * A reviewer's text with its letters replaced by the identities they stood for in that order, and
 * nothing else changed (the caller escapes it for display).
 */
export const revealLetters = (text: string, positions: CandidateMapping, labels: Readonly<Record<Author, string>>): string =>
  text.replace(LETTER_REFERENCE, (_match, letter: Position) => labels[positions[letter]])

export interface RevealedReason {
  readonly order: ReviewOrder
  readonly reason: string
}

/** Each dimension's reasons from every validated ballot, in order, with identities revealed. */
export const revealedReasons = (
  reviews: ReadonlyArray<ReviewRecord>,
  labels: Readonly<Record<Author, string>>
): { readonly [D in DimensionId]: ReadonlyArray<RevealedReason> } => {
  const forDimension = (dimension: DimensionId) =>
    reviews.flatMap((review) => {
      const reason = review.status === "completed" ? review.ballot?.dimensions[dimension]?.reason : undefined
      return reason === undefined || reason.trim() === "" ? [] : [{ order: review.order, reason: revealLetters(reason, review.positions, labels) }]
    })
  return {
    reliability: forDimension("reliability"),
    code_quality: forDimension("code_quality"),
    request_fulfillment: forDimension("request_fulfillment"),
    change_scope: forDimension("change_scope"),
    safe_operations: forDimension("safe_operations"),
    accurate_reporting: forDimension("accurate_reporting")
  }
}
