import { it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { expect } from "vitest"
import { getState } from "../../src/programs/controller/tools.js"
import { Batches } from "../../src/services/Batches.js"
import { FileStore } from "../../src/services/FileStore.js"
import { RunStore } from "../../src/services/RunStore.js"
import { historyLayer, scratch, settingsFor } from "../history/support.js"

const root = scratch("get-state-")
const settings = settingsFor(path.join(root, "claude"), { runRoot: path.join(root, "runs") })
fs.mkdirSync(settings.runRoot, { recursive: true, mode: 0o700 })
const layer = Layer.mergeAll(RunStore.Default, Batches.Default, FileStore.Default).pipe(Layer.provideMerge(historyLayer(settings)))

const recentRuns = Effect.map(getState, (answer) => answer.state.recent_runs.map((run) => `${run.run_id}:${run.status}`))

it.effect("answers from the run store: a run this controller creates or changes shows in the next answer", () =>
  Effect.gen(function*() {
    expect(yield* recentRuns).toEqual([])
    const runs = yield* RunStore
    const { directory } = yield* runs.create({ runId: "run-new", coordinatorPid: process.pid })
    expect(yield* recentRuns).toEqual(["run-new:running"])
    yield* runs.update(directory, { status: "completed", phase: "reporting" })
    expect(yield* recentRuns).toEqual(["run-new:completed"])
  }).pipe(Effect.provide(layer)))

it.effect("lists the 12 most recent of this controller's runs, newest first", () =>
  Effect.gen(function*() {
    const runs = yield* RunStore
    for (let index = 10; index < 25; index++) yield* runs.create({ runId: `run-${index}`, coordinatorPid: process.pid })
    const listed = yield* recentRuns
    expect(listed).toHaveLength(12)
    // Every run was created at the same (TestClock) instant: the run id breaks the tie.
    expect(listed[0]).toBe("run-new:completed")
    expect(listed[1]).toBe("run-24:running")
    expect(listed.at(-1)).toBe("run-14:running")
  }).pipe(Effect.provide(layer)))

it.effect("gives the same answer while nothing changed, and another once a run changes", () =>
  Effect.gen(function*() {
    const first = yield* getState
    expect(yield* getState).toEqual(first)
    const runs = yield* RunStore
    yield* runs.create({ runId: "run-zz", coordinatorPid: process.pid })
    const second = yield* getState
    expect(second).not.toEqual(first)
    expect(second.state.recent_runs[0]!.run_id).toBe("run-zz")
    expect(yield* getState).toEqual(second)
  }).pipe(Effect.provide(layer)))
