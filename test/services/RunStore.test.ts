import { it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, expect } from "vitest"
import { RunStore } from "../../src/services/RunStore.js"
import { Settings, settingsOf } from "../../src/services/Settings.js"
import { sessionId, writeRun } from "../support/daemon.js"

const session = sessionId()
const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "runstore-")))
const runRoot = path.join(root, "runs")
fs.mkdirSync(runRoot, { mode: 0o700 })
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

const RunStoreLive = RunStore.Default.pipe(
  Layer.provide(Layer.effect(Settings, settingsOf({ CODEX_REPLAY_RUN_ROOT: runRoot, CODEX_REPLAY_CONTROLLER_SESSION_ID: session })))
)

const nextTurn = Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))
const listed = (runs: RunStore) => Effect.map(runs.listOwned(), (states) => states.map((state) => `${state.run_id}:${state.status}`))

/** Files changed within the last second are read again each time; older ones are answered from memory. */
const settle = () => {
  const past = new Date(Date.now() - 60_000)
  for (const entry of [runRoot, ...fs.readdirSync(runRoot, { recursive: true }).map((name) => path.join(runRoot, String(name)))]) {
    fs.utimesSync(entry, past, past)
  }
}

it.effect("lists this process's own writes at once, and another writer's from the next turn", () =>
  Effect.gen(function*() {
    const runs = yield* RunStore
    expect(yield* listed(runs)).toEqual([])

    const { directory } = yield* runs.create({ runId: "run-own", coordinatorPid: process.pid })
    expect(yield* listed(runs)).toEqual(["run-own:running"])
    yield* runs.update(directory, { status: "completed", phase: "reporting" })
    expect(yield* listed(runs)).toEqual(["run-own:completed"])

    settle()
    // Once settled, the state files are parsed once more and then known by their stamps, so a listing
    // needs no asynchronous read and is kept for the rest of its turn.
    expect(yield* listed(runs)).toEqual(["run-own:completed"])
    yield* nextTurn
    expect(yield* listed(runs)).toEqual(["run-own:completed"])
    writeRun(runRoot, "run-written-elsewhere", { controller_session_id: session, status: "running" })
    // Requests handled in the same turn share one look at the disk.
    expect(yield* listed(runs)).toEqual(["run-own:completed"])
    yield* nextTurn
    // Newest first: the TestClock dated our own run 1970.
    expect(yield* listed(runs)).toEqual(["run-written-elsewhere:running", "run-own:completed"])

    fs.rmSync(path.join(runRoot, "run-own"), { recursive: true })
    yield* nextTurn
    expect(yield* listed(runs)).toEqual(["run-written-elsewhere:running"])
  }).pipe(Effect.provide(RunStoreLive)))

it.effect("keeps no listing that took more than one turn: a run removed meanwhile is gone next time", () =>
  Effect.gen(function*() {
    const runs = yield* RunStore
    writeRun(runRoot, "run-recent", { controller_session_id: session, status: "running" })
    // The run root changed within the last second, so this listing reads the directory asynchronously.
    expect(yield* listed(runs)).toContain("run-recent:running")
    fs.rmSync(path.join(runRoot, "run-recent"), { recursive: true })
    expect(yield* listed(runs)).not.toContain("run-recent:running")
  }).pipe(Effect.provide(RunStoreLive)))
