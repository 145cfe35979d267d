import { Effect } from "effect"
import { type RunState, runTagOf } from "../domain/runState.js"
import { isSameProcess } from "../services/internal/procfs.js"
import { removeAbandonedTemporaryRoots } from "../services/internal/temporaryRoot.js"
import { ProcessRunner } from "../services/ProcessRunner.js"
import { RunStore } from "../services/RunStore.js"
import { Settings } from "../services/Settings.js"

const interruptedDetails = (summary: string) => ({
  error: summary,
  interrupted: true,
  interruption_reason: "coordinator_stopped",
  failure_diagnostic: { controller_code: "coordinator_stopped", worker_stage: "outside_worker" }
})

/** Marks a running run as failed because its coordinator stopped; a run that already ended is left alone. */
export const markInterrupted = (state: RunState, summary: string) =>
  Effect.gen(function*() {
    const runs = yield* RunStore
    const directory = yield* runs.resolveDirectory(state.run_id)
    yield* runs.update(directory, {
      status: "failed",
      expectedStatus: "running",
      summary,
      details: interruptedDetails(summary)
    })
  }).pipe(Effect.ignore)

/** The daemon that supervised the run is gone: its pid is dead, or now belongs to a process started later. */
const supervisorIsGone = (state: RunState) => !isSameProcess(state.coordinator_pid, state.coordinator_start_time)

/**
 * Every run of the installation still `running` whose supervising daemon is gone was interrupted (for
 * example by a `kill -9` of that daemon), whichever controller session it belonged to: mark it, and end
 * whatever it left behind. A run of another live daemon is left alone. At start, a run recorded with our
 * own pid is an earlier daemon's too (a pid reused after a restart): this daemon has no run yet. Later
 * (`atStart: false`) only other sessions' runs are looked at: since the start, runs of this session are
 * this daemon's own fibers'.
 */
export const reconcileInterruptedRuns = (options: { readonly atStart: boolean }) =>
  Effect.gen(function*() {
    const runs = yield* RunStore
    const settings = yield* Settings
    const processes = yield* ProcessRunner
    // Reviewer workspaces and implementers' temporary folders of a controller that is gone.
    yield* Effect.promise(removeAbandonedTemporaryRoots)
    const sweepRecorded = (state: RunState) =>
      runs.resolveDirectory(state.run_id).pipe(Effect.flatMap(processes.sweepRecorded), Effect.ignore)
    const orphaned = (yield* runs.listAll()).filter((state) =>
      state.status === "running" &&
      (options.atStart
        ? state.coordinator_pid === process.pid || supervisorIsGone(state)
        : state.controller_session_id !== settings.controllerSessionId && supervisorIsGone(state))
    )
    yield* Effect.forEach(orphaned, (state) =>
      Effect.zipRight(
        Effect.zipRight(sweepRecorded(state), processes.sweepTag(runTagOf(state))),
        markInterrupted(state, "The coordinator stopped before this replay finished.")
      ), { concurrency: 4, discard: true })
    return orphaned.length
  }).pipe(Effect.withSpan("reconcileInterruptedRuns"))

/** On shutdown, after the run fibers were interrupted: nothing this daemon coordinated stays `running`. */
export const markOwnRunsInterrupted = Effect.gen(function*() {
  const runs = yield* RunStore
  const own = (yield* runs.listOwned()).filter((state) =>
    state.status === "running" && state.coordinator_pid === process.pid
  )
  yield* Effect.forEach(own, (state) =>
    markInterrupted(state, "The controller stopped before this replay finished."), { discard: true })
})
