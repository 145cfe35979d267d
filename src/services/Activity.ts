import { Clock, Effect, Ref } from "effect"

/**
 * What keeps the daemon awake: the time of the last sign of use (a heartbeat, the end of a run or of
 * a worker call) and the number of worker calls in flight outside runs.
 */
export class Activity extends Effect.Service<Activity>()("codex-replay/Activity", {
  effect: Effect.gen(function*() {
    const lastActivity = yield* Ref.make(yield* Clock.currentTimeMillis)
    const inFlight = yield* Ref.make(0)

    const touch = Effect.flatMap(Clock.currentTimeMillis, (now) => Ref.set(lastActivity, now))

    /** Counts `effect` as activity while it runs, and as a sign of use when it ends. */
    const track = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      Effect.acquireUseRelease(
        Ref.update(inFlight, (count) => count + 1),
        () => effect,
        () => Effect.zipRight(Ref.update(inFlight, (count) => count - 1), touch)
      )

    return {
      touch,
      track,
      lastActivity: Ref.get(lastActivity),
      inFlight: Ref.get(inFlight)
    } as const
  })
}) {}
