import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Fiber, Layer, Option, TestClock } from "effect"
import { FileStore } from "../../src/services/FileStore.js"
import { watchAttempt } from "../../src/services/internal/attemptWatch.js"
import { ATTEMPTS_DIRECTORY } from "../../src/services/internal/confinement.js"
import { ProcessEnvironment } from "../../src/services/platform/environment.js"
import { MemoryFileSystemLive } from "../../src/services/platform/memoryFileSystem.js"
import { ProcessRunner } from "../../src/services/ProcessRunner.js"

const files = FileStore.DefaultWithoutDependencies.pipe(Layer.provideMerge(MemoryFileSystemLive))
const layer = ProcessRunner.DefaultWithoutDependencies.pipe(
  Layer.provideMerge(files),
  Layer.provide(ProcessEnvironment.layer({ PATH: "/usr/bin:/bin", ONLY: "this" }))
)

/** A pid no process has (above Linux's pid_max). */
const GONE = 4_194_305

describe("the process service over the in-memory file system and the test clock", () => {
  it.layer(layer)((it) => {
    it.effect("looks for an attempt's namespace every 20 ms of the Effect clock until closed", () =>
      Effect.gen(function*() {
        let looks = 0
        const watch = yield* watchAttempt("attempt-1", "/runs/run-1", Effect.sync(() => (looks++, [])))
        yield* TestClock.adjust(Duration.millis(100))
        expect(looks).toBe(6)
        yield* watch.close
        yield* TestClock.adjust(Duration.millis(100))
        expect(looks).toBe(6)
        // Nothing was found, so there is nothing to kill and nothing recorded.
        yield* watch.kill
        expect(yield* (yield* FileStore).listNames(`/runs/run-1/${ATTEMPTS_DIRECTORY}`)).toEqual([])
      }))

    it.effect("closes at once when it was started in an uninterruptible region and no namespace ever appeared", () =>
      Effect.gen(function*() {
        let looks = 0
        // As CodexWorker starts it: inside an uninterruptible region, for an attempt that ended before any look.
        const watch = yield* Effect.uninterruptible(watchAttempt("attempt-3", "/runs/run-3", Effect.sync(() => (looks++, []))))
        yield* TestClock.adjust(Duration.millis(100))
        const closing = yield* Effect.fork(watch.close)
        yield* TestClock.adjust(Duration.millis(20))
        expect(Option.isSome(yield* Fiber.poll(closing))).toBe(true)
        const seen = looks
        yield* TestClock.adjust(Duration.seconds(5))
        expect(looks).toBe(seen)
      }))

    it.effect("sweeps the attempts a dead daemon recorded and removes their records, leaving what is not a record", () =>
      Effect.gen(function*() {
        const store = yield* FileStore
        const record = { launcher: { pid: GONE, start_time: 1 }, init: { pid: GONE + 1, start_time: 2 }, namespace: 3 }
        yield* store.writeTextAtomic(`/runs/run-2/${ATTEMPTS_DIRECTORY}/a.json`, JSON.stringify(record))
        yield* store.writeTextAtomic(`/runs/run-2/${ATTEMPTS_DIRECTORY}/not-a-record.json`, "{}")
        const swept = yield* Effect.fork((yield* ProcessRunner).sweepRecorded("/runs/run-2"))
        yield* TestClock.adjust(Duration.seconds(1))
        expect(yield* Fiber.join(swept)).toBe(1)
        expect(yield* store.listNames(`/runs/run-2/${ATTEMPTS_DIRECTORY}`)).toEqual(["not-a-record.json"])
      }))

    it.effect("children inherit the environment the layer provides, not the process's", () =>
      Effect.gen(function*() {
        expect((yield* ProcessRunner).environment).toEqual({ PATH: "/usr/bin:/bin", ONLY: "this" })
        expect(Option.isNone(yield* (yield* FileStore).linkType("/nothing"))).toBe(true)
      }))
  })
})
