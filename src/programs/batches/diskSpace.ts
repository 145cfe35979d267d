import { Duration, Effect, Ref, Schedule } from "effect"
import { isOutOfSpace, type StorageError } from "../../domain/errors.js"
import { Batches } from "../../services/Batches.js"

/** The first wait after a write the disk refused for want of space. */
export const DISK_RETRY_FIRST = Duration.millis(250)
/** The longest wait between two tries: space that returns is noticed within this. */
export const DISK_RETRY_CAP = Duration.seconds(5)

/**
 * How a batch's write waits for disk space: 250 ms, doubling, at most 5 s apart, for as long as it takes
 * (a cancel or the daemon's stop interrupts the wait).
 */
export const diskRetrySchedule = Schedule.exponential(DISK_RETRY_FIRST).pipe(Schedule.union(Schedule.spaced(DISK_RETRY_CAP)))

/** What the batch says while it waits. */
export const waitingNote = (what: string, error: StorageError) =>
  `Waiting for disk space: cannot write ${what} (${error.code ?? "no space"}); the batch carries on once space returns.`

/**
 * Runs a write of batch `batchId`; while the disk refuses it for want of space (ENOSPC, EDQUOT, EIO) it is
 * tried again on `diskRetrySchedule`, and the batch says it is waiting for disk space. Any other failure is
 * the write's own, as before.
 */
export const whileDiskFull = (batchId: string, what: string) => <A, E, R>(write: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const batches = yield* Batches
    // The note of the last refusal, replaced at each one (its sentence names the latest code) and cleared at the end.
    const clear = yield* Ref.make<Effect.Effect<void> | null>(null)
    const note = (error: StorageError) =>
      Effect.gen(function*() {
        const previous = yield* Ref.get(clear)
        if (previous === null) yield* Effect.logWarning(`Batch ${batchId} waits for disk space: ${error.message}`)
        else yield* previous
        yield* Ref.set(clear, yield* batches.noteWaiting(batchId, waitingNote(what, error)))
      })
    return yield* write.pipe(
      Effect.tapError((error) => (isOutOfSpace(error) ? note(error) : Effect.void)),
      Effect.retry({ schedule: diskRetrySchedule, while: isOutOfSpace }),
      Effect.ensuring(Effect.flatMap(Ref.get(clear), (cleared) => cleared ?? Effect.void))
    )
  })
