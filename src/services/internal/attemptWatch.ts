import { Duration, Effect, Fiber, Option, Ref, Schedule } from "effect"
import { FileStore } from "../FileStore.js"
import { type ConfinedAttempt, describeAttempt, forgetAttempt, killAttempt, recordAttempt } from "./confinement.js"

const POLL = Duration.millis(20)
const KILL_WITHIN = Duration.seconds(5)
/** A namespace not found by then will not be: the child ended first (or never confined itself). */
const LOOK_FOR = Duration.minutes(1)

/** One Codex child's namespace, watched from its start (`watchAttempt`). */
export interface AttemptWatch {
  /** Ends the attempt's namespace (a no-op when Codex already ended it) and forgets its record. */
  readonly kill: Effect.Effect<void>
  /** Stops looking for the namespace. */
  readonly close: Effect.Effect<void>
}

/**
 * Watches one Codex child from its start: a fiber looks for its namespace every 20 ms (on the Effect clock, for at
 * most a minute) and, as soon as it exists, remembers it and records it in the run directory (so that a later
 * daemon can end it after a crash). One look at a time: `kill` waits for a look that is recording.
 */
export const watchAttempt = (
  attemptId: string,
  runDirectory: string | undefined,
  findLaunchers: Effect.Effect<ReadonlyArray<number>>
) =>
  Effect.gen(function*() {
    const context = yield* Effect.context<FileStore>()
    const found = yield* Ref.make(Option.none<ConfinedAttempt>())
    const oneAtATime = yield* Effect.makeSemaphore(1)

    const look = oneAtATime.withPermits(1)(Effect.gen(function*() {
      const known = yield* Ref.get(found)
      if (Option.isSome(known)) return known
      for (const pid of yield* findLaunchers) {
        const attempt = describeAttempt(pid)
        if (attempt === undefined) continue
        yield* Ref.set(found, Option.some(attempt))
        if (runDirectory !== undefined) yield* Effect.ignore(recordAttempt(runDirectory, attemptId, attempt))
        return Option.some(attempt)
      }
      return Option.none<ConfinedAttempt>()
    })).pipe(Effect.provide(context))

    // Not forkScoped: the watch's owner is its caller, which always runs `close` (CodexWorker: `ensuring`), and
    // ProcessRunner.watchConfined has no scope in its type to fork into; a daemon fiber ended by `close` keeps it so.
    // Interruptible whatever its caller is: CodexWorker starts the watch in an uninterruptible region, and a fiber
    // forked there would inherit it, so that `close` waited for a namespace that a quick attempt never showed.
    const poller = yield* Effect.forkDaemon(Effect.interruptible(
      look.pipe(Effect.repeat({ schedule: Schedule.spaced(POLL).pipe(Schedule.upTo(LOOK_FOR)), until: Option.isSome }))
    ))

    const kill = Effect.gen(function*() {
      const attempt = yield* look
      if (Option.isNone(attempt)) return
      // SIGKILLs again while anything of it is alive, for at most five seconds.
      yield* Effect.sync(() => killAttempt(attempt.value)).pipe(
        Effect.repeat({ schedule: Schedule.spaced(POLL).pipe(Schedule.upTo(KILL_WITHIN)), while: (alive) => alive })
      )
      if (runDirectory !== undefined) yield* forgetAttempt(runDirectory, attemptId).pipe(Effect.provide(context))
    })

    return { kill, close: Fiber.interrupt(poller).pipe(Effect.asVoid) } satisfies AttemptWatch
  })
