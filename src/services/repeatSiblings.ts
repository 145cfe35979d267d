import { Effect } from "effect"
import * as path from "node:path"
import type { RepeatOutcomes } from "../domain/contracts/index.js"
import { repeatOutcomesOf } from "../domain/repeats.js"
import { repeatsSection, withRepeatsSection } from "../domain/report/repeatsHtml.js"
import type { FileStore } from "./FileStore.js"
import type { RunStore } from "./RunStore.js"

/** Reports have no size limit of their own. */
const WHOLE = Number.MAX_SAFE_INTEGER

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

/**
 * Once a repeat has completed, the Repeats section of every completed repeat of its start (its own too) is
 * brought up to date in `report.json` and `report.html`. Each report is rewritten under its lock with the
 * outcomes read inside it, so the last rewrite has the latest. Nothing is rewritten for a run that is no
 * repeat; a report that cannot be rewritten keeps the outcomes it had.
 */
export const refreshRepeatReports = (runs: RunStore, files: FileStore, runId: string): Effect.Effect<void> =>
  Effect.gen(function*() {
    const { state } = yield* runs.readAny(runId)
    const group = state.repeat?.group
    if (group === undefined) return
    const completed = (yield* runs.listAll()).filter((other) => other.repeat?.group === group && other.status === "completed")
    yield* Effect.forEach(completed, (sibling) =>
      Effect.gen(function*() {
        const directory = yield* runs.resolveDirectory(sibling.run_id)
        const html = path.join(directory, "report.html")
        yield* files.updateJson(path.join(directory, "report.json"), WHOLE, (report) =>
          Effect.gen(function*() {
            const repeats = yield* repeatsNow(runs, sibling.run_id)
            if (repeats === undefined) return report
            yield* files.writeTextAtomic(html, withRepeatsSection(yield* files.readBounded(html, WHOLE), repeatsSection(repeats)))
            return { ...report, repeats }
          }))
      }).pipe(Effect.ignore), { discard: true })
  }).pipe(Effect.ignore)
