import { Clock, Duration, Effect } from "effect"

/**
 * A value computed at most once per `ttl`. While the last value is younger than `ttl` it is returned at
 * once (without a lock: `/health` and `get_state` read these caches on every request); after that
 * one caller computes it again under the cache's lock while the others wait for that result.
 *
 * Only a value is kept. A computation that failed, died or was interrupted (a client that gave up) leaves
 * nothing behind, so the next caller computes it again: `Effect.cached` and `Effect.cachedWithTTL` would
 * keep that outcome and answer it to every later caller.
 */
export const cachedFor = <A, E, R>(self: Effect.Effect<A, E, R>, ttl: Duration.DurationInput) =>
  Effect.gen(function*() {
    const millis = Duration.toMillis(ttl)
    const lock = yield* Effect.makeSemaphore(1)
    let fresh: { readonly until: number; readonly value: A } | undefined
    const isFresh = (now: number) => fresh !== undefined && now < fresh.until
    const compute = lock.withPermits(1)(
      Effect.flatMap(Clock.currentTimeMillis, (startedAt) =>
        isFresh(startedAt) ? Effect.succeed(fresh!.value) : Effect.tap(self, (value) => {
          fresh = { until: startedAt + millis, value }
        }))
    )
    return Effect.flatMap(Clock.currentTimeMillis, (now) => (isFresh(now) ? Effect.succeed(fresh!.value) : compute))
  })

/** A value computed once, when first asked for, and kept; a failed or interrupted computation is not kept. */
export const cachedOnceComputed = <A, E, R>(self: Effect.Effect<A, E, R>) => cachedFor(self, Duration.infinity)
