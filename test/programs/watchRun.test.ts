import { it } from "@effect/vitest"
import { Chunk, Effect, Stream } from "effect"
import { expect } from "vitest"
import type { RunState } from "../../src/domain/runState.js"
import { watchRun } from "../../src/programs/runs/watch.js"
import { RunStore, type RunsSnapshot } from "../../src/services/RunStore.js"
import { makeTestLayer } from "../support/testLayers.js"

const stateWith = (status: string, phase: string) =>
  ({ run_id: "run-watched", controller_session_id: "c".repeat(32), status, phase, started_at: "2026-12-01T00:00:00.000Z" }) as unknown as RunState

const snapshotOf = (state: RunState): RunsSnapshot => ({
  runs: new Map([[state.run_id, { directory: "/runs/run-watched", state, stamp: undefined, unwritten: false }]]),
  owned: []
})

/**
 * The run store answers a run's state from disk and then from its own snapshot: two objects for one unchanged
 * state file (which of them comes first depends on when the store looked at the run root).
 */
const storeSeeing = (...snapshots: ReadonlyArray<RunState>) =>
  makeTestLayer(RunStore)({
    readAny: () => Effect.succeed({ directory: "/runs/run-watched", state: stateWith("running", "implementation") }),
    changes: Stream.fromIterable(snapshots.map(snapshotOf))
  } as Partial<RunStore>)

it.effect("watch_run tells each state once, however many times the store reads it, and ends with the final one", () =>
  Effect.gen(function*() {
    const statuses = yield* Stream.runCollect(watchRun("run-watched").pipe(Stream.map((state) => `${state.status}/${state.phase}`)))
    expect(Chunk.toReadonlyArray(statuses)).toEqual(["running/implementation", "running/review", "completed/reporting"])
  }).pipe(Effect.provide(storeSeeing(
    stateWith("running", "implementation"),
    stateWith("running", "implementation"),
    stateWith("running", "review"),
    stateWith("completed", "reporting"),
    stateWith("completed", "reporting")
  ))))
