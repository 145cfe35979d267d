import { Effect, Ref } from "effect"
import type { CodexPriceTable } from "../domain/codexPricing.js"
import type { WorkerError } from "../domain/errors.js"
import { codexCall, type ModelCall, type Spend, spendOf } from "../domain/spend.js"

/**
 * The calls of one run as its pipeline makes them (docs/verdicts.md#cost): the implementation's failed
 * attempts that reported tokens, the implementation, the request's reconstruction when the run carries
 * it, the reviewer's calls. Another kind of call is one more `add`.
 */
export interface RunLedger {
  readonly add: (calls: ReadonlyArray<ModelCall>) => Effect.Effect<void>
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
    const add = (more: ReadonlyArray<ModelCall>) => Ref.update(calls, (all) => [...all, ...more])
    return {
      add,
      failedAttempt: (error, attempt) =>
        error.usage === undefined
          ? Effect.void
          : add([codexCall("implementation", `implementation:attempt-${attempt} (failed)`, model, error.usage, prices)]),
      spend: Effect.map(Ref.get(calls), spendOf)
    }
  })

/** The completed implementation's call. */
export const implementationCall = (model: string, usage: Parameters<typeof codexCall>[3], prices: CodexPriceTable) =>
  codexCall("implementation", "implementation", model, usage, prices)
