import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Option, TestClock } from "effect"
import * as path from "node:path"
import { initialRunState } from "../../src/domain/runState.js"
import { awaitRun } from "../../src/programs/runs/watch.js"
import { RunStore } from "../../src/services/RunStore.js"
import { makeEngine, settle } from "./support.js"

/**
 * `awaitRun` under the test clock: this controller's run is awaited on the run store's changes (no clock
 * at all); another controller's is looked at again every poll interval, from the disk.
 */

const FOREIGN_SESSION = "f".repeat(32)
const never = () => Effect.never

const foreignState = (status: "running" | "completed") => ({
  ...initialRunState({ runId: "run-foreign", controllerSessionId: FOREIGN_SESSION, coordinatorPid: 1, now: "2026-12-01T00:00:00.000Z" }),
  status,
  ...(status === "completed" ? { completed_at: "2026-12-01T00:01:00.000Z" } : {})
})

describe("awaitRun", () => {
  it.scoped("ends with this controller's run as the store records its final state, with no clock step", () =>
    Effect.gen(function*() {
      const engine = yield* makeEngine(never)
      yield* Effect.gen(function*() {
        const runs = yield* RunStore
        const { directory } = yield* runs.create({ runId: "run-own", coordinatorPid: process.pid })
        const waiting = yield* Effect.fork(awaitRun("run-own"))
        yield* settle
        expect(Option.isNone(yield* Fiber.poll(waiting))).toBe(true)
        yield* runs.update(directory, { status: "completed", phase: "reporting" })
        yield* settle
        expect((yield* Fiber.join(waiting)).status).toBe("completed")
      }).pipe(Effect.provide(engine.layer))
    }))

  it.scoped("looks at another controller's run again every poll interval until the disk says it ended", () =>
    Effect.gen(function*() {
      const engine = yield* makeEngine(never)
      const file = path.join("/memory/runs", "run-foreign", "controller-state.json")
      engine.files.mkdir(path.dirname(file))
      engine.files.writeText(file, JSON.stringify(foreignState("running")))
      yield* Effect.gen(function*() {
        const waiting = yield* Effect.fork(awaitRun("run-foreign", { pollInterval: "250 millis" }))
        yield* settle
        yield* TestClock.adjust("250 millis")
        yield* settle
        expect(Option.isNone(yield* Fiber.poll(waiting))).toBe(true)
        engine.files.writeText(file, JSON.stringify(foreignState("completed")))
        yield* settle
        expect(Option.isNone(yield* Fiber.poll(waiting)), "it noticed before its next look").toBe(true)
        yield* TestClock.adjust("250 millis")
        yield* settle
        const final = yield* Fiber.join(waiting)
        expect(final.status).toBe("completed")
        expect(final.controller_session_id).toBe(FOREIGN_SESSION)
      }).pipe(Effect.provide(engine.layer))
    }))
})
