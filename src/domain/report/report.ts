import type { ChecksComparison } from "../checks/outcomes.js"
import { CODEX_COST_NOTE } from "../codexPricing.js"
import type { ChangedFile } from "../review/anonymize.js"
import { DIMENSION_IDS } from "../review/dimensions.js"
import { type Author, type Evaluation, type OverallWinner, type RevealedReason, revealedReasons } from "../review/evaluation.js"
import type { DimensionId } from "../review/dimensions.js"
import { type Caveat, caveatFactsOfReport, caveatsOf, replacesWinner, verdictLine } from "./caveats.js"
import { cutSentence, type OutputCut } from "./ceilings.js"
import { type Comparability, type ComparabilityFacts, comparabilityOf } from "./comparability.js"
import { type Integrity, integrityOf } from "./integrity.js"
import type { ReportTaskSource } from "./taskSourceHtml.js"
import type { TokenBuckets } from "./tokens.js"
import type { Spend } from "../spend.js"
import type { RepeatOutcomes } from "../contracts/repeats.js"
import { withOwnCaveats } from "../repeats.js"

export const REPORT_SCHEMA_VERSION = 1

export const AUTHOR_LABELS: Record<Author, string> = { codex: "Codex replay", claude: "Historical Claude" }

/**
 * The verdict's headline (report.html, the page's Results): the winning side by its label (`Codex replay
 * wins`), else the words every view says (`verdictLine`: `Tie`, `Inconclusive (the two orders disagreed)`, …).
 */
export const verdictHeadline = (winner: string | null, caveats: ReadonlyArray<Caveat>) =>
  !replacesWinner(caveats) && (winner === "codex" || winner === "claude") ? `${AUTHOR_LABELS[winner]} wins` : verdictLine(winner, caveats)

/** A known cost (with what it is based on, when that needs saying), or `null` with the reason it is unknown. */
export type Cost =
  | { readonly usd: number; readonly reason: null; readonly basis?: string }
  | { readonly usd: null; readonly reason: string }

/** One side's finished result, as the run pipeline collected it. */
export interface CandidateSide {
  readonly model: string | null
  readonly patch: string
  readonly final_response: string
  readonly files: ReadonlyArray<ChangedFile>
  readonly worktree: string | null
  /** Other directories the side worked in (Claude's recorded working directories): scrubbed from the review like the worktree. */
  readonly working_directories?: ReadonlyArray<string>
  readonly elapsed_ms: number | null
  readonly tokens: TokenBuckets | null
  readonly cost: Cost
  /** When the final response is empty (an interrupted last turn): the last substantive reply, shown as such. */
  readonly last_substantive_reply?: string
  /** Parts of the cost shown on their own lines (Claude's warm-up probes). */
  readonly cost_lines?: ReadonlyArray<CostLine>
  /** What of the side's output passed its ceiling and was cut (ceilings.ts); absent when nothing was. */
  readonly output_cuts?: ReadonlyArray<OutputCut>
}

export interface CostLine {
  readonly label: string
  readonly usd: number | null
}

export interface ReportCandidate {
  readonly label: string
  readonly model: string | null
  readonly patch: string
  readonly final_response: string
  readonly changed_files: ReadonlyArray<ChangedFile>
  readonly worktree: string | null
  readonly elapsed_ms: number | null
  readonly tokens: (TokenBuckets & { readonly total_input: number }) | null
  readonly cost: Cost
  readonly last_substantive_reply?: string
  readonly cost_lines?: ReadonlyArray<CostLine>
  /** What was cut at a ceiling, each with its sentence; empty when nothing was. */
  readonly output_cuts: ReadonlyArray<OutputCut & { readonly note: string }>
}

/**
 * How the review was set up. `reviewer_model` is the model that judged both sides and
 * `self_review` is true when it is the replayed Codex model itself (other parts of the report, such
 * as a comparability note, read these two fields).
 */
export interface AboutReview {
  readonly evaluator: string
  readonly reviewer_model: string | null
  readonly order_balanced: boolean
  readonly orders: ReadonlyArray<string>
  readonly flips: number | null
  readonly self_review: boolean
  readonly note: string
  readonly sources: ReadonlyArray<string>
}

export interface Report {
  readonly schema_version: number
  readonly run_id: string
  readonly thread_id: string
  readonly generated_at: string
  readonly original_request: string
  readonly winner: OverallWinner
  readonly candidates: { readonly codex: ReportCandidate; readonly claude: ReportCandidate }
  readonly evaluation: Evaluation | null
  /** The reviewer's short reason per dimension from each order's ballot, letters replaced by identities. */
  readonly review_reasons: { readonly [D in DimensionId]: ReadonlyArray<RevealedReason> } | null
  readonly about_review: AboutReview
  /** What the Codex cost figure is (API equivalent, not a ChatGPT plan's bill). */
  readonly cost_note: string
  /** Whether the two sides were compared like for like; `null` for a run that recorded no facts. */
  readonly comparability: Comparability | null
  /** Whether Codex's patch is (nearly) Claude's: a possible leak, whose verdict is not counted. */
  readonly integrity: Integrity
  /** The approved checks on the start and both results, side by side; null when none was approved. */
  readonly checks: ChecksComparison | null
  /** The user's messages the task prompt was written from and how much it shares with them; null in runs that kept none. */
  readonly task_source: ReportTaskSource | null
  /** Every model call the run made, priced (docs/verdicts.md#cost); absent in reports written before it was kept. */
  readonly spend?: Spend
  /** What to weigh before acting on the verdict (`caveatsOf`); absent in reports written before it was recorded. */
  readonly caveats?: ReadonlyArray<Caveat>
  /** The outcomes of every repeat of its (thread, model) start, as they were when it was written; absent for a run that is no repeat. */
  readonly repeats?: RepeatOutcomes
}

export interface ReportInput {
  readonly run_id: string
  readonly thread_id: string
  readonly original_request: string
  readonly generated_at: string
  readonly codex: CandidateSide
  readonly claude: CandidateSide
  /** `null` when the review could not run at all. */
  readonly evaluation: Evaluation | null
  readonly reviewer_model: string | null
  /** Recorded when the run was approved. */
  readonly comparability?: ComparabilityFacts | undefined
  readonly checks?: ChecksComparison | null | undefined
  readonly task_source?: ReportTaskSource | null | undefined
  readonly spend?: Spend | undefined
  readonly repeats?: RepeatOutcomes | undefined
}

const reportCandidate = (author: Author, side: CandidateSide): ReportCandidate => ({
  label: AUTHOR_LABELS[author],
  model: side.model,
  patch: side.patch,
  final_response: side.final_response,
  changed_files: side.files.map((file) => ({
    path: file.path,
    additions: file.additions,
    deletions: file.deletions,
    ...(file.binary === true ? { binary: true, bytes: file.bytes ?? 0 } : {})
  })),
  worktree: side.worktree,
  elapsed_ms: side.elapsed_ms,
  tokens: side.tokens === null
    ? null
    : { ...side.tokens, total_input: side.tokens.ordinary_input + side.tokens.cache_read + side.tokens.cache_write },
  cost: side.cost,
  ...(side.last_substantive_reply === undefined ? {} : { last_substantive_reply: side.last_substantive_reply }),
  ...(side.cost_lines === undefined ? {} : { cost_lines: side.cost_lines }),
  output_cuts: (side.output_cuts ?? []).map((cut) => ({ ...cut, note: cutSentence(SIDE_NAMES[author], cut) }))
})

const SIDE_NAMES: Record<Author, string> = { codex: "Codex", claude: "Claude" }

export const REVIEW_SOURCES: ReadonlyArray<string> = [
  "Zheng et al. 2023, \"Judging LLM-as-a-Judge with MT-Bench and Chatbot Arena\"",
  "Wang et al. 2023, \"Large Language Models are not Fair Evaluators\"",
  "Shi et al. 2024, \"Judging the Judges\"",
  "Panickssery et al. 2024 (self-preference)",
  "Cook et al. 2024, TICK (pass/fail checklists)"
]

const ORDER_NAMES: Record<string, string> = { AB: "A/B", BA: "B/A" }

const flipSentence = (evaluation: Evaluation | null): string => {
  if (evaluation === null) return "No review ran, so there is no verdict."
  const completed = evaluation.reviews.filter((review) => review.status === "completed").length
  if (completed < 2) {
    const missing = evaluation.reviews.filter((review) => review.status !== "completed").map((review) => ORDER_NAMES[review.order])
    if (completed === 0) return `Neither order (${missing.join(", ")}) has a validated ballot: there is no verdict.`
    return `The ${missing.join(", ")} order has no validated ballot, so no dimension could be confirmed in both orders: the verdict is inconclusive.`
  }
  return `${evaluation.flips} of ${DIMENSION_IDS.length} dimensions flipped when the order was swapped; each flip counts as a tie.`
}

const reviewerSentence = (reviewerModel: string | null, selfReview: boolean): string => {
  if (reviewerModel === null) return "Disclosure: the reviewer is a Codex model judging a Codex result against Claude's."
  return selfReview
    ? `Disclosure: this is a self-review: ${reviewerModel} judged its own replay against Claude's result.`
    : `Disclosure: the reviewer (${reviewerModel}) is a Codex model judging a Codex result against Claude's, though not the replayed model itself.`
}

/** The "about this review" note: how the verdict was reached and how far to trust it (reference/judging.md). */
export const aboutReview = (evaluation: Evaluation | null, reviewerModel: string | null, implementerModel: string | null): AboutReview => {
  const model = reviewerModel === null ? "a Codex model" : `Codex (${reviewerModel})`
  const selfReview = reviewerModel === null || reviewerModel === implementerModel
  const note = [
    `The two results were reviewed blind as anonymous candidates A and B by ${model}, with authorship fingerprints removed and identities revealed only after the ballots were validated.`,
    "The review ran twice with the candidates swapped, and a dimension counts as won only when both orders agree: LLM judges are sensitive to position (GPT-4 gave the same verdict in both orders for only 65.0% of near-identical pairs, Claude-v1 for 23.8%; Zheng et al. 2023), and reordering alone let Vicuna-13B beat ChatGPT on 66 of 80 questions (Wang et al. 2023). Evidence before verdict with both orders combined raised GPT-4's agreement with humans from 52.7% to 62.5% (Wang et al.).",
    flipSentence(evaluation),
    "Each dimension is decided by pass/fail checks answered per candidate with evidence; checklists agree with humans more than direct scores (46.4% → 52.2%, TICK), and the pairwise preference only breaks ties between equal scores.",
    `${reviewerSentence(reviewerModel, selfReview)} Judges tend to prefer their own family (GPT-4 +10% win rate for itself, Claude-v1 +25%; Zheng et al. §3.3, Panickssery et al. 2024), so read a narrow Codex win with caution.`
  ].join(" ")
  return {
    evaluator: "codex",
    reviewer_model: reviewerModel,
    order_balanced: true,
    orders: ["AB", "BA"],
    flips: evaluation === null ? null : evaluation.flips,
    self_review: selfReview,
    note,
    sources: REVIEW_SOURCES
  }
}

/** One sentence per cut of either side: the review judged what was shown, not the whole. */
const cutConcerns = (input: ReportInput): ReadonlyArray<string> => [
  ...(input.codex.output_cuts ?? []).map((cut) => cutSentence(SIDE_NAMES.codex, cut)),
  ...(input.claude.output_cuts ?? []).map((cut) => cutSentence(SIDE_NAMES.claude, cut))
]

/** The content of `report.json` (docs/verdicts.md), its caveats read from the rest of it. */
export const buildReport = (input: ReportInput): Report => {
  const report = reportWithoutCaveats(input)
  const caveats = caveatsOf(caveatFactsOfReport(report))
  return {
    ...report,
    caveats,
    ...(report.repeats === undefined ? {} : { repeats: withOwnCaveats(report.repeats, report.run_id, caveats) })
  }
}

const reportWithoutCaveats = (input: ReportInput): Report => ({
  schema_version: REPORT_SCHEMA_VERSION,
  run_id: input.run_id,
  thread_id: input.thread_id,
  generated_at: input.generated_at,
  original_request: input.original_request,
  winner: input.evaluation === null ? "inconclusive" : input.evaluation.winner,
  candidates: { codex: reportCandidate("codex", input.codex), claude: reportCandidate("claude", input.claude) },
  evaluation: input.evaluation,
  review_reasons: input.evaluation === null ? null : revealedReasons(input.evaluation.reviews, AUTHOR_LABELS),
  about_review: aboutReview(input.evaluation, input.reviewer_model, input.codex.model),
  cost_note: CODEX_COST_NOTE,
  comparability: input.comparability === undefined
    ? null
    : comparabilityOf(input.comparability, input.reviewer_model, input.codex.model, cutConcerns(input)),
  integrity: integrityOf(input.codex.patch, input.claude.patch),
  checks: input.checks ?? null,
  task_source: input.task_source ?? null,
  ...(input.spend === undefined ? {} : { spend: input.spend }),
  ...(input.repeats === undefined ? {} : { repeats: input.repeats })
})
