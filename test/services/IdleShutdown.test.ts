import { it } from "@effect/vitest"
import { Effect, Fiber, Ref, TestClock } from "effect"
import { expect } from "vitest"
import { awaitIdle } from "../../src/services/IdleShutdown.js"
import { Activity } from "../../src/services/Activity.js"

const TIMEOUT = 60_000
const POLL = 1_000

/** The idle rule on the test clock, busy while `isBusy` says so (by default a flag the test sets). */
const setup = (isBusy?: (activity: Activity) => Effect.Effect<boolean>) =>
  Effect.gen(function*() {
    const activity = yield* Activity
    const busy = yield* Ref.make(false)
    const fiber = yield* Effect.fork(
      awaitIdle({
        timeoutMillis: TIMEOUT,
        busyPollMillis: POLL,
        lastActivity: activity.lastActivity,
        touch: activity.touch,
        isBusy: isBusy === undefined ? Ref.get(busy) : isBusy(activity)
      })
    )
    return { activity, busy, fiber }
  })

const isDone = (fiber: Fiber.RuntimeFiber<void>) => Effect.map(Fiber.poll(fiber), (exit) => exit._tag === "Some")

it.effect("shuts down exactly one timeout after the last activity", () =>
  Effect.gen(function*() {
    const { fiber } = yield* setup()
    yield* TestClock.adjust(TIMEOUT - 1)
    expect(yield* isDone(fiber)).toBe(false)
    yield* TestClock.adjust(1)
    expect(yield* isDone(fiber)).toBe(true)
  }).pipe(Effect.provide(Activity.Default)))

it.effect("a heartbeat restarts the timeout", () =>
  Effect.gen(function*() {
    const { activity, fiber } = yield* setup()
    yield* TestClock.adjust(TIMEOUT / 2)
    yield* activity.touch
    yield* TestClock.adjust(TIMEOUT - 1)
    expect(yield* isDone(fiber)).toBe(false)
    yield* TestClock.adjust(TIMEOUT / 2)
    expect(yield* isDone(fiber)).toBe(true)
  }).pipe(Effect.provide(Activity.Default)))

it.effect("stays up while busy and stops a full timeout after the work ends", () =>
  Effect.gen(function*() {
    const { busy, fiber } = yield* setup()
    yield* Ref.set(busy, true)
    yield* TestClock.adjust(TIMEOUT * 5)
    expect(yield* isDone(fiber)).toBe(false)
    yield* Ref.set(busy, false)
    yield* TestClock.adjust(POLL)
    yield* TestClock.adjust(TIMEOUT - 1)
    expect(yield* isDone(fiber)).toBe(false)
    yield* TestClock.adjust(1)
    expect(yield* isDone(fiber)).toBe(true)
  }).pipe(Effect.provide(Activity.Default)))

it.effect("a worker call tracked as activity keeps it up and counts as use when it ends", () =>
  Effect.gen(function*() {
    const { activity, fiber } = yield* setup((activity) => Effect.map(activity.inFlight, (count) => count > 0))
    const work = yield* Effect.fork(activity.track(Effect.sleep(TIMEOUT * 3)))
    yield* TestClock.adjust(TIMEOUT * 2)
    expect(yield* activity.inFlight).toBe(1)
    expect(yield* isDone(fiber)).toBe(false)
    yield* TestClock.adjust(TIMEOUT)
    yield* Fiber.join(work)
    expect(yield* activity.inFlight).toBe(0)
    yield* TestClock.adjust(TIMEOUT - 1)
    expect(yield* isDone(fiber)).toBe(false)
    yield* TestClock.adjust(POLL + 1)
    expect(yield* isDone(fiber)).toBe(true)
  }).pipe(Effect.provide(Activity.Default)))
