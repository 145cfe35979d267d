import { Effect } from "effect"
import type { RepeatOutcomes } from "../domain/contracts/index.js"
import { repeatOutcomesOf } from "../domain/repeats.js"
import type { RunStore } from "./RunStore.js"

/**
 * The outcomes of every repeat of run `runId`'s (thread, model) start as the run root has them now;
 * `undefined` for a run that is no repeat, or when the run root cannot be read (the repeats are then not shown).
 * `own` is the run's own winner while its report is being written.
 */
export const repeatsNow = (runs: RunStore, runId: string, own?: { readonly winner: string }): Effect.Effect<RepeatOutcomes | undefined> =>
  Effect.gen(function*() {
    const { state } = yield* runs.readAny(runId)
    if (state.repeat === undefined) return undefined
    return repeatOutcomesOf(state, yield* runs.listAll(), own)
  }).pipe(Effect.orElseSucceed(() => undefined))
