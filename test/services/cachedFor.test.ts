import { it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Ref, TestClock } from "effect"
import { expect } from "vitest"
import { cachedFor } from "../../src/services/internal/cachedFor.js"

const TTL = 250

/** A counter whose every evaluation is visible, behind a 250 ms cache. */
const counted = Effect.gen(function*() {
  const runs = yield* Ref.make(0)
  const cached = yield* cachedFor(Ref.updateAndGet(runs, (n) => n + 1), TTL)
  return { runs, cached }
})

it.effect("answers from the cache until the value is a full ttl old, then computes it once more", () =>
  Effect.gen(function*() {
    const { runs, cached } = yield* counted
    expect(yield* cached).toBe(1)
    yield* TestClock.adjust(TTL - 1)
    expect(yield* cached).toBe(1)
    expect(yield* Ref.get(runs)).toBe(1)
    yield* TestClock.adjust(1)
    expect(yield* cached).toBe(2)
    expect(yield* cached).toBe(2)
    expect(yield* Ref.get(runs)).toBe(2)
  }))

it.effect("callers arriving while the value is being computed share that one computation", () =>
  Effect.gen(function*() {
    const runs = yield* Ref.make(0)
    const arrived = yield* Ref.make(0)
    const gate = yield* Deferred.make<void>()
    const cached = yield* cachedFor(
      Effect.zipRight(Ref.update(runs, (n) => n + 1), Effect.as(Deferred.await(gate), "value")),
      TTL
    )
    const caller = Effect.zipRight(Ref.update(arrived, (n) => n + 1), cached)
    const callers = yield* Effect.fork(Effect.all(Array.from({ length: 5 }, () => caller), { concurrency: "unbounded" }))
    // Every caller is inside the cache, waiting on the one computation, before it may finish.
    while ((yield* Ref.get(arrived)) < 5) yield* Effect.yieldNow()
    for (let i = 0; i < 10; i++) yield* Effect.yieldNow()
    yield* Deferred.succeed(gate, undefined)
    expect(yield* Fiber.join(callers)).toEqual(["value", "value", "value", "value", "value"])
    expect(yield* Ref.get(runs)).toBe(1)
  }))

it.effect("a failure is kept for the ttl like a value (as Effect.cachedWithTTL does), then tried again", () =>
  Effect.gen(function*() {
    const attempts = yield* Ref.make(0)
    const cached = yield* cachedFor(
      Effect.flatMap(Ref.updateAndGet(attempts, (n) => n + 1), (n) => (n === 1 ? Effect.fail("down" as const) : Effect.succeed(n))),
      TTL
    )
    expect(yield* Effect.flip(cached)).toBe("down")
    yield* TestClock.adjust(TTL - 1)
    expect(yield* Effect.flip(cached)).toBe("down")
    expect(yield* Ref.get(attempts)).toBe(1)
    yield* TestClock.adjust(1)
    expect(yield* cached).toBe(2)
    expect(yield* cached).toBe(2)
    expect(yield* Ref.get(attempts)).toBe(2)
  }))
