/**
 * The run's spend ledger (docs/verdicts.md#cost): every model call a run makes, its tokens and its
 * API-equivalent price, and the sum split into the implementation (what is compared with Claude) and
 * the evaluation (everything else: what the user paid to know which side did better).
 */
import { Schema } from "effect"
import { type CodexPriceTable, codexCost } from "./codexPricing.js"
import { formatUsd } from "./report/format.js"
import { type TokenBuckets, tokensFromCodexUsage } from "./report/tokens.js"

/** Why a call was made. A new kind of call (another judge) adds its name here and nothing else. */
export const CALL_PURPOSES = ["implementation", "review", "review_asked_again", "reconstruction", "second_judge"] as const
export const CallPurpose = Schema.Literal(...CALL_PURPOSES)
export type CallPurpose = typeof CallPurpose.Type

export const TokenBucketsSchema = Schema.Struct({
  ordinary_input: Schema.Number,
  cache_read: Schema.Number,
  cache_write: Schema.Number,
  output: Schema.Number
})

/** One model call: what it was for, its tokens and its price (`null`, with the reason, when the model has none). */
export const ModelCall = Schema.Struct({
  purpose: CallPurpose,
  /** e.g. `implementation`, `review:ab`, `review:ba:asked-again`, `implementation:attempt-1 (failed)`. */
  label: Schema.String,
  model: Schema.String,
  tokens: TokenBucketsSchema,
  cost_usd: Schema.NullOr(Schema.Number),
  /** Why `cost_usd` is null. */
  unpriced_reason: Schema.optional(Schema.String)
})
export type ModelCall = typeof ModelCall.Type

/** A sum of calls: the dollars of the priced ones, how many there were and how many had no price. */
export const SpendLine = Schema.Struct({
  usd: Schema.Number,
  calls: Schema.Number,
  unpriced_calls: Schema.Number
})
export type SpendLine = typeof SpendLine.Type

/** The tokens of a run's calls: input with cache reads and writes, and output (what `runs` and `batch` show). */
export const TokenTotals = Schema.Struct({ input: Schema.Number, output: Schema.Number })
export type TokenTotals = typeof TokenTotals.Type

/** The ledger as `run.json`, the report and the run's summary keep it. */
export const Spend = Schema.Struct({
  calls: Schema.Array(ModelCall),
  implementation: SpendLine,
  /** Every call that is not the implementation: reviews, asked-again reviews, reconstruction, other judges. */
  evaluation: SpendLine,
  total: SpendLine
})
export type Spend = typeof Spend.Type

export interface Usage {
  readonly input: number
  readonly cached_input: number
  readonly cache_write: number
  readonly output: number
}

/** A Codex call priced from its usage: the override file first, then the pricing table. */
export const codexCall = (
  purpose: CallPurpose,
  label: string,
  model: string,
  usage: Usage,
  overrides: CodexPriceTable
): ModelCall => pricedCall(purpose, label, model, tokensFromCodexUsage(usage), overrides)

export const pricedCall = (
  purpose: CallPurpose,
  label: string,
  model: string,
  tokens: TokenBuckets,
  overrides: CodexPriceTable
): ModelCall => {
  const cost = codexCost(model, tokens, overrides)
  return cost.usd === null
    ? { purpose, label, model, tokens, cost_usd: null, unpriced_reason: cost.reason }
    : { purpose, label, model, tokens, cost_usd: cost.usd }
}

const line = (calls: ReadonlyArray<ModelCall>): SpendLine => ({
  usd: calls.reduce((sum, call) => sum + (call.cost_usd ?? 0), 0),
  calls: calls.length,
  unpriced_calls: calls.filter((call) => call.cost_usd === null).length
})

/**
 * The sums of the review orders (asked-again included) with the reviewer's model, and of the second judge:
 * what the estimate of a later run of the same thread reads (src/domain/estimate.ts), never folded together.
 */
export const purposeLines = (calls: ReadonlyArray<ModelCall>) => {
  const reviews = calls.filter((call) => call.purpose === "review" || call.purpose === "review_asked_again")
  const models = [...new Set(reviews.map((call) => call.model))]
  return {
    review: { ...line(reviews), model: models.length === 1 ? models[0]! : null },
    second_judge: line(calls.filter((call) => call.purpose === "second_judge"))
  }
}

/** The ledger of a run's calls. */
export const spendOf = (calls: ReadonlyArray<ModelCall>): Spend => ({
  calls,
  implementation: line(calls.filter((call) => call.purpose === "implementation")),
  evaluation: line(calls.filter((call) => call.purpose !== "implementation")),
  total: line(calls)
})

export { formatUsd }

/** `$0.120`, `$0.120 + 1 call not priced`, `not priced (1 call)` or `nothing` (no call). */
export const spendLineText = (spend: SpendLine) => {
  if (spend.calls === 0) return "nothing"
  if (spend.unpriced_calls === spend.calls) return `not priced (${spend.calls} call${spend.calls === 1 ? "" : "s"})`
  const unpriced = spend.unpriced_calls === 0 ? "" : ` + ${spend.unpriced_calls} call${spend.unpriced_calls === 1 ? "" : "s"} not priced`
  return `${formatUsd(spend.usd)}${unpriced}`
}

/** "Evaluation (what it cost to know): $0.090 in 2 calls" for the CLI and the report. */
export const evaluationText = (spend: Spend) =>
  `Evaluation (what it cost to know): ${spendLineText(spend.evaluation)} in ${spend.evaluation.calls} call${spend.evaluation.calls === 1 ? "" : "s"}`

/**
 * The call that reconstructed a run's request, from the request's generation (`synthesize_request`);
 * `undefined` when no model wrote it or its tokens were not kept. It goes into the run's `reconstruction`.
 */
export const reconstructionCall = (
  synthesis: { readonly model: string; readonly usage: Usage } | null | undefined,
  prices: CodexPriceTable
): ModelCall | undefined =>
  synthesis === null || synthesis === undefined
    ? undefined
    : codexCall("reconstruction", "prompt-synthesis", synthesis.model, synthesis.usage, prices)

/** The second judge's calls (Claude Code prices them itself; a call it did not price says so). */
export const secondJudgeCalls = (
  calls: ReadonlyArray<{ readonly label: string; readonly model: string | null; readonly tokens: TokenBuckets; readonly cost_usd: number | null }>
): Array<ModelCall> =>
  calls.map((call) => ({
    purpose: "second_judge",
    label: call.label,
    model: call.model ?? "claude",
    tokens: call.tokens,
    cost_usd: call.cost_usd,
    ...(call.cost_usd === null ? { unpriced_reason: "Claude Code reported no cost for this call." } : {})
  }))

/** Reads a ledger kept in an older or foreign file; `undefined` when there is none. */
export const decodeSpend = (value: unknown): Spend | undefined => {
  const decoded = Schema.decodeUnknownOption(Spend)(value)
  return decoded._tag === "Some" ? decoded.value : undefined
}
