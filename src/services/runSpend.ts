import { Effect, Ref } from "effect"
import type { CodexPriceTable } from "../domain/codexPricing.js"
import type { WorkerError } from "../domain/errors.js"
import { codexCall, type ModelCall, type Spend, spendOf, type Usage } from "../domain/spend.js"

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

export const makeRunLedger = (
  model: string,
  prices: CodexPriceTable,
  reconstruction: ModelCall | undefined
): Effect.Effect<RunLedger> =>
  Effect.map(Ref.make<ReadonlyArray<ModelCall>>(reconstruction === undefined ? [] : [reconstruction]), (calls) => {
    const add = (more: ReadonlyArray<ModelCall>) => Effect.map(Ref.updateAndGet(calls, (all) => [...all, ...more]), spendOf)
    return {
      add,
      implemented: (usage) => add([codexCall("implementation", "implementation", model, usage, prices)]),
      failedAttempt: (error, attempt) =>
        error.usage === undefined
          ? Effect.void
          : Effect.asVoid(add([codexCall("implementation", `implementation:attempt-${attempt} (failed)`, model, error.usage, prices)])),
      spend: Effect.map(Ref.get(calls), spendOf)
    }
  })
