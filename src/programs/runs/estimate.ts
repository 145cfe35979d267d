import { Effect, Schema } from "effect"
import { type CostEstimate, type EarlierRun, estimateCost, type ThreadSize } from "../../domain/estimate.js"
import type { RunConfiguration } from "../../domain/runConfig.js"
import type { RunState } from "../../domain/runState.js"
import { SpendLine } from "../../domain/spend.js"
import { RunStore } from "../../services/RunStore.js"
import { Settings } from "../../services/Settings.js"
import type { Historical } from "./historical.js"

const Sums = Schema.Struct({ implementation: SpendLine, evaluation: SpendLine })

/** A completed run of the same range whose every call was priced: a basis for the estimate. */
const earlierRunOf = (state: RunState): ReadonlyArray<EarlierRun> => {
  if (state.status !== "completed" || typeof state.thread_id !== "string" || typeof state.model !== "string") return []
  const summary = state.report_summary as { spend?: unknown } | null | undefined
  const decoded = Schema.decodeUnknownOption(Sums)(summary?.spend)
  if (decoded._tag === "None" || decoded.value.implementation.unpriced_calls + decoded.value.evaluation.unpriced_calls > 0) return []
  const key = `${state.thread_id}\u0000${state.range_start ?? ""}\u0000${state.range_end ?? ""}`
  return [{ thread_id: key, model: state.model, implementation_usd: decoded.value.implementation.usd, evaluation_usd: decoded.value.evaluation.usd }]
}

/** The same key for a configuration: its thread and its range (a chunk's earlier runs are that chunk's). */
const keyOf = (configuration: RunConfiguration) => `${configuration.thread_id}\u0000${configuration.range_start ?? ""}\u0000${configuration.range_end ?? ""}`

export const threadSizeOf = (configuration: RunConfiguration, historical: Historical): ThreadSize => ({
  thread_id: keyOf(configuration),
  claude_tokens: historical.claude.tokens,
  result_chars: historical.claude.patch.length + historical.claude.final_response.length
})

/**
 * The estimate of what approving would cost: every thread × model of `threads`, reviewed by `reviewer`.
 * A second judge is named but not priced: Claude Code prices its own calls, which each report counts.
 */
export const estimateRuns = (
  threads: ReadonlyArray<{ readonly size: ThreadSize; readonly models: ReadonlyArray<string> }>,
  reviewer: string,
  secondJudge: string | null | undefined = undefined
): Effect.Effect<CostEstimate, never, RunStore | Settings> =>
  Effect.gen(function*() {
    const settings = yield* Settings
    const states = yield* Effect.orElseSucceed((yield* RunStore).listAll(), () => [])
    const estimate = estimateCost({ threads, reviewer, earlier: states.flatMap(earlierRunOf), prices: settings.codexPriceOverrides ?? {} })
    // The keys name the range too; the parts name the thread only.
    const judged = secondJudge === null || secondJudge === undefined
      ? ""
      : ` The second judge (${secondJudge}) is not in it: Claude Code prices its own calls, and each report counts them.`
    return {
      ...estimate,
      text: `${estimate.text}${judged}`,
      parts: estimate.parts.map((part) => ({ ...part, thread_id: part.thread_id.split("\u0000")[0] ?? part.thread_id }))
    }
  })
