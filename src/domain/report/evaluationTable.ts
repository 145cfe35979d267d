import type { BallotView, CandidateAnswersView, CheckResult, DimensionWinnerLetter } from "../review/ballot.js"
import { decideDimension, scoreOf } from "../review/ballot.js"
import { DIMENSIONS, type Dimension, DIMENSION_IDS, type DimensionId } from "../review/dimensions.js"
import type { Author, CandidateMapping, DimensionResult, ReviewOrder } from "../review/evaluation.js"
import { positionsFor } from "../review/evaluation.js"
import { escapeHtml, formatPercent } from "./format.js"
import { AUTHOR_LABELS } from "./report.js"

/** A review as the table reads it; older or partial records may lack any field. */
export interface ReviewView {
  readonly order?: ReviewOrder
  readonly evaluator?: string
  readonly model?: string
  readonly status?: string
  readonly error?: string | null
  readonly positions?: CandidateMapping
  readonly ballot?: BallotView | null
}

/** The evaluation as the table reads it (a report's `evaluation`, possibly partial or absent). */
export interface EvaluationView {
  readonly candidate_mapping?: CandidateMapping
  readonly reviews?: ReadonlyArray<ReviewView>
  readonly comparable_dimensions?: ReadonlyArray<DimensionId>
  readonly dimensions?: { readonly [D in DimensionId]?: DimensionResult }
  readonly flips?: number
}

export const NO_BALLOT_MESSAGE = "No validated blind review ballot is available."
export const LEGEND = "Pass: satisfied. Fail: failed. N/A: not applicable to this task."

const COLUMN_ORDER: ReadonlyArray<Author> = ["codex", "claude"]
const DEFAULT_MAPPING: CandidateMapping = { A: "codex", B: "claude" }

/** A check's result as a cell: its word and, for colour, its kind (`result--pass`, `result--fail`, `result--na`). */
const checkCell = (result: CheckResult | undefined): string =>
  result === 1 ? `<td class="result result--pass">Pass</td>` : result === 0 ? `<td class="result result--fail">Fail</td>` : `<td class="result result--na">N/A</td>`

/** A dimension's or verdict's winner in the evaluation table's words. */
export const winnerText = (winner: string | null | undefined): string => {
  switch (winner) {
    case "codex":
      return AUTHOR_LABELS.codex
    case "claude":
      return AUTHOR_LABELS.claude
    case "tie":
      return "Tie"
    case "not_applicable":
      return "N/A"
    case "inconclusive":
      return "Inconclusive"
    default:
      return "No ballot"
  }
}

const revealLetter = (letter: DimensionWinnerLetter, positions: CandidateMapping): string =>
  letter === "A" || letter === "B" ? positions[letter] : letter

const positionsOf = (review: ReviewView, mapping: CandidateMapping): CandidateMapping =>
  review.positions ?? positionsFor(review.order ?? "AB", mapping)

const letterOf = (author: Author, positions: CandidateMapping) => (positions.A === author ? "A" : "B")

const dimensionHeading = (dimension: Dimension, comparable: ReadonlyArray<DimensionId>) => {
  const label = comparable.includes(dimension.id) ? dimension.label : `${dimension.label} (excluded from aggregate)`
  return `<tr class="dimension"><th colspan="3" scope="rowgroup"><strong>${escapeHtml(label)}</strong></th></tr>`
}

const dimensionRows = (
  dimension: Dimension,
  ballot: BallotView,
  positions: CandidateMapping,
  comparable: ReadonlyArray<DimensionId>
): string => {
  const answers = ballot.dimensions[dimension.id]
  const checks = dimension.checks.map((check) => check.id)
  const side = (author: Author): CandidateAnswersView | undefined => answers?.candidates[letterOf(author, positions)]
  const rows = dimension.checks.map((check) => {
    const cells = COLUMN_ORDER.map((author) => checkCell(side(author)?.checks[check.id]?.result)).join("")
    return `<tr class="check"><td>${escapeHtml(check.label)}</td>${cells}</tr>`
  })
  const scores = COLUMN_ORDER.map((author) => {
    const answersOf = side(author)
    return `<td>${formatPercent(answersOf === undefined ? null : scoreOf(answersOf, checks))}</td>`
  }).join("")
  const winner = answers === undefined ? null : revealLetter(decideDimension(answers, checks), positions)
  return [
    dimensionHeading(dimension, comparable),
    ...rows,
    `<tr class="score"><td>Score</td>${scores}</tr>`,
    `<tr class="winner"><td>Winner</td><td colspan="2"><strong>${escapeHtml(winnerText(winner))}</strong></td></tr>`
  ].join("")
}

const reviewHeading = (review: ReviewView, index: number, positions: CandidateMapping) => {
  const reviewer = [review.evaluator ?? "codex", review.model].filter((part) => part !== undefined && part !== "").join(" · ")
  const first = AUTHOR_LABELS[positions.A]
  return `<h3>Review ${index + 1}: ${escapeHtml(reviewer)} <span class="review-order">(${escapeHtml(first)} shown first as A)</span></h3>`
}

const reviewProblem = (review: ReviewView): string => {
  const status = review.status === "invalid" ? "Invalid" : review.status === "failed" ? "Failed" : undefined
  if (status === undefined) return ""
  const error = typeof review.error === "string" && review.error !== "" ? ` ${escapeHtml(review.error)}` : ""
  return `<p class="review-status review-status--${status.toLowerCase()}"><strong>${status}</strong>${error}</p>`
}

const hasBallot = (review: ReviewView): review is ReviewView & { readonly ballot: BallotView } =>
  (review.status === undefined || review.status === "completed") &&
  typeof review.ballot === "object" && review.ballot !== null && typeof review.ballot.dimensions === "object"

const reviewSection = (review: ReviewView, index: number, mapping: CandidateMapping, comparable: ReadonlyArray<DimensionId>) => {
  const positions = positionsOf(review, mapping)
  const header = `<thead><tr><th scope="col">Check</th><th>${AUTHOR_LABELS.codex}</th><th>${AUTHOR_LABELS.claude}</th></tr></thead>`
  const table = hasBallot(review)
    ? `<table class="evaluation-table">${header}<tbody>${DIMENSIONS.map((dimension) => dimensionRows(dimension, review.ballot, positions, comparable)).join("")}</tbody></table>`
    : ""
  return `<div class="review">${reviewHeading(review, index, positions)}${reviewProblem(review)}${table}</div>`
}

const orderLabel = (order: ReviewOrder) => (order === "AB" ? "Order A, B" : "Order B, A")

const aggregateRow = (id: DimensionId, result: DimensionResult, comparable: ReadonlyArray<DimensionId>) => {
  const label = DIMENSIONS.find((dimension) => dimension.id === id)?.label ?? id
  const heading = comparable.includes(id) ? label : `${label} (excluded from aggregate)`
  const orders = result.by_order.map((entry) => `<td>${escapeHtml(winnerText(entry.winner))}</td>`).join("")
  const mark = result.order_dependent ? ` <span class="order-dependent">order-dependent</span>` : ""
  return `<tr><td><strong>${escapeHtml(heading)}</strong></td>${orders}<td><strong>${escapeHtml(winnerText(result.winner))}</strong>${mark}</td></tr>`
}

const aggregateSection = (evaluation: EvaluationView, comparable: ReadonlyArray<DimensionId>): string => {
  const dimensions = evaluation.dimensions
  if (dimensions === undefined) return ""
  const rows = DIMENSION_IDS.flatMap((id) => {
    const result = dimensions[id]
    return result === undefined ? [] : [aggregateRow(id, result, comparable)]
  })
  if (rows.length === 0) return ""
  const flips = typeof evaluation.flips === "number"
    ? `<p class="flips">${evaluation.flips} of ${DIMENSION_IDS.length} dimensions flipped with the order (shown as Tie, order-dependent).</p>`
    : ""
  const orders = (["AB", "BA"] as const).map((order) => `<th scope="col">${orderLabel(order)}</th>`).join("")
  return `<div class="aggregate"><h3>Order-balanced result</h3><table class="aggregate-table"><thead><tr><th scope="col">Dimension</th>${orders}<th scope="col">Agreed winner</th></tr></thead><tbody>${rows.join("")}</tbody></table>${flips}</div>`
}

/**
 * The evaluation table of docs/verdicts.md: identities revealed as `Codex replay` / `Historical Claude`,
 * Pass/Fail/N/A per check, whole-percent scores, the winner per dimension, excluded dimensions marked,
 * failed and invalid reviews with their escaped error. Reviewer narratives (evidence, comparisons)
 * are never rendered.
 */
export const renderEvaluationTable = (evaluation: EvaluationView | null | undefined): string => {
  const reviews = evaluation?.reviews ?? []
  const mapping = evaluation?.candidate_mapping ?? DEFAULT_MAPPING
  const comparable = evaluation?.comparable_dimensions ?? DIMENSION_IDS
  const sections = reviews.map((review, index) => reviewSection(review, index, mapping, comparable)).join("")
  const noBallot = reviews.some(hasBallot) ? "" : `<p class="no-ballot">${NO_BALLOT_MESSAGE}</p>`
  const aggregate = evaluation === null || evaluation === undefined ? "" : aggregateSection(evaluation, comparable)
  return `<div class="evaluation"><p class="legend">${LEGEND}</p>${noBallot}${aggregate}${sections}</div>`
}
