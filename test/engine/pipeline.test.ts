import { describe, expect, it } from "@effect/vitest"
import { Deferred, Duration, Effect, Ref, TestClock } from "effect"
import * as path from "node:path"
import type { PhaseId } from "../../src/domain/runState.js"
import { cancelRun } from "../../src/programs/runs/cancel.js"
import { RunSupervisor } from "../../src/services/RunSupervisor.js"
import { type EngineHooks, launch, makeEngine, type Respond, retryable, settle, settledUntil, stateOf, writeGreeting } from "./support.js"

/**
 * The run engine under the test clock, over files in memory and a fake Codex: every wait is the clock's,
 * so each step below is exact and no real time passes.
 */

const statusIs = (runId: string, status: string) => Effect.map(stateOf(runId), (state) => state.status === status)
const phaseIs = (runId: string, phase: PhaseId) => Effect.map(stateOf(runId), (state) => state.phase === phase)

describe("retries (Schedule: 1 s, 2 s, 4 s) in fresh workspaces", () => {
  it.scoped("retries a retryable failure 1 s, then 2 s later, each time in an empty workspace", () =>
    Effect.gen(function*() {
      const times = yield* Ref.make<ReadonlyArray<number>>([])
      const seen = yield* Ref.make<ReadonlyArray<ReadonlyArray<string>>>([])
      let files: Parameters<typeof writeGreeting>[0] | undefined
      const implement: Respond = (request) =>
        Effect.gen(function*() {
          const now = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
          const attempts = yield* Ref.updateAndGet(times, (list) => [...list, now])
          yield* Ref.update(seen, (list) => [...list, files!.filesBelow(request.workingDirectory)])
          if (attempts.length > 2) return yield* writeGreeting(files!)(request)
          files!.writeText(path.join(request.workingDirectory, `partial-${attempts.length}.txt`), "partial")
          return yield* retryable
        })
      const engine = yield* makeEngine(implement)
      files = engine.files
      yield* Effect.gen(function*() {
        const directory = yield* launch(engine.files, "run-retry")
        yield* settle
        expect(yield* Ref.get(times)).toEqual([0])
        expect(engine.files.has(path.join(directory, "workspaces", "codex-attempt-1-failed", "partial-1.txt"))).toBe(true)
        yield* TestClock.adjust(Duration.millis(999))
        expect(yield* Ref.get(times)).toHaveLength(1)
        yield* TestClock.adjust(Duration.millis(1))
        yield* settle
        expect(yield* Ref.get(times)).toEqual([0, 1000])
        yield* TestClock.adjust(Duration.millis(1999))
        expect(yield* Ref.get(times)).toHaveLength(2)
        yield* TestClock.adjust(Duration.millis(1))
        yield* settledUntil(statusIs("run-retry", "completed"), "completion")
        expect(yield* Ref.get(times)).toEqual([0, 1000, 3000])
        expect(yield* Ref.get(seen)).toEqual([[], [], []])
        expect(engine.files.list(path.join(directory, "workspaces"))).toEqual(["codex", "codex-attempt-1-failed", "codex-attempt-2-failed"])
        const log = engine.files.text(path.join(directory, "run.log"))!
        expect(log).toContain("implementation attempt 1 failed with retryable stream_error; starting retry 1 of 3")
        expect(log).toContain("starting retry 2 of 3")
        const state = yield* stateOf("run-retry")
        expect(state.implementation_attempt).toBe(3)
        expect(state.failure_diagnostic).toBeNull()
        const record = engine.files.json(path.join(directory, "run.json"))!
        expect((record.codex as { patch: string }).patch).toContain("+++ b/greet.py")
        expect((record.codex as { patch: string }).patch).not.toContain("partial")
      }).pipe(Effect.provide(engine.layer))
    }))

  it.scoped("gives up after 3 retries (1 s, 2 s, 4 s) and records the diagnostic", () =>
    Effect.gen(function*() {
      const engine = yield* makeEngine(() => Effect.fail(retryable))
      yield* Effect.gen(function*() {
        const directory = yield* launch(engine.files, "run-exhausted")
        const archives = () => engine.files.list(path.join(directory, "workspaces")).filter((name) => name.endsWith("-failed")).length
        for (const [index, wait] of [1000, 2000, 4000].entries()) {
          yield* settle
          expect(archives()).toBe(index + 1)
          yield* TestClock.adjust(Duration.millis(wait - 1))
          expect(archives()).toBe(index + 1)
          yield* TestClock.adjust(Duration.millis(1))
        }
        yield* settledUntil(statusIs("run-exhausted", "failed"), "failure")
        const state = yield* stateOf("run-exhausted")
        expect(state.failure_diagnostic).toMatchObject({ worker_code: "stream_error", retryable: true, retry_count: 3 })
        expect(state.implementation_attempt).toBe(4)
        expect(archives()).toBe(3)
        expect(yield* Ref.get(engine.swept)).toEqual(["run-exhausted"])
      }).pipe(Effect.provide(engine.layer))
    }))

  it.scoped("a failure that is not retryable fails the run at once, without a retry", () =>
    Effect.gen(function*() {
      const attempts = yield* Ref.make(0)
      const permanent = Effect.fail(Object.assign(Object.create(Object.getPrototypeOf(retryable)), { ...retryable, retryable: false, code: "unauthorized" }))
      const engine = yield* makeEngine(() => Effect.zipRight(Ref.update(attempts, (count) => count + 1), permanent))
      yield* Effect.gen(function*() {
        yield* launch(engine.files, "run-permanent")
        yield* settledUntil(statusIs("run-permanent", "failed"), "failure")
        expect(yield* Ref.get(attempts)).toBe(1)
        expect((yield* stateOf("run-permanent")).failure_diagnostic).toMatchObject({ worker_code: "unauthorized", retryable: false, retry_count: 0 })
      }).pipe(Effect.provide(engine.layer))
    }))
})

describe("the 4-run limit", () => {
  it.scoped("holds a fifth run in queued while four hold the slots; a cancelled queued run never starts", () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      const order = yield* Ref.make<ReadonlyArray<string>>([])
      let engineFiles: Parameters<typeof writeGreeting>[0] | undefined
      const implement: Respond = (request) =>
        Effect.gen(function*() {
          yield* Ref.update(order, (list) => [...list, `start ${request.runTag}`])
          yield* Deferred.await(gate)
          yield* Ref.update(order, (list) => [...list, `end ${request.runTag}`])
          return yield* writeGreeting(engineFiles!)(request)
        })
      const engine = yield* makeEngine(implement)
      engineFiles = engine.files
      yield* Effect.gen(function*() {
        const ids = ["run-1", "run-2", "run-3", "run-4", "run-5"]
        for (const id of ids) yield* launch(engine.files, id)
        yield* settle
        const phases = yield* Effect.forEach(ids, (id) => Effect.map(stateOf(id), (state) => state.phase))
        expect(phases).toEqual(["implementing", "implementing", "implementing", "implementing", "queued"])
        expect(yield* Ref.get(order)).toEqual(["start run-1", "start run-2", "start run-3", "start run-4"])
        expect(yield* (yield* RunSupervisor).activeCount).toBe(5)

        const queuedDirectory = yield* launch(engine.files, "run-6")
        expect(yield* cancelRun("run-6")).toMatchObject({ run_id: "run-6", idempotent: false })
        expect((yield* stateOf("run-6")).status).toBe("cancelled")
        expect(yield* (yield* RunSupervisor).isRunning("run-6")).toBe(false)

        yield* Deferred.succeed(gate, undefined)
        yield* settledUntil(
          Effect.map(Effect.forEach(ids, stateOf), (states) => states.every((state) => state.status === "completed")),
          "all five completed"
        )
        const events = yield* Ref.get(order)
        expect(events.indexOf("start run-5")).toBeGreaterThan(events.indexOf("end run-1"))
        expect((yield* stateOf("run-6")).status).toBe("cancelled")
        expect(engine.files.has(path.join(queuedDirectory, "workspaces"))).toBe(false)
        expect(engine.files.text(path.join(queuedDirectory, "run.log"))).not.toContain("creating_workspace")
        yield* settledUntil(Effect.map((yield* RunSupervisor).activeCount, (count) => count === 0), "every fiber's end")
      }).pipe(Effect.provide(engine.layer))
    }))
})

describe("the run timeout", () => {
  it.scoped("fails a run that does not finish within timeout_seconds and stops its worker", () =>
    Effect.gen(function*() {
      const stopped = yield* Ref.make(false)
      const engine = yield* makeEngine(() => Effect.never.pipe(Effect.onInterrupt(() => Ref.set(stopped, true))))
      yield* Effect.gen(function*() {
        yield* launch(engine.files, "run-slow", { timeout_seconds: 30 })
        yield* settle
        expect((yield* stateOf("run-slow")).phase).toBe("implementing")
        yield* TestClock.adjust(Duration.seconds(29))
        expect((yield* stateOf("run-slow")).status).toBe("running")
        yield* TestClock.adjust(Duration.seconds(1))
        yield* settledUntil(statusIs("run-slow", "failed"), "the timeout")
        expect((yield* stateOf("run-slow")).error).toBe("The replay did not finish within 30 seconds.")
        expect(yield* Ref.get(stopped)).toBe(true)
        expect(yield* Ref.get(engine.swept)).toEqual(["run-slow"])
      }).pipe(Effect.provide(engine.layer))
    }))

  it.scoped("the timeout counts the time spent queued and in retries' waits", () =>
    Effect.gen(function*() {
      const engine = yield* makeEngine(() => Effect.fail(retryable))
      yield* Effect.gen(function*() {
        yield* launch(engine.files, "run-retries-timeout", { timeout_seconds: 2 })
        yield* settle
        yield* TestClock.adjust(Duration.seconds(1))
        yield* settle
        expect((yield* stateOf("run-retries-timeout")).status).toBe("running")
        yield* TestClock.adjust(Duration.seconds(1))
        yield* settledUntil(statusIs("run-retries-timeout", "failed"), "the timeout")
        const state = yield* stateOf("run-retries-timeout")
        expect(state.error).toBe("The replay did not finish within 2 seconds.")
        expect(state.implementation_attempt).toBe(2)
      }).pipe(Effect.provide(engine.layer))
    }))
})

describe("the run timeout and the checks", () => {
  it.scoped("does not count the checks, which have limits of their own: a run whose checks outlast it completes", () =>
    Effect.gen(function*() {
      const engine = yield* makeEngine(() => Effect.succeed("Done."), { checks: Effect.as(Effect.sleep(Duration.seconds(100)), null) })
      yield* Effect.gen(function*() {
        const checks = { checks: [{ command: "npm test", directory: "." }], setup: [], time_limit_seconds: 600 }
        yield* launch(engine.files, "run-long-checks", { timeout_seconds: 30, checks })
        yield* settledUntil(Effect.map(stateOf("run-long-checks"), (state) => state.phase === "checking"), "the checking phase")
        yield* TestClock.adjust(Duration.seconds(100))
        yield* settledUntil(statusIs("run-long-checks", "completed"), "the end of the run")
        expect((yield* stateOf("run-long-checks")).phases.find((row) => row.id === "checking")?.status).toBe("complete")
      }).pipe(Effect.provide(engine.layer))
    }))
})

describe("cancellation in every phase", () => {
  /** Holds a run in `phase` with `hooks` (each blocks on `gate`), cancels it, then lets the gate go. */
  const cancelDuring = (phase: PhaseId, hold: (gate: Effect.Effect<void>) => { implement?: Respond; hooks?: EngineHooks }) =>
    it.scoped(`a run cancelled while ${phase} ends cancelled, its fiber and processes gone, and stays cancelled`, () =>
      Effect.gen(function*() {
        const gate = yield* Deferred.make<void>()
        const interrupted = yield* Ref.make(false)
        const blocked = Effect.onInterrupt(Deferred.await(gate), () => Ref.set(interrupted, true))
        const { implement, hooks } = hold(blocked)
        let files: Parameters<typeof writeGreeting>[0] | undefined
        const engine = yield* makeEngine(implement ?? ((request) => writeGreeting(files!)(request)), hooks)
        files = engine.files
        yield* Effect.gen(function*() {
          const supervisor = yield* RunSupervisor
          const directory = yield* launch(engine.files, `run-${phase}`)
          yield* settledUntil(phaseIs(`run-${phase}`, phase), phase)
          yield* settle
          expect((yield* stateOf(`run-${phase}`)).phase).toBe(phase)
          const answer = yield* cancelRun(`run-${phase}`)
          expect(answer).toMatchObject({ idempotent: false, run: { status: "cancelled" } })
          expect(yield* supervisor.isRunning(`run-${phase}`)).toBe(false)
          expect(yield* Ref.get(interrupted)).toBe(true)
          expect(yield* Ref.get(engine.swept)).toContain(`run-${phase}`)
          yield* Deferred.succeed(gate, undefined)
          yield* settle
          yield* TestClock.adjust(Duration.hours(1))
          const state = yield* stateOf(`run-${phase}`)
          expect(state).toMatchObject({ status: "cancelled", phase, cancelled: true, cancellation_reason: "user_requested" })
          expect(engine.files.has(path.join(directory, "report.json"))).toBe(false)
          expect(yield* cancelRun(`run-${phase}`)).toMatchObject({ idempotent: true })
        }).pipe(Effect.provide(engine.layer))
      }))

  cancelDuring("creating_workspace", (gate) => ({ hooks: { beforeMaterialise: gate } }))
  cancelDuring("implementing", (gate) => ({ implement: () => Effect.as(gate, "never") }))
  cancelDuring("collecting", (gate) => ({ hooks: { beforeDiff: gate } }))
  cancelDuring("reviewing", (gate) => ({ hooks: { review: () => Effect.as(gate, "never") } }))
  cancelDuring("reporting", (gate) => ({ hooks: { beforeReport: gate } }))

  it.scoped("a run waiting for its retry is cancelled without another attempt", () =>
    Effect.gen(function*() {
      const attempts = yield* Ref.make(0)
      const engine = yield* makeEngine(() => Effect.zipRight(Ref.update(attempts, (count) => count + 1), Effect.fail(retryable)))
      yield* Effect.gen(function*() {
        yield* launch(engine.files, "run-between")
        yield* settle
        expect(yield* Ref.get(attempts)).toBe(1)
        yield* cancelRun("run-between")
        yield* TestClock.adjust(Duration.minutes(1))
        expect(yield* Ref.get(attempts)).toBe(1)
        expect((yield* stateOf("run-between")).status).toBe("cancelled")
      }).pipe(Effect.provide(engine.layer))
    }))

  it.scoped("shutdown (every fiber interrupted) leaves running runs failed and interrupted, ended runs alone", () =>
    Effect.gen(function*() {
      let files: Parameters<typeof writeGreeting>[0] | undefined
      const engine = yield* makeEngine((request) =>
        request.runTag === "run-quick" ? writeGreeting(files!)(request) : Effect.never)
      files = engine.files
      yield* Effect.gen(function*() {
        yield* launch(engine.files, "run-quick")
        yield* settledUntil(statusIs("run-quick", "completed"), "the quick run")
        yield* launch(engine.files, "run-long")
        yield* settledUntil(phaseIs("run-long", "implementing"), "implementing")
        yield* (yield* RunSupervisor).interruptAll
        const state = yield* stateOf("run-long")
        expect(state).toMatchObject({ status: "failed", interrupted: true, interruption_reason: "coordinator_stopped" })
        expect(state.error).toBe("The controller stopped before this replay finished.")
        expect((yield* stateOf("run-quick")).status).toBe("completed")
        expect(yield* Effect.flip((yield* RunSupervisor).launch("run-late", Effect.void))).toMatchObject({
          message: "The controller is shutting down."
        })
      }).pipe(Effect.provide(engine.layer))
    }))
})
