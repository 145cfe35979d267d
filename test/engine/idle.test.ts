import { describe, expect, it } from "@effect/vitest"
import { Deferred, Duration, Effect, Fiber, Layer, Option, Ref, TestClock } from "effect"
import { awaitIdle, daemonIdleRule, IdleShutdownLive } from "../../src/services/IdleShutdown.js"
import { Settings } from "../../src/services/Settings.js"
import { Shutdown } from "../../src/services/Shutdown.js"
import { Activity } from "../../src/services/Activity.js"
import { RunSupervisor } from "../../src/services/RunSupervisor.js"
import { launch, makeEngine, settle, settledUntil, stateOf, writeGreeting } from "./support.js"

/** The daemon's idle rule over the engine, under the test clock: a minute's timeout, looked at every 5 s while busy. */
const TIMEOUT = Duration.minutes(1)

const idleFiber = (countRuns: Effect.Effect<number, unknown>) =>
  Effect.flatMap(daemonIdleRule({ timeoutMillis: Duration.toMillis(TIMEOUT), busyPollMillis: 5_000, countRuns }), (rule) =>
    Effect.fork(awaitIdle(rule)))

const isDone = (fiber: Fiber.Fiber<void>) => Effect.map(Fiber.poll(fiber), Option.isSome)

/** Not done a second before the timeout has passed since the last sign of use, done at it. */
const stopsAfterExactlyOneTimeout = (idle: Fiber.Fiber<void>) =>
  Effect.gen(function*() {
    yield* TestClock.adjust(Duration.subtract(TIMEOUT, Duration.seconds(1)))
    expect(yield* isDone(idle)).toBe(false)
    yield* TestClock.adjust(Duration.seconds(1))
    yield* settle
    expect(yield* isDone(idle)).toBe(true)
  })

describe("idle shutdown (TestClock)", () => {
  it.scoped("stops exactly one timeout after the last sign of use; a heartbeat starts the timeout again", () =>
    Effect.gen(function*() {
      const engine = yield* makeEngine(() => Effect.succeed("Done."))
      yield* Effect.gen(function*() {
        const idle = yield* idleFiber(Effect.succeed(0))
        yield* TestClock.adjust(Duration.seconds(40))
        yield* (yield* Activity).touch
        yield* stopsAfterExactlyOneTimeout(idle)
      }).pipe(Effect.provide(engine.layer))
    }))

  it.scoped("keeps the controller awake while a run is active, and idles a full timeout after it ends", () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      let files: Parameters<typeof writeGreeting>[0] | undefined
      const engine = yield* makeEngine((request) => Effect.zipRight(Deferred.await(gate), writeGreeting(files!)(request)))
      files = engine.files
      yield* Effect.gen(function*() {
        yield* launch(engine.files, "run-idle", { timeout_seconds: 7200 })
        const idle = yield* idleFiber(Effect.succeed(0))
        yield* TestClock.adjust(Duration.minutes(2))
        expect(yield* isDone(idle)).toBe(false)
        yield* Deferred.succeed(gate, undefined)
        yield* settledUntil(Effect.map(stateOf("run-idle"), (state) => state.status === "completed"), "completion")
        yield* settledUntil(Effect.map((yield* RunSupervisor).activeCount, (count) => count === 0), "the fiber's end")
        // The run's end is a sign of use: the full timeout counts from it, whatever the busy poll saw.
        yield* stopsAfterExactlyOneTimeout(idle)
      }).pipe(Effect.provide(engine.layer))
    }))

  it.scoped("a worker call in flight outside runs keeps it awake; its end is a sign of use", () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      const engine = yield* makeEngine(() => Effect.succeed("Done."))
      yield* Effect.gen(function*() {
        const activity = yield* Activity
        const call = yield* Effect.fork(activity.track(Deferred.await(gate)))
        yield* settle
        const idle = yield* idleFiber(Effect.succeed(0))
        yield* TestClock.adjust(Duration.minutes(2))
        expect(yield* isDone(idle)).toBe(false)
        yield* Deferred.succeed(gate, undefined)
        yield* Fiber.join(call)
        yield* stopsAfterExactlyOneTimeout(idle)
      }).pipe(Effect.provide(engine.layer))
    }))

  it.scoped("another process's active run keeps it awake; the timeout restarts when that run is seen gone", () =>
    Effect.gen(function*() {
      const engine = yield* makeEngine(() => Effect.succeed("Done."))
      const othersActive = yield* Ref.make(1)
      yield* Effect.gen(function*() {
        const idle = yield* idleFiber(Ref.get(othersActive))
        yield* TestClock.adjust(Duration.minutes(3))
        expect(yield* isDone(idle)).toBe(false)
        // Ends between two looks (at 3:00 and 3:05); seen gone at 3:05, so the timeout runs to 4:05.
        yield* TestClock.adjust(Duration.seconds(2))
        yield* Ref.set(othersActive, 0)
        yield* TestClock.adjust(Duration.seconds(3))
        yield* settle
        expect(yield* isDone(idle)).toBe(false)
        yield* stopsAfterExactlyOneTimeout(idle)
      }).pipe(Effect.provide(engine.layer))
    }))

  it.scoped("a count of active runs that fails counts none", () =>
    Effect.gen(function*() {
      const engine = yield* makeEngine(() => Effect.succeed("Done."))
      yield* Effect.gen(function*() {
        const idle = yield* idleFiber(Effect.fail("the run root is unreadable"))
        yield* TestClock.adjust(TIMEOUT)
        yield* settle
        expect(yield* isDone(idle)).toBe(true)
      }).pipe(Effect.provide(engine.layer))
    }))
})

describe("IdleShutdownLive (TestClock)", () => {
  it.scoped("asks Shutdown to stop once the idle timeout has passed, and not before", () =>
    Effect.gen(function*() {
      const engine = yield* makeEngine(() => Effect.succeed("Done."))
      const timeout = Duration.millis((yield* Effect.provide(Settings, engine.layer)).idleTimeoutMillis)
      const layer = IdleShutdownLive.pipe(Layer.provideMerge(Shutdown.Default), Layer.provideMerge(engine.layer))
      yield* Effect.gen(function*() {
        const requested = yield* Effect.fork((yield* Shutdown).requested)
        yield* TestClock.adjust(Duration.subtract(timeout, Duration.seconds(1)))
        yield* settle
        expect(Option.isNone(yield* Fiber.poll(requested))).toBe(true)
        yield* TestClock.adjust(Duration.seconds(1))
        yield* settle
        expect(yield* Fiber.join(requested)).toBe("idle timeout")
      }).pipe(Effect.provide(layer))
    }))

  it.scoped("gives the first reason asked for: a shutdown request before the idle timeout wins", () =>
    Effect.gen(function*() {
      const engine = yield* makeEngine(() => Effect.succeed("Done."))
      const layer = IdleShutdownLive.pipe(Layer.provideMerge(Shutdown.Default), Layer.provideMerge(engine.layer))
      yield* Effect.gen(function*() {
        const shutdown = yield* Shutdown
        yield* shutdown.request("shutdown requested")
        yield* TestClock.adjust(Duration.hours(2))
        yield* settle
        expect(yield* shutdown.requested).toBe("shutdown requested")
      }).pipe(Effect.provide(layer))
    }))
})
