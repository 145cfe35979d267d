import { it } from "@effect/vitest"
import { Chunk, Effect, Fiber, Layer, Stream, TestClock } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, expect } from "vitest"
import { RunStore } from "../../src/services/RunStore.js"
import { Settings, settingsOf } from "../../src/services/Settings.js"
import { sessionId, writeRun } from "../support/daemon.js"

const session = sessionId()
const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "runstore-")))
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

/** A store over a run root of its own. */
const storeOver = (name: string) => {
  const runRoot = path.join(root, name)
  fs.mkdirSync(runRoot, { mode: 0o700 })
  const layer = RunStore.Default.pipe(
    Layer.provide(Layer.effect(Settings, settingsOf({ CODEX_REPLAY_RUN_ROOT: runRoot, CODEX_REPLAY_CONTROLLER_SESSION_ID: session })))
  )
  return { runRoot, layer }
}

const listed = (runs: RunStore) => Effect.map(runs.listOwned(), (states) => states.map((state) => `${state.run_id}:${state.status}`))

it.effect("loads the run root at first use, and holds this controller's writes at once", () => {
  const { layer, runRoot } = storeOver("own")
  writeRun(runRoot, "run-before", { controller_session_id: session, status: "completed", started_at: "2026-01-01T00:00:00.000Z" })
  return Effect.gen(function*() {
    const runs = yield* RunStore
    expect(yield* listed(runs)).toEqual(["run-before:completed"])
    const { directory } = yield* runs.create({ runId: "run-own", coordinatorPid: process.pid })
    // The TestClock dates our own run 1970: newest first puts it last.
    expect(yield* listed(runs)).toEqual(["run-before:completed", "run-own:running"])
    yield* runs.update(directory, { status: "completed", phase: "reporting" })
    expect(yield* listed(runs)).toEqual(["run-before:completed", "run-own:completed"])
    // Written through: the file says the same.
    expect(JSON.parse(fs.readFileSync(path.join(directory, "controller-state.json"), "utf8")).status).toBe("completed")
    expect(yield* runs.countActive).toBe(0)
  }).pipe(Effect.provide(layer))
})

it.effect("notices runs other processes write, change or remove when it looks at the run root again", () => {
  const { layer, runRoot } = storeOver("others")
  return Effect.gen(function*() {
    const runs = yield* RunStore
    expect(yield* listed(runs)).toEqual([])
    writeRun(runRoot, "run-elsewhere", { controller_session_id: session, status: "running" })
    expect(yield* listed(runs)).toEqual([])
    yield* runs.rescan
    expect(yield* listed(runs)).toEqual(["run-elsewhere:running"])
    writeRun(runRoot, "run-elsewhere", { controller_session_id: session, status: "completed", note: "grown" })
    yield* runs.rescan
    expect(yield* listed(runs)).toEqual(["run-elsewhere:completed"])
    fs.rmSync(path.join(runRoot, "run-elsewhere"), { recursive: true })
    yield* runs.rescan
    expect(yield* listed(runs)).toEqual([])
  }).pipe(Effect.provide(layer))
})

it.effect("answers another controller's run from its file, and lists every run afresh", () => {
  const { layer, runRoot } = storeOver("foreign")
  const foreign = sessionId()
  return Effect.gen(function*() {
    const runs = yield* RunStore
    writeRun(runRoot, "run-foreign", { controller_session_id: foreign, status: "running" })
    expect((yield* runs.readAny("run-foreign")).state.status).toBe("running")
    writeRun(runRoot, "run-foreign", { controller_session_id: foreign, status: "failed" })
    expect((yield* runs.readAny("run-foreign")).state.status).toBe("failed")
    expect((yield* runs.listAll()).map((state) => state.run_id)).toEqual(["run-foreign"])
    expect(yield* listed(runs)).toEqual([])
    const refused = yield* Effect.flip(runs.readOwned("run-foreign"))
    expect(refused.message).toContain(`different controller session (${foreign})`)
  }).pipe(Effect.provide(layer))
})

it.effect("publishes every change to its subscribers", () => {
  const { layer } = storeOver("changes")
  return Effect.gen(function*() {
    const runs = yield* RunStore
    const seen = yield* runs.changes.pipe(
      Stream.map((snapshot) => snapshot.owned.map((state) => `${state.run_id}:${state.status}`).join(",")),
      Stream.changes,
      Stream.take(3),
      Stream.runCollect,
      Effect.fork
    )
    yield* Effect.yieldNow()
    const { directory } = yield* runs.create({ runId: "run-watched", coordinatorPid: process.pid })
    yield* runs.update(directory, { status: "cancelled" })
    expect(Chunk.toReadonlyArray(yield* Fiber.join(seen))).toEqual(["", "run-watched:running", "run-watched:cancelled"])
  }).pipe(Effect.provide(layer))
})

it.effect("makes a run whole under another name and then names it: a controller killed half way leaves no run without its state", () => {
  const { layer, runRoot } = storeOver("staged")
  return Effect.gen(function*() {
    const runs = yield* RunStore
    yield* runs.create({ runId: "run-whole", coordinatorPid: process.pid })
    expect(fs.readdirSync(runRoot)).toEqual(["run-whole"])
    // Killed after writing the state, before naming the run: what is left is no run.
    writeRun(runRoot, "run-killed", { controller_session_id: session, status: "running" })
    fs.appendFileSync(path.join(runRoot, "run-killed", "run.log"), "earlier [controller] run approved\n")
    fs.renameSync(path.join(runRoot, "run-killed"), path.join(runRoot, ".creating-run-killed.00c0de"))
    yield* runs.rescan
    expect((yield* runs.listAll()).map((state) => state.run_id)).toEqual(["run-whole"])
    expect((yield* Effect.flip(runs.readAny("run-killed"))).message).toBe("The replay run is unavailable.")
    // Created again (a resumed batch does), from nothing of the killed attempt.
    const { directory } = yield* runs.create({ runId: "run-killed", coordinatorPid: process.pid })
    expect(fs.readdirSync(runRoot).sort()).toEqual([".creating-run-killed.00c0de", "run-killed", "run-whole"])
    expect(fs.readFileSync(path.join(directory, "run.log"), "utf8").match(/run approved/g)).toHaveLength(1)
    expect((yield* runs.readAny("run-killed")).state.status).toBe("running")
  }).pipe(Effect.provide(layer))
})

it.effect("removes what a killed controller left of a run it never named, once no controller can still be making it", () => {
  const { layer, runRoot } = storeOver("abandoned")
  const staging = (name: string, ageMs: number) => {
    const directory = path.join(runRoot, `.creating-${name}`)
    fs.mkdirSync(directory, { mode: 0o700 })
    fs.writeFileSync(path.join(directory, "controller-state.json"), "{}")
    const at = new Date(Date.now() - ageMs)
    fs.utimesSync(directory, at, at)
  }
  return Effect.gen(function*() {
    const runs = yield* RunStore
    staging("run-old", 11 * 60 * 1000)
    staging("run-recent", 60 * 1000)
    writeRun(runRoot, "run-kept", { controller_session_id: session, status: "completed" })
    yield* TestClock.setTime(Date.now())
    yield* runs.removeAbandonedCreations
    expect(fs.readdirSync(runRoot).sort()).toEqual([".creating-run-recent", "run-kept"])
  }).pipe(Effect.provide(layer))
})
