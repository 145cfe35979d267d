import { Effect, Ref } from "effect"
import { diskRetrySchedule } from "../../domain/diskRetry.js"
import { isOutOfSpace, type StorageError } from "../../domain/errors.js"
import { Batches } from "../../services/Batches.js"

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
