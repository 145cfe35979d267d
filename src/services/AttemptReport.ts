import { Effect, Layer, Runtime } from "effect"
import { CodexWorker } from "./CodexWorker.js"

/** The signal that asks a daemon where its Codex attempts are. */
export const ATTEMPT_REPORT_SIGNAL = "SIGUSR2"

/**
 * `kill -USR2 <daemon pid>` logs one line per attempt under way: which run's worker, its model, since when, how
 * many events its stream delivered, the last one, and what it waits for now (Codex's next event, the run log,
 * the end of the stream, or Codex stopping). What an attempt that does not end is doing, without stopping it.
 */
export const AttemptReportLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    const worker = yield* CodexWorker
    const runFork = Runtime.runFork(yield* Effect.runtime<never>())
    const report = Effect.flatMap(worker.attempts, (attempts) =>
      attempts.length === 0
        ? Effect.logInfo("No Codex attempt is under way.")
        : Effect.forEach(attempts, (attempt) =>
          Effect.logInfo(
            `Codex attempt ${attempt.attempt_id} (${attempt.label}, ${attempt.model}, since ${attempt.started_at}): ${attempt.stage}; ` +
              `${attempt.events} event(s), the last ${attempt.last_event ?? "none"}.`
          ), { discard: true }))
    const listener = () => void runFork(report)
    yield* Effect.acquireRelease(
      Effect.sync(() => process.on(ATTEMPT_REPORT_SIGNAL, listener)),
      () => Effect.sync(() => process.off(ATTEMPT_REPORT_SIGNAL, listener))
    )
  })
)
