import { Clock, Effect, Option, Stream } from "effect"
import { type BatchRecord, type RunView, summarizeBatch } from "../../domain/batch.js"
import type { RunState } from "../../domain/runState.js"
import { Batches } from "../../services/Batches.js"
import { RunStore } from "../../services/RunStore.js"
import { caveatsOfSummary } from "../../domain/report/caveats.js"
import { checksSentenceOf } from "../runs/history.js"
import { blindnessOf } from "../votes/blindness.js"

// ---------------------------------------------------------------------------------------------
// Summaries

const winnerOf = (state: RunState) => {
  const summary = state.report_summary as { winner?: unknown } | null | undefined
  return typeof summary?.winner === "string" ? summary.winner : null
}

/** The runs as the run store holds them now (this controller's as they change, others' as of the last look): no disk read. */
export const runViews = Effect.flatMap(RunStore, (runs) => Stream.runHead(runs.changes)).pipe(
  Effect.map((snapshot) =>
    new Map<string, RunView>(
      [...Option.match(snapshot, { onNone: () => [], onSome: (current) => [...current.runs.values()] })].map(({ state }) => [
        state.run_id,
        { ...state, winner: winnerOf(state), checks: checksSentenceOf(state), caveats: caveatsOfSummary(state.report_summary) }
      ])
    ))
)

/**
 * A batch ends only once every run of it ended; a run the store still holds as running is another controller's,
 * as of the store's last look. Such runs of an ended batch are read afresh, so that the summary never reports a
 * batch finished while counting a replay of it as running.
 */
export const summaryOf = (record: BatchRecord) =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const views = yield* runViews
    if (record.status !== "running") {
      const runs = yield* RunStore
      const stale = record.items.flatMap((item) => (item.run_id !== null && views.get(item.run_id)?.status === "running" ? [item.run_id] : []))
      yield* Effect.forEach(stale, (runId) =>
        Effect.match(runs.readAny(runId), {
          onFailure: () => undefined,
          onSuccess: ({ state }) => void views.set(runId, { ...state, winner: winnerOf(state), checks: checksSentenceOf(state), caveats: caveatsOfSummary(state.report_summary) })
        }), { discard: true })
    }
    const waiting = record.status === "running" ? yield* (yield* Batches).waitingOf(record.batch_id) : Option.none<string>()
    const summary = summarizeBatch(record, views, now)
    const runRoot = (yield* RunStore).runRoot
    return {
      ...summary,
      // Completed items only: two existence checks each, so the page can keep a verdict not yet revealed from view.
      items: yield* Effect.forEach(summary.items, (item) => Effect.map(blindnessOf(runRoot, item), (blindness) => ({ ...item, ...blindness })), { concurrency: 8 }),
      waiting_for: Option.isSome(waiting) ? "disk_space" as const : null,
      status_note: Option.getOrNull(waiting)
    }
  })
