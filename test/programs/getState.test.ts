import { it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { expect } from "vitest"
import { getState } from "../../src/programs/controllerTools.js"
import { RunStore } from "../../src/services/RunStore.js"
import { historyLayer, scratch, settingsFor } from "../history/support.js"

const root = scratch("get-state-")
const settings = settingsFor(path.join(root, "claude"), { runRoot: path.join(root, "runs") })
fs.mkdirSync(settings.runRoot, { recursive: true, mode: 0o700 })
const layer = RunStore.Default.pipe(Layer.provideMerge(historyLayer(settings)))

it.effect("answers with one frozen object while nothing changed, and a new one when a run appears", () =>
  Effect.gen(function*() {
    const first = yield* getState.run({})
    expect(yield* getState.run({})).toBe(first)
    const state = first.structuredContent!.state as { recent_runs: Array<unknown>; models: Array<unknown> }
    for (const part of [first, first.content, first.structuredContent, state, state.recent_runs, state.models]) {
      expect(Object.isFrozen(part)).toBe(true)
    }
    expect(() => state.recent_runs.push({})).toThrow(TypeError)

    const runs = yield* RunStore
    yield* runs.create({ runId: "run-new", coordinatorPid: process.pid })
    const next = yield* getState.run({})
    expect(next).not.toBe(first)
    expect((next.structuredContent!.state as { recent_runs: Array<{ run_id: string }> }).recent_runs.map((run) => run.run_id))
      .toEqual(["run-new"])
  }).pipe(Effect.provide(layer)))
