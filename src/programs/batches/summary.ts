import { Clock, Effect, Option, Stream } from "effect"
import { type BatchRecord, type RunView, summarizeBatch } from "../../domain/batch.js"
import type { RunState } from "../../domain/runState.js"
import { RunStore } from "../../services/RunStore.js"

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
        { ...state, winner: winnerOf(state) }
      ])
    ))
)

export const summaryOf = (record: BatchRecord) =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    return summarizeBatch(record, yield* runViews, now)
  })
