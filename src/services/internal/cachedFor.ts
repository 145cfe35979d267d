import { Clock, Duration, Effect } from "effect"

/**
 * `Effect.cachedWithTTL` with a lock-free fast path. While the last value is younger than `ttl` it is
 * returned at once; after that one caller computes it again under the cache's lock while the others
 * wait for that result. A failure is kept for `ttl` too, as `cachedWithTTL` keeps it. The lock costs
 * several microseconds, and `/health` and `get_state` read these caches on every request.
 */
export const cachedFor = <A, E, R>(self: Effect.Effect<A, E, R>, ttl: Duration.DurationInput) =>
  Effect.gen(function*() {
    const millis = Duration.toMillis(ttl)
    let fresh: { readonly until: number; readonly value: A } | undefined
    const remember = Effect.flatMap(Clock.currentTimeMillis, (startedAt) =>
      Effect.tap(self, (value) => {
        fresh = { until: startedAt + millis, value }
      }))
    const locked = yield* Effect.cachedWithTTL(remember, ttl)
    return Effect.flatMap(Clock.currentTimeMillis, (now) =>
      fresh !== undefined && now < fresh.until ? Effect.succeed(fresh.value) : locked)
  })
