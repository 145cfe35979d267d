import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Fiber, Layer, Option, Ref, Schedule, TestClock } from "effect"
import * as path from "node:path"
import type { BatchRecord } from "../../src/domain/batch.js"
import { StorageError } from "../../src/domain/errors.js"
import { diskRetrySchedule } from "../../src/domain/diskRetry.js"
import { whileDiskFull } from "../../src/programs/batches/diskSpace.js"
import { launchBatch } from "../../src/programs/batches/run.js"
import { cancelBatch } from "../../src/programs/batches/start.js"
import { summaryOf } from "../../src/programs/batches/summary.js"
import { Batches } from "../../src/services/Batches.js"
import { FileStore } from "../../src/services/FileStore.js"
import { RunLog } from "../../src/services/RunLog.js"
import { MemoryFileSystemLive } from "../../src/services/platform/memoryFileSystem.js"
import { RunStore } from "../../src/services/RunStore.js"
import { RunSupervisor } from "../../src/services/RunSupervisor.js"
import { Settings } from "../../src/services/Settings.js"
import { ClaudeHistory } from "../../src/services/history/ClaudeHistory.js"
import { ProcessRunner } from "../../src/services/ProcessRunner.js"
import { RunCoordinator } from "../../src/services/RunCoordinator.js"
import { Samples } from "../../src/services/Samples.js"
import { Workspace } from "../../src/services/Workspace.js"
import { settingsFor } from "../history/support.js"
import { makeTestLayer } from "../support/testLayers.js"

const RUN_ROOT = "/memory/runs"
const settings = settingsFor("/memory/claude", { runRoot: RUN_ROOT })

/** The disk: how many more writes it refuses, with which code, and of which files. */
interface Refusals {
  readonly left: number
  readonly code: string
  readonly file: RegExp
}

/** The FileStore over memory, whose writes of files matching `refusals.file` fail with `refusals.code` while `left` > 0. */
const refusingFiles = (refusals: Ref.Ref<Refusals>) =>
  Layer.effect(
    FileStore,
    Effect.gen(function*() {
      const base = yield* FileStore
      const refuse = (file: string) =>
        Ref.modify(refusals, (current) =>
          current.left > 0 && current.file.test(path.basename(file))
            ? [Option.some(current.code), { ...current, left: current.left - 1 }]
            : [Option.none<string>(), current])
      const guarded = <A, E>(file: string, write: Effect.Effect<A, E>): Effect.Effect<A, E | StorageError> =>
        Effect.flatMap(refuse(file), (code): Effect.Effect<A, E | StorageError> =>
          Option.isNone(code)
            ? write
            : Effect.fail(new StorageError({ message: `Cannot write ${path.basename(file)}: ${code.value}: no space left on device`, code: code.value })))
      return FileStore.make({
        ...base,
        writeJson: (file, value) => guarded(file, base.writeJson(file, value)),
        writeTextAtomic: (file, text, mode) => guarded(file, base.writeTextAtomic(file, text, mode))
      })
    })
  ).pipe(Layer.provide(FileStore.DefaultWithoutDependencies))

const layerWith = (refusals: Ref.Ref<Refusals>) =>
  Layer.mergeAll(Batches.DefaultWithoutDependencies, RunStore.DefaultWithoutDependencies, RunSupervisor.Default).pipe(
    Layer.provideMerge(RunLog.DefaultWithoutDependencies),
    Layer.provideMerge(refusingFiles(refusals)),
    Layer.provideMerge(MemoryFileSystemLive),
    Layer.provideMerge(Settings.layer(settings)),
    // Nothing is launched here (every replay of these batches exists): a service a launch needs fails the test if touched.
    Layer.provideMerge(Layer.mergeAll(
      makeTestLayer(ClaudeHistory)({}),
      makeTestLayer(Workspace)({}),
      makeTestLayer(RunCoordinator)({}),
      makeTestLayer(Samples)({}),
      makeTestLayer(ProcessRunner)({})
    ))
  )

/** Lets the clock run by `step` until `check` answers something (at most 10 minutes of the test clock). */
const until = <A, E, R>(check: Effect.Effect<Option.Option<A>, E, R>, step: Duration.DurationInput = "250 millis") =>
  Effect.gen(function*() {
    for (let round = 0; round < 2400; round++) {
      yield* Effect.yieldNow()
      const found = yield* check
      if (Option.isSome(found)) return found.value
      yield* TestClock.adjust(step)
    }
    return yield* Effect.dieMessage("The condition never held.")
  })

const summaryNow = (batchId: string) => Effect.flatMap(Effect.flatMap(Batches, (batches) => batches.read(batchId)), summaryOf)

/** Two runs of this controller that completed with a report, and a batch of them that has not settled them yet. */
const completedBatch = Effect.gen(function*() {
  const runs = yield* RunStore
  const files = yield* FileStore
  yield* files.ensurePrivateDirectory(RUN_ROOT)
  const runIds = ["run-20260101T000000Z-aaaaaaaaaa", "run-20260101T000001Z-bbbbbbbbbb"]
  for (const runId of runIds) {
    const { directory } = yield* runs.create({ runId, coordinatorPid: process.pid, details: { model: "gpt-5.6-sol" } })
    yield* files.writeJson(path.join(directory, "report.json"), {
      thread_id: "thread-1",
      winner: "codex",
      candidates: { codex: { model: "gpt-5.6-sol" }, claude: {} },
      evaluation: null
    })
    yield* runs.update(directory, { status: "completed", phase: "reporting" })
  }
  const record: BatchRecord = {
    schema_version: 1,
    batch_id: "batch-20260101T000000Z-0123456789",
    status: "running",
    controller_session_id: settings.controllerSessionId,
    coordinator_pid: process.pid,
    coordinator_start_time: null,
    created_at: "2026-01-01T00:00:00.000Z",
    ended_at: null,
    prepare_token_hash: "hash",
    reviewer_model: "gpt-5.5",
    blocked: [],
    items: runIds.map((run_id) => ({ configuration_index: 0, thread_id: "thread-1", model: "gpt-5.6-sol", run_id, claude_usd: 1 })),
    resumed_by: [],
    portfolio: null
  }
  return record
})

const noRefusals: Refusals = { left: 0, code: "ENOSPC", file: /$^/ }
const waitingFor = (batchId: string, what: string) =>
  until(Effect.map(summaryNow(batchId), (batch) =>
    batch.waiting_for === "disk_space" && (batch.status_note ?? "").includes(what) ? Option.some(batch) : Option.none()))

describe("a batch on a disk without room", () => {
  it.effect("waits for disk space for its record and its portfolio, says so in its summary, then finishes with its counts and its portfolio", () =>
    Effect.gen(function*() {
      const refusals = yield* Ref.make<Refusals>(noRefusals)
      yield* Effect.gen(function*() {
        const batches = yield* Batches
        const record = yield* completedBatch
        // The start: the disk refuses the batch's configurations, so its record is held in memory.
        yield* Ref.set(refusals, { left: Number.POSITIVE_INFINITY, code: "ENOSPC", file: /^configurations\.json$/ })
        yield* batches.create(record, [])
        expect(yield* batches.isUnwritten(record.batch_id)).toBe(true)
        yield* launchBatch(record.batch_id, [])
        const first = yield* waitingFor(record.batch_id, "the batch record")
        expect(first).toMatchObject({ status: "running", counts: { running: 2, completed: 0 }, portfolio: null })
        expect(first.status_note).toBe("Waiting for disk space: cannot write the batch record (ENOSPC); the batch carries on once space returns.")
        // The record can be written, the portfolio only half (a quota this time): its JSON, not its page.
        yield* Ref.set(refusals, { left: Number.POSITIVE_INFINITY, code: "EDQUOT", file: /^portfolio\.html$/ })
        const second = yield* waitingFor(record.batch_id, "portfolio")
        expect(second).toMatchObject({ status: "running", counts: { running: 0, completed: 2 }, portfolio: null })
        expect(second.status_note).toContain("(EDQUOT)")
        expect(yield* batches.isUnwritten(record.batch_id)).toBe(false)
        // Space returns: the batch ends within one wait of at most 5 s.
        yield* Ref.set(refusals, noRefusals)
        const ended = yield* until(Effect.map(summaryNow(record.batch_id), (batch) => (batch.status === "running" ? Option.none() : Option.some(batch))))
        expect(ended).toMatchObject({ status: "finished", waiting_for: null, status_note: null, counts: { completed: 2, failed: 0, running: 0, pending: 0 } })
        expect(ended.portfolio).not.toBeNull()
        const files = yield* FileStore
        expect((yield* files.readJson(ended.portfolio!.portfolio_json, 1 << 20)).run_ids).toEqual(record.items.map((item) => item.run_id))
        expect(yield* files.readJson(path.join(RUN_ROOT, "batches", record.batch_id, "batch.json"), 1 << 20)).toMatchObject({ status: "finished" })
        // Each half-written try was removed: the one portfolio is the batch's.
        expect(yield* files.listDirectories(path.join(RUN_ROOT, "portfolios"))).toEqual([ended.portfolio!.portfolio_id])
      }).pipe(Effect.provide(layerWith(refusals)))
    }))

  it.effect("a cancel of a batch waiting for disk space answers at once; the cancelled record is written once space returns", () =>
    Effect.gen(function*() {
      const refusals = yield* Ref.make<Refusals>(noRefusals)
      yield* Effect.gen(function*() {
        const batches = yield* Batches
        const files = yield* FileStore
        const record = yield* completedBatch
        yield* batches.create(record, [])
        yield* Ref.set(refusals, { left: Number.POSITIVE_INFINITY, code: "EIO", file: /^batch\.json$/ })
        yield* launchBatch(record.batch_id, [])
        yield* waitingFor(record.batch_id, "the batch record")
        const { record: cancelled } = yield* cancelBatch(record.batch_id)
        expect(cancelled.status).toBe("cancelled")
        const summary = yield* summaryNow(record.batch_id)
        expect(summary).toMatchObject({ status: "cancelled", waiting_for: null })
        const file = path.join(RUN_ROOT, "batches", record.batch_id, "batch.json")
        expect(yield* files.readJson(file, 1 << 20)).toMatchObject({ status: "running" })
        yield* Ref.set(refusals, noRefusals)
        yield* until(Effect.map(files.readJson(file, 1 << 20), (onDisk) => (onDisk.status === "cancelled" ? Option.some(true) : Option.none())))
        expect(yield* batches.isUnwritten(record.batch_id)).toBe(false)
      }).pipe(Effect.provide(layerWith(refusals)))
    }))

  it.effect("a cancel still held in memory when the controller stops is written on the way out, and the batch is not resumed", () =>
    Effect.gen(function*() {
      const refusals = yield* Ref.make<Refusals>(noRefusals)
      yield* Effect.gen(function*() {
        const batches = yield* Batches
        const supervisor = yield* RunSupervisor
        const files = yield* FileStore
        const record = yield* completedBatch
        yield* batches.create(record, [])
        yield* Ref.set(refusals, { left: Number.POSITIVE_INFINITY, code: "ENOSPC", file: /^batch\.json$/ })
        yield* launchBatch(record.batch_id, [])
        yield* waitingFor(record.batch_id, "the batch record")
        yield* cancelBatch(record.batch_id)
        // The controller stops: every fiber ends, the one waiting to write the cancel too.
        yield* supervisor.interruptAll
        expect(yield* batches.isUnwritten(record.batch_id)).toBe(true)
        const file = path.join(RUN_ROOT, "batches", record.batch_id, "batch.json")
        // Still no room: the record stays held, and is said so.
        yield* batches.flushUnwritten
        expect(yield* files.readJson(file, 1 << 20)).toMatchObject({ status: "running" })
        // Room again as it stops: the cancel is on disk, so no controller resumes the batch.
        yield* Ref.set(refusals, noRefusals)
        yield* batches.flushUnwritten
        expect(yield* files.readJson(file, 1 << 20)).toMatchObject({ status: "cancelled" })
        expect(yield* batches.isUnwritten(record.batch_id)).toBe(false)
      }).pipe(Effect.provide(layerWith(refusals)))
    }))

  it.effect("only a disk without room is waited for: any other refusal fails the write at once, as before", () =>
    Effect.gen(function*() {
      const refusals = yield* Ref.make<Refusals>(noRefusals)
      yield* Effect.gen(function*() {
        const batches = yield* Batches
        const record = yield* completedBatch
        yield* batches.create(record, [])
        const tries = yield* Ref.make(0)
        const refused = Effect.zipRight(Ref.update(tries, (n) => n + 1), Effect.fail(new StorageError({ message: "Cannot write batch.json: EACCES", code: "EACCES" })))
        const error = yield* Effect.flip(refused.pipe(whileDiskFull(record.batch_id, "the batch record")))
        expect(error.code).toBe("EACCES")
        expect(yield* Ref.get(tries)).toBe(1)
        expect((yield* summaryNow(record.batch_id)).waiting_for).toBeNull()
      }).pipe(Effect.provide(layerWith(refusals)))
    }))

  it.effect("waits 250 ms, doubling, never more than 5 s between tries", () =>
    Effect.gen(function*() {
      const delays = yield* Schedule.run(Schedule.delays(diskRetrySchedule), 0, Array.from({ length: 9 }, () => undefined))
      expect([...delays].map(Duration.toMillis)).toEqual([250, 500, 1000, 2000, 4000, 5000, 5000, 5000, 5000])
    }))
})

describe("a run's state writer on a disk without room", () => {
  it.effect("tries a state again for up to 10 s, so a run outlives a moment of full disk; longer, the update fails as before", () =>
    Effect.gen(function*() {
      const refusals = yield* Ref.make<Refusals>(noRefusals)
      yield* Effect.gen(function*() {
        const runs = yield* RunStore
        const files = yield* FileStore
        yield* files.ensurePrivateDirectory(RUN_ROOT)
        const { directory } = yield* runs.create({ runId: "run-20260101T000000Z-cccccccccc", coordinatorPid: process.pid })
        yield* Ref.set(refusals, { left: 3, code: "ENOSPC", file: /^controller-state\.json$/ })
        const brief = yield* Effect.fork(runs.update(directory, { phase: "implementing", summary: "implementing" }))
        yield* TestClock.adjust("2 seconds")
        expect((yield* Fiber.join(brief)).phase).toBe("implementing")
        expect(yield* files.readJson(path.join(directory, "controller-state.json"), 1 << 20)).toMatchObject({ phase: "implementing" })
        yield* Ref.set(refusals, { left: Number.POSITIVE_INFINITY, code: "ENOSPC", file: /^controller-state\.json$/ })
        const long = yield* Effect.fork(runs.update(directory, { phase: "collecting" }))
        yield* TestClock.adjust("9 seconds")
        expect(Option.isNone(yield* Fiber.poll(long))).toBe(true)
        yield* TestClock.adjust("10 seconds")
        const error = yield* Effect.flip(Fiber.join(long))
        expect(error).toMatchObject({ _tag: "StorageError", code: "ENOSPC" })
      }).pipe(Effect.provide(layerWith(refusals)))
    }))
})
