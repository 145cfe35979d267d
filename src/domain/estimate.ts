/**
 * The cost estimate shown before approval (docs/verdicts.md#cost): the implementation and the two
 * review orders of every run, and the second judge's two orders when one is asked for, priced like the runs'
 * own ledgers. It is an estimate, always said with its basis: earlier runs of the same thread (the same model
 * for the implementation, the same reviewer for the review, a second judge for the second judge) when there
 * are some, otherwise the thread's size (Claude's recorded tokens as the implementation's proxy, the size of
 * Claude's result for the review and the second judge, the latter at Claude's API prices).
 */
import { Schema } from "effect"
import { type CodexPriceTable, codexPriceOf } from "./codexPricing.js"
import type { TokenBuckets } from "./report/tokens.js"
import { type ModelPrice, priceOf, responseCost } from "./history/pricing.js"
import { formatUsd, pricedCall } from "./spend.js"

/** One review order's assumed size: the rubric and instructions, and the turns in which the reviewer reads both candidates. */
export const REVIEW_PROMPT_TOKENS = 4_000
export const REVIEW_TURNS = 3
export const REVIEW_OUTPUT_TOKENS = 4_000
/** Characters per token for the candidates' text. */
export const CHARS_PER_TOKEN = 4

export const EstimatePart = Schema.Struct({
  thread_id: Schema.String,
  model: Schema.String,
  implementation_usd: Schema.Number,
  evaluation_usd: Schema.Number,
  /** `earlier_runs`: the mean of this thread's earlier runs with this model; `thread_size`: from Claude's tokens and result. */
  basis: Schema.Literal("earlier_runs", "thread_size"),
  earlier_runs: Schema.Number,
  /** The review's own basis: earlier runs of the same thread with the same reviewer, or the thread's size. */
  review_basis: Schema.optional(Schema.Literal("earlier_runs", "thread_size")),
  review_earlier_runs: Schema.optional(Schema.Number),
  /** The second judge's part of `evaluation_usd`, when one was asked for. */
  second_judge_usd: Schema.optional(Schema.Number),
  second_judge_basis: Schema.optional(Schema.Literal("earlier_runs", "thread_size"))
})
export type EstimatePart = typeof EstimatePart.Type

export const CostEstimate = Schema.Struct({
  /** `null` when some part cannot be priced; `text` then says which. */
  usd: Schema.NullOr(Schema.Number),
  implementation_usd: Schema.NullOr(Schema.Number),
  evaluation_usd: Schema.NullOr(Schema.Number),
  parts: Schema.Array(EstimatePart),
  /** One sentence: the figure, its split and its basis, or "no estimate: …". */
  text: Schema.String
})
export type CostEstimate = typeof CostEstimate.Type

/** What one thread brings to the estimate. */
export interface ThreadSize {
  readonly thread_id: string
  /** Claude's recorded tokens for the replayed range; `null` when not recorded. */
  readonly claude_tokens: TokenBuckets | null
  /** Characters of Claude's patch and final response: the review reads two results of about this size. */
  readonly result_chars: number
}

/** An earlier run of the same thread, from its ledger's sums: each part only when all its calls were priced. */
export interface EarlierRun {
  readonly thread_id: string
  readonly model: string
  /** Its implementation; null when a call had no price. */
  readonly implementation_usd: number | null
  /** Its review orders (asked-again included) and the reviewer's model; null when not kept apart or not all priced. */
  readonly review: { readonly model: string; readonly usd: number } | null
  /** Its second judge's calls, when one ran and every call was priced. */
  readonly second_judge_usd: number | null
}

/** One review order's tokens for two candidates the size of Claude's result. */
export const reviewOrderTokens = (resultChars: number): TokenBuckets => ({
  ordinary_input: REVIEW_TURNS * (REVIEW_PROMPT_TOKENS + Math.ceil((2 * resultChars) / CHARS_PER_TOKEN)),
  cache_read: 0,
  cache_write: 0,
  output: REVIEW_OUTPUT_TOKENS
})

/** The Claude model a second judge whose model is not named (or not known) is priced as. */
export const DEFAULT_JUDGE_PRICE_MODEL = "claude-sonnet-4-6"
const JUDGE_ALIASES: Readonly<Record<string, string>> = { sonnet: "claude-sonnet-4-6", opus: "claude-opus-4-7", haiku: "claude-haiku-4-5" }

/** The second judge as the estimate prices it: `claude[:MODEL]`, its Claude price, and whether that price is assumed. */
export interface JudgePricing {
  readonly text: string
  readonly priceModel: string
  readonly price: ModelPrice
  readonly assumed: boolean
}

export const judgePricing = (secondJudge: string): JudgePricing => {
  const colon = secondJudge.indexOf(":")
  const named = colon < 0 ? "" : secondJudge.slice(colon + 1).trim()
  const model = JUDGE_ALIASES[named.toLowerCase()] ?? named
  const known = model === "" ? undefined : priceOf(model)
  return known === undefined
    ? { text: secondJudge, priceModel: DEFAULT_JUDGE_PRICE_MODEL, price: priceOf(DEFAULT_JUDGE_PRICE_MODEL)!, assumed: true }
    : { text: secondJudge, priceModel: model, price: known, assumed: false }
}

/** The second judge's two orders from the result's size, at its Claude price. */
const judgeFromSize = (judge: JudgePricing, resultChars: number) => {
  const tokens = reviewOrderTokens(resultChars)
  return 2 * responseCost(judge.price, { input: tokens.ordinary_input, cache_read: 0, cache_write_5m: 0, cache_write_1h: 0, output: tokens.output }, false)
}

const mean = (values: ReadonlyArray<number>) => values.reduce((sum, value) => sum + value, 0) / values.length

type Part = { readonly part: EstimatePart } | { readonly missing: string }

/**
 * One run's part, each piece compared like with like: the implementation from earlier runs of the same thread
 * and model, the review from earlier runs of the same thread with the same reviewer, the second judge from
 * earlier runs of the same thread that had one; each from the thread's size otherwise.
 */
const partOf = (
  thread: ThreadSize,
  model: string,
  reviewer: string,
  judge: JudgePricing | null,
  earlier: ReadonlyArray<EarlierRun>,
  prices: CodexPriceTable
): Part => {
  const ofThread = earlier.filter((run) => run.thread_id === thread.thread_id)
  const implementations = ofThread.flatMap((run) => (run.model === model && run.implementation_usd !== null ? [run.implementation_usd] : []))
  const reviews = ofThread.flatMap((run) => (run.review !== null && run.review.model === reviewer ? [run.review.usd] : []))
  const judged = judge === null ? [] : ofThread.flatMap((run) => (run.second_judge_usd === null ? [] : [run.second_judge_usd]))
  const implementation = implementations.length > 0
    ? mean(implementations)
    : thread.claude_tokens === null
    ? undefined
    : pricedCall("implementation", "implementation", model, thread.claude_tokens, prices).cost_usd
  if (implementation === undefined) return { missing: `Claude's tokens for ${thread.thread_id} are not recorded and it has no earlier run with ${model}` }
  const review = reviews.length > 0 ? mean(reviews) : (() => {
    const order = pricedCall("review", "review", reviewer, reviewOrderTokens(thread.result_chars), prices).cost_usd
    return order === null ? null : 2 * order
  })()
  if (implementation === null || review === null) return { missing: `${implementation === null ? model : reviewer} has no price` }
  const secondJudge = judge === null ? 0 : judged.length > 0 ? mean(judged) : judgeFromSize(judge, thread.result_chars)
  return {
    part: {
      thread_id: thread.thread_id,
      model,
      implementation_usd: implementation,
      evaluation_usd: review + secondJudge,
      basis: implementations.length > 0 ? "earlier_runs" : "thread_size",
      earlier_runs: implementations.length,
      review_basis: reviews.length > 0 ? "earlier_runs" : "thread_size",
      review_earlier_runs: reviews.length,
      ...(judge === null ? {} : { second_judge_usd: secondJudge, second_judge_basis: judged.length > 0 ? "earlier_runs" as const : "thread_size" as const })
    }
  }
}

/** Each (thread, model) once: the repeats of one are priced from the same earlier runs. */
const distinctEarlierRuns = (parts: ReadonlyArray<EstimatePart>) =>
  [...new Map(parts.map((part) => [`${part.thread_id}\u0000${part.model}`, part.earlier_runs])).values()].reduce((sum, runs) => sum + runs, 0)

const basisText = (parts: ReadonlyArray<EstimatePart>, reviewer: string) => {
  const earlier = parts.filter((part) => part.basis === "earlier_runs")
  const fromSize = parts.length - earlier.length
  const reviewed = parts.filter((part) => part.review_basis === "earlier_runs")
  const pieces = [
    ...(earlier.length === 0 ? [] : [`${earlier.length === parts.length ? "" : `${earlier.length} run(s): `}the mean of ${distinctEarlierRuns(earlier)} earlier run(s) of the same thread and model`]),
    ...(fromSize === 0 ? [] : [`${earlier.length === 0 ? "" : `${fromSize} run(s): `}the thread's size (Claude's recorded tokens priced at the Codex model's rates, and two review orders reading results the size of Claude's)`]),
    ...(reviewed.length === 0 ? [] : [`the review${reviewed.length === parts.length ? "" : ` of ${reviewed.length} run(s)`}: earlier runs of the same thread reviewed by ${reviewer}`])
  ]
  return pieces.join("; ")
}

const judgeText = (parts: ReadonlyArray<EstimatePart>, judge: JudgePricing | null) => {
  if (judge === null) return ""
  const usd = parts.reduce((sum, part) => sum + (part.second_judge_usd ?? 0), 0)
  const earlier = parts.every((part) => part.second_judge_basis === "earlier_runs")
  const basis = earlier
    ? "its earlier runs on the same thread"
    : `the result's size at ${judge.priceModel}'s API prices${judge.assumed ? `, assumed because ${judge.text} names no model whose price is known` : ""}`
  return ` and the second judge's two orders (${judge.text}), about ${formatUsd(usd)} from ${basis}`
}

/**
 * The estimate of every run a start (or batch) would make: each thread × model, implementation plus two
 * review orders by `reviewer`. Unpriced models or unknown sizes give no figure, and the text says why.
 */
export const estimateCost = (input: {
  readonly threads: ReadonlyArray<{ readonly size: ThreadSize; readonly models: ReadonlyArray<string> }>
  readonly reviewer: string
  readonly earlier: ReadonlyArray<EarlierRun>
  readonly prices: CodexPriceTable
  /** The second judge asked for (`claude` or `claude:MODEL`), priced into the evaluation; none when absent. */
  readonly secondJudge?: string | null | undefined
}): CostEstimate => {
  const judge = input.secondJudge === null || input.secondJudge === undefined ? null : judgePricing(input.secondJudge)
  const unpriced = [...new Set([...input.threads.flatMap((thread) => thread.models), input.reviewer])]
    .filter((model) => codexPriceOf(model, input.prices) === undefined)
  const results = input.threads.flatMap((thread) => thread.models.map((model) => partOf(thread.size, model, input.reviewer, judge, input.earlier, input.prices)))
  const parts = results.flatMap((result) => ("part" in result ? [result.part] : []))
  const missing = [...new Set(results.flatMap((result) => ("missing" in result ? [result.missing] : [])))]
  if (missing.length > 0 || parts.length === 0) {
    const why = unpriced.length > 0 ? unpriced.map((model) => `${model} has no price`) : missing
    return { usd: null, implementation_usd: null, evaluation_usd: null, parts, text: `No estimate: ${why.join("; ") || "nothing to run"}.` }
  }
  const implementation = parts.reduce((sum, part) => sum + part.implementation_usd, 0)
  const evaluation = parts.reduce((sum, part) => sum + part.evaluation_usd, 0)
  const runs = parts.length
  return {
    usd: implementation + evaluation,
    implementation_usd: implementation,
    evaluation_usd: evaluation,
    parts,
    text: `Estimated cost: about ${formatUsd(implementation + evaluation)} for ${runs} run${runs === 1 ? "" : "s"} (Codex implementation ${formatUsd(implementation)}, evaluation ${
      formatUsd(evaluation)
    } for two review orders per run${judgeText(parts, judge)}, at API-equivalent prices). An estimate from ${basisText(parts, input.reviewer)}; the real cost is counted per call in each report.`
  }
}
