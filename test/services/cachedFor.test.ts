import { it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Ref, TestClock } from "effect"
import { expect } from "vitest"
import { cachedFor, cachedOnceComputed } from "../../src/services/internal/cachedFor.js"

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

it.effect("a failure is not kept: the next caller computes again", () =>
  Effect.gen(function*() {
    const attempts = yield* Ref.make(0)
    const cached = yield* cachedFor(
      Effect.flatMap(Ref.updateAndGet(attempts, (n) => n + 1), (n) => (n === 1 ? Effect.fail("down" as const) : Effect.succeed(n))),
      TTL
    )
    expect(yield* Effect.flip(cached)).toBe("down")
    expect(yield* cached).toBe(2)
    yield* TestClock.adjust(TTL - 1)
    expect(yield* cached).toBe(2)
    expect(yield* Ref.get(attempts)).toBe(2)
  }))

/** A cache whose first computation never ends, with that first caller forked and waiting inside it. */
const firstCallerHanging = Effect.gen(function*() {
  const attempts = yield* Ref.make(0)
  const started = yield* Deferred.make<void>()
  const cached = yield* cachedFor(
    Effect.flatMap(Ref.updateAndGet(attempts, (n) => n + 1), (n) =>
      n === 1 ? Effect.zipRight(Deferred.succeed(started, undefined), Effect.never) : Effect.succeed(n)),
    TTL
  )
  const first = yield* Effect.fork(cached)
  yield* Deferred.await(started)
  return { attempts, cached, first }
})

it.effect("a first caller interrupted while computing leaves nothing behind: the next caller computes the value", () =>
  Effect.gen(function*() {
    const { attempts, cached, first } = yield* firstCallerHanging
    yield* Fiber.interrupt(first)
    expect(yield* cached).toBe(2)
    expect(yield* cached).toBe(2)
    expect(yield* Ref.get(attempts)).toBe(2)
  }))

it.effect("a caller waiting behind an interrupted first caller gets the value it computes itself", () =>
  Effect.gen(function*() {
    const { cached, first } = yield* firstCallerHanging
    const second = yield* Effect.fork(cached)
    for (let i = 0; i < 10; i++) yield* Effect.yieldNow()
    yield* Fiber.interrupt(first)
    expect(yield* Fiber.join(second)).toBe(2)
  }))

it.effect("cachedOnceComputed keeps a value for good, and only a value", () =>
  Effect.gen(function*() {
    const attempts = yield* Ref.make(0)
    const cached = yield* cachedOnceComputed(
      Effect.flatMap(Ref.updateAndGet(attempts, (n) => n + 1), (n) => (n === 1 ? Effect.die("boom") : Effect.succeed(n)))
    )
    expect((yield* Effect.exit(cached))._tag).toBe("Failure")
    expect(yield* cached).toBe(2)
    yield* TestClock.adjust("1000 days")
    expect(yield* cached).toBe(2)
    expect(yield* Ref.get(attempts)).toBe(2)
  }))
