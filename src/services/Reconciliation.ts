import * as FileSystem from "@effect/platform/FileSystem"
import { Duration, Effect, Layer, Schedule } from "effect"
import { type RunState, runTagOf } from "../domain/runState.js"
import { makeTemporaryRoots } from "./internal/temporaryRoot.js"
import { LinkSafeFiles } from "./platform/LinkSafeFiles.js"
import { isSameProcess } from "./platform/procfs.js"
import { ProcessRunner } from "./ProcessRunner.js"
import { RunStore } from "./RunStore.js"
import { Settings } from "./Settings.js"

/** How often a daemon looks for runs whose supervising daemon died. */
export const RECONCILE_INTERVAL = Duration.seconds(15)

/**
 * How often the run store looks at the run root for runs other processes wrote, and writes again the
 * final states a full disk refused.
 */
export const RUN_ROOT_INTERVAL = Duration.seconds(1)

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
    yield* makeTemporaryRoots(yield* FileSystem.FileSystem, yield* LinkSafeFiles).removeAbandoned
    const sweepRecorded = (state: RunState) =>
      runs.resolveDirectory(state.run_id).pipe(Effect.flatMap(processes.sweepRecorded), Effect.orElseSucceed(() => 0))
    const all = yield* runs.listAll()
    const orphaned = all.filter((state) =>
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
    yield* sweepEnded(all, sweepRecorded)
    return orphaned.length
  }).pipe(Effect.withSpan("reconcileInterruptedRuns"))

/**
 * A run that ended may still have processes: a daemon killed inside `cancel_run`, after writing `cancelled` and
 * before its sweep, left them (a run ends only after its attempts did, otherwise). Whichever daemon ran it, what
 * its attempts recorded is ended, and what carries its tag: ending an ended run's processes is always right.
 */
const sweepEnded = (all: ReadonlyArray<RunState>, sweepRecorded: (state: RunState) => Effect.Effect<number>) =>
  Effect.gen(function*() {
    const processes = yield* ProcessRunner
    const ended = all.filter((state) => state.status !== "running")
    if (ended.length === 0) return
    const live = yield* processes.liveTags
    yield* Effect.forEach(ended, (state) =>
      Effect.flatMap(sweepRecorded(state), (recorded) =>
        recorded > 0 || live.has(runTagOf(state)) ? processes.sweepTag(runTagOf(state)) : Effect.void), { concurrency: 4, discard: true })
  })

/** On shutdown, after the run fibers were interrupted: nothing this daemon coordinated stays `running`. */
export const markOwnRunsInterrupted = Effect.gen(function*() {
  const runs = yield* RunStore
  const own = (yield* runs.listOwned()).filter((state) =>
    state.status === "running" && state.coordinator_pid === process.pid
  )
  yield* Effect.forEach(own, (state) =>
    markInterrupted(state, "The controller stopped before this replay finished."), { discard: true })
})

/**
 * Another daemon of the installation may die while this one runs: its runs are cleaned up from here, every
 * `RECONCILE_INTERVAL` from one interval after start (the start's own pass is the daemon's).
 */
export const ReconcileLoopLive = Layer.scopedDiscard(
  reconcileInterruptedRuns({ atStart: false }).pipe(
    Effect.tap((count) => (count > 0 ? Effect.logInfo(`Marked ${count} interrupted run(s) as failed.`) : Effect.void)),
    Effect.catchAllCause((cause) => Effect.logWarning("Cannot look for interrupted runs", cause)),
    Effect.repeat(Schedule.spaced(RECONCILE_INTERVAL)),
    Effect.delay(RECONCILE_INTERVAL),
    Effect.forkScoped
  )
)

/** The run-root watch: runs other processes wrote are seen, final states a full disk refused are written again. */
export const RunRootWatchLive = Layer.scopedDiscard(
  Effect.flatMap(RunStore, (runs) =>
    Effect.zipRight(runs.flushUnwritten, runs.rescan).pipe(
      Effect.repeat(Schedule.spaced(RUN_ROOT_INTERVAL)),
      Effect.delay(RUN_ROOT_INTERVAL),
      Effect.forkScoped
    ))
)

/** The daemon's background loops, each a scoped layer: interrupted when the daemon's layer closes. */
export const BackgroundLoopsLive = Layer.merge(ReconcileLoopLive, RunRootWatchLive)
