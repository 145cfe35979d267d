import { Effect, Schema } from "effect"
import { type CostEstimate, type EarlierRun, estimateCost, type ThreadSize } from "../../domain/estimate.js"
import type { RunConfiguration } from "../../domain/runConfig.js"
import type { RunState } from "../../domain/runState.js"
import { SpendLine } from "../../domain/spend.js"
import { RunStore } from "../../services/RunStore.js"
import { Settings } from "../../services/Settings.js"
import type { Historical } from "./historical.js"

const Sums = Schema.Struct({
  implementation: SpendLine,
  evaluation: SpendLine,
  /** Kept apart since the estimate compares like with like; absent in older runs' summaries. */
  review: Schema.optional(Schema.Struct({ ...SpendLine.fields, model: Schema.NullOr(Schema.String) })),
  second_judge: Schema.optional(SpendLine)
})

const allPriced = (line: SpendLine) => line.unpriced_calls === 0

/**
 * A completed run of the same range, as a basis for the estimate: its implementation when every such call was
 * priced; its review only when its summary keeps the review orders apart with one reviewer model (an older
 * summary's evaluation may hold a second judge or a reconstruction, so it is not used); its second judge when
 * one ran and was priced. A reconstruction is never part of any.
 */
const earlierRunOf = (state: RunState): ReadonlyArray<EarlierRun> => {
  if (state.status !== "completed" || typeof state.thread_id !== "string" || typeof state.model !== "string") return []
  const summary = state.report_summary as { spend?: unknown } | null | undefined
  const decoded = Schema.decodeUnknownOption(Sums)(summary?.spend)
  if (decoded._tag === "None") return []
  const { implementation, review, second_judge } = decoded.value
  const key = `${state.thread_id}\u0000${state.range_start ?? ""}\u0000${state.range_end ?? ""}`
  return [{
    thread_id: key,
    model: state.model,
    implementation_usd: allPriced(implementation) && implementation.calls > 0 ? implementation.usd : null,
    review: review !== undefined && review.model !== null && review.calls > 0 && allPriced(review) ? { model: review.model, usd: review.usd } : null,
    second_judge_usd: second_judge !== undefined && second_judge.calls > 0 && allPriced(second_judge) ? second_judge.usd : null
  }]
}

/** The same key for a configuration: its thread and its range (a chunk's earlier runs are that chunk's). */
const keyOf = (configuration: RunConfiguration) => `${configuration.thread_id}\u0000${configuration.range_start ?? ""}\u0000${configuration.range_end ?? ""}`

export const threadSizeOf = (configuration: RunConfiguration, historical: Historical): ThreadSize => ({
  thread_id: keyOf(configuration),
  claude_tokens: historical.claude.tokens,
  result_chars: historical.claude.patch.length + historical.claude.final_response.length
})

/**
 * The estimate of what approving would cost: every thread × model of `threads`, reviewed by `reviewer`, and
 * judged again by `secondJudge` when asked (src/domain/estimate.ts).
 */
export const estimateRuns = (
  threads: ReadonlyArray<{ readonly size: ThreadSize; readonly models: ReadonlyArray<string> }>,
  reviewer: string,
  secondJudge: string | null | undefined = undefined
): Effect.Effect<CostEstimate, never, RunStore | Settings> =>
  Effect.gen(function*() {
    const settings = yield* Settings
    const states = yield* Effect.orElseSucceed((yield* RunStore).listAll(), () => [])
    const estimate = estimateCost({ threads, reviewer, earlier: states.flatMap(earlierRunOf), prices: settings.codexPriceOverrides ?? {}, secondJudge })
    // The keys name the range too; the parts name the thread only.
    return {
      ...estimate,
      parts: estimate.parts.map((part) => ({ ...part, thread_id: part.thread_id.split("\u0000")[0] ?? part.thread_id }))
    }
  })
