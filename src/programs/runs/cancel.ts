import { Effect, Either } from "effect"
import type { CancelRunResult, GetRunResult, RunSnapshot } from "../../domain/contracts/index.js"
import { MAX_RUN_LOG_TAIL_BYTES } from "../../domain/product.js"
import { type RunState, runTagOf, TERMINAL_STATUSES } from "../../domain/runState.js"
import { ProcessRunner } from "../../services/ProcessRunner.js"
import { RunLog } from "../../services/RunLog.js"
import { RunStore } from "../../services/RunStore.js"
import { RunSupervisor } from "../../services/RunSupervisor.js"
import { supervisionOf } from "./history.js"
import { repeatsNow } from "../../services/repeatSiblings.js"

/** A run's state as the tools answer it: the stored state and the tail of its log. */
export const runSnapshot = (directory: string, state: RunState) =>
  Effect.map(
    Effect.flatMap(RunLog, (log) => log.tail(directory, MAX_RUN_LOG_TAIL_BYTES)),
    (runLog): RunSnapshot => ({ ...state, run_log: runLog })
  )

/** Any run of the run root; one that another live controller is executing is named as read-only. */
export const getRun = Effect.fn("runs.getRun")(function*(runId: string) {
  const runs = yield* RunStore
  const { directory, state } = yield* runs.readAny(runId)
  const supervision = yield* supervisionOf(state)
  const repeats = yield* repeatsNow(runs, runId)
  return { run: { ...(yield* runSnapshot(directory, state)), supervision }, ...(repeats === undefined ? {} : { repeats }) } satisfies GetRunResult
})

/**
 * `cancel_run`: marks the run cancelled first (so the run's own fiber cannot record anything else),
 * then interrupts that fiber, which ends every process the run started, then sweeps the run's tag. It
 * returns once every process the run started is gone.
 */
export const cancelRun = Effect.fn("runs.cancelRun")(function*(runId: string) {
  const runs = yield* RunStore
  const supervisor = yield* RunSupervisor
  const processes = yield* ProcessRunner
  const { directory, state } = yield* runs.readOwned(runId)
  const answer = (run: RunState, idempotent: boolean) =>
    Effect.map(runSnapshot(directory, run), (snapshot): CancelRunResult => ({ run_id: runId, run: snapshot, idempotent }))
  // Asked again, a cancel sweeps again: a daemon killed between writing `cancelled` and its sweep left processes.
  const sweep = Effect.zipRight(processes.sweepRecorded(directory), processes.sweepTag(runTagOf(state)))
  if (TERMINAL_STATUSES.has(state.status)) return yield* Effect.zipRight(Effect.uninterruptible(sweep), answer(state, true))
  // Marking, interrupting and sweeping go together: a dropped connection must not stop half way.
  return yield* Effect.uninterruptible(Effect.gen(function*() {
    const cancelled = yield* runs.update(directory, {
      status: "cancelled",
      expectedStatus: "running",
      summary: "The run was cancelled by the user.",
      details: { error: "Cancelled by user.", cancelled: true, cancellation_reason: "user_requested" }
    }).pipe(Effect.either)
    if (Either.isLeft(cancelled)) {
      if (cancelled.left._tag !== "RunCancelled" && cancelled.left._tag !== "StateTransitionConflict") {
        return yield* cancelled.left
      }
      return yield* Effect.zipRight(sweep, answer((yield* runs.readOwned(runId)).state, true))
    }
    yield* supervisor.interrupt(runId)
    yield* sweep
    return yield* answer(cancelled.right, false)
  }))
})

/** The text of a `cancel_run` answer. */
export const cancelRunText = (result: CancelRunResult) =>
  result.idempotent ? `Replay ${result.run_id} had already finished.` : "The replay was cancelled."
