import { Effect, Ref } from "effect"
import type { CodexPriceTable } from "../domain/codexPricing.js"
import type { WorkerError } from "../domain/errors.js"
import { codexCall, type ModelCall, purposeLines, type Spend, spendOf, type Usage } from "../domain/spend.js"

import { totalInput } from "../domain/report/tokens.js"
export type { ModelCall } from "../domain/spend.js"

/**
 * The calls of one run as its pipeline makes them (docs/verdicts.md#cost): the implementation's failed
 * attempts that reported tokens, the implementation, the request's reconstruction when the run carries
 * it, the reviewer's calls. Another kind of call is one more `add`.
 */
export interface RunLedger {
  /** Adds calls; answers the ledger with them. */
  readonly add: (calls: ReadonlyArray<ModelCall>) => Effect.Effect<Spend>
  /** The completed implementation's call; answers the ledger with it. */
  readonly implemented: (usage: Usage) => Effect.Effect<Spend>
  /** A failed implementation attempt: counted when Codex reported its tokens. */
  readonly failedAttempt: (error: WorkerError, attempt: number) => Effect.Effect<void>
  readonly spend: Effect.Effect<Spend>
}

/**
 * The ledger of one run. `save`, when given, is told the whole ledger after every addition (uninterruptibly,
 * one after the other), so every recorded call is on disk even when the run fails, times out or is cancelled later.
 */
export const makeRunLedger = (
  model: string,
  prices: CodexPriceTable,
  reconstruction: ModelCall | undefined,
  save: (spend: Spend) => Effect.Effect<void> = () => Effect.void
): Effect.Effect<RunLedger> =>
  Effect.gen(function*() {
    const calls = yield* Ref.make<ReadonlyArray<ModelCall>>(reconstruction === undefined ? [] : [reconstruction])
    const one = yield* Effect.makeSemaphore(1)
    const add = (more: ReadonlyArray<ModelCall>): Effect.Effect<Spend> =>
      Effect.uninterruptible(one.withPermits(1)(
        Effect.flatMap(Ref.updateAndGet(calls, (all) => [...all, ...more]), (all) => Effect.as(save(spendOf(all)), spendOf(all)))
      ))
    return {
      add,
      implemented: (usage) => add([codexCall("implementation", "implementation", model, usage, prices)]),
      failedAttempt: (error, attempt) =>
        error.usage === undefined
          ? Effect.void
          : Effect.asVoid(add([codexCall("implementation", `implementation:attempt-${attempt} (failed)`, model, error.usage, prices)])),
      spend: Effect.map(Ref.get(calls), spendOf)
    } satisfies RunLedger
  })

/** The sums a run's state keeps of its ledger (its summary's `spend` while no report exists). */
export const spendLines = (spend: Spend) => ({
  implementation: spend.implementation,
  evaluation: spend.evaluation,
  total: spend.total,
  ...purposeLines(spend.calls),
  /** Every call's tokens: input with cache reads and writes, and output (what `codex-replay runs` shows). */
  tokens: {
    input: spend.calls.reduce((sum, call) => sum + totalInput(call.tokens), 0),
    output: spend.calls.reduce((sum, call) => sum + call.tokens.output, 0)
  }
})
