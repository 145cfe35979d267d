/**
 * The cost estimate shown before approval (docs/verdicts.md#cost): the implementation and the two
 * review orders of every run, priced like the runs' own ledgers. It is an estimate, always said with
 * its basis: earlier runs of the same thread and model when there are some, otherwise the thread's
 * size (Claude's recorded tokens as the implementation's proxy, the size of Claude's result for the review).
 */
import { Schema } from "effect"
import { type CodexPriceTable, codexPriceOf } from "./codexPricing.js"
import type { TokenBuckets } from "./report/tokens.js"
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
  earlier_runs: Schema.Number
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

/** An earlier completed run of the same thread and model, from its ledger. */
export interface EarlierRun {
  readonly thread_id: string
  readonly model: string
  readonly implementation_usd: number
  readonly evaluation_usd: number
}

/** One review order's tokens for two candidates the size of Claude's result. */
export const reviewOrderTokens = (resultChars: number): TokenBuckets => ({
  ordinary_input: REVIEW_TURNS * (REVIEW_PROMPT_TOKENS + Math.ceil((2 * resultChars) / CHARS_PER_TOKEN)),
  cache_read: 0,
  cache_write: 0,
  output: REVIEW_OUTPUT_TOKENS
})

const mean = (values: ReadonlyArray<number>) => values.reduce((sum, value) => sum + value, 0) / values.length

type Part = { readonly part: EstimatePart } | { readonly missing: string }

const partOf = (
  thread: ThreadSize,
  model: string,
  reviewer: string,
  earlier: ReadonlyArray<EarlierRun>,
  prices: CodexPriceTable
): Part => {
  const same = earlier.filter((run) => run.thread_id === thread.thread_id && run.model === model)
  if (same.length > 0) {
    return {
      part: {
        thread_id: thread.thread_id,
        model,
        implementation_usd: mean(same.map((run) => run.implementation_usd)),
        evaluation_usd: mean(same.map((run) => run.evaluation_usd)),
        basis: "earlier_runs",
        earlier_runs: same.length
      }
    }
  }
  if (thread.claude_tokens === null) return { missing: `Claude's tokens for ${thread.thread_id} are not recorded and it has no earlier run with ${model}` }
  const implementation = pricedCall("implementation", "implementation", model, thread.claude_tokens, prices).cost_usd
  const order = pricedCall("review", "review", reviewer, reviewOrderTokens(thread.result_chars), prices).cost_usd
  if (implementation === null || order === null) return { missing: `${implementation === null ? model : reviewer} has no price` }
  return {
    part: { thread_id: thread.thread_id, model, implementation_usd: implementation, evaluation_usd: 2 * order, basis: "thread_size", earlier_runs: 0 }
  }
}

const basisText = (parts: ReadonlyArray<EstimatePart>) => {
  const earlier = parts.filter((part) => part.basis === "earlier_runs")
  const fromSize = parts.length - earlier.length
  const pieces = [
    ...(earlier.length === 0 ? [] : [`${earlier.length === parts.length ? "" : `${earlier.length} run(s): `}the mean of ${earlier.reduce((sum, part) => sum + part.earlier_runs, 0)} earlier run(s) of the same thread and model`]),
    ...(fromSize === 0 ? [] : [`${earlier.length === 0 ? "" : `${fromSize} run(s): `}the thread's size (Claude's recorded tokens priced at the Codex model's rates, and two review orders reading results the size of Claude's)`])
  ]
  return pieces.join("; ")
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
}): CostEstimate => {
  const unpriced = [...new Set([...input.threads.flatMap((thread) => thread.models), input.reviewer])]
    .filter((model) => codexPriceOf(model, input.prices) === undefined)
  const results = input.threads.flatMap((thread) => thread.models.map((model) => partOf(thread.size, model, input.reviewer, input.earlier, input.prices)))
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
    } for two review orders per run, at API-equivalent prices). An estimate from ${basisText(parts)}; the real cost is counted per call in each report.`
  }
}
