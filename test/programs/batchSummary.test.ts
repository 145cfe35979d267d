import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import type { BatchRecord } from "../../src/domain/batch.js"
import { runViews, summaryOf } from "../../src/programs/batches/summary.js"
import { RunStore } from "../../src/services/RunStore.js"
import { fakeWorker, pipelineLayer, testSettings } from "../runs/harness.js"

const settings = testSettings()
const RUN_ID = "run-20260101T000000Z-cccccccccc"
const PEER = "c".repeat(32)

/** Another controller's run state, as text padded to `length` (JSON allows the spaces), so both versions weigh the same. */
const stateText = (status: string, length = 0) =>
  JSON.stringify({
    schema_version: 1,
    run_id: RUN_ID,
    controller_session_id: PEER,
    thread_id: "sample-hello-cli",
    model: "gpt-5.6-sol",
    status,
    phase: status === "running" ? "reviewing" : "reporting",
    phases: [],
    events: [],
    coordinator_pid: process.pid,
    started_at: "2026-01-01T00:00:00.000Z",
    updated_at: "2026-01-01T00:00:00.000Z",
    error: null
  }).padEnd(length, " ")

const record: BatchRecord = {
  schema_version: 1,
  batch_id: "batch-20260101T000000Z-0123456789",
  status: "finished",
  controller_session_id: PEER,
  coordinator_pid: process.pid,
  coordinator_start_time: null,
  created_at: "2026-01-01T00:00:00.000Z",
  ended_at: "2026-01-01T00:10:00.000Z",
  prepare_token_hash: "hash",
  reviewer_model: "gpt-5.6-sol",
  blocked: [],
  items: [{ configuration_index: 0, thread_id: "sample-hello-cli", model: "gpt-5.6-sol", run_id: RUN_ID, claude_usd: null }],
  resumed_by: [],
  portfolio: null
}

describe("get_batch on a controller that does not run the batch", () => {
  it.live("never reports the batch finished while counting one of its replays as running", () =>
    Effect.gen(function*() {
      const runs = yield* RunStore
      const directory = path.join(settings.runRoot, RUN_ID)
      const file = path.join(directory, "controller-state.json")
      fs.mkdirSync(directory, { recursive: true, mode: 0o700 })
      const completed = stateText("completed")
      // Written a while ago (the store re-reads a file changed in its last moments whatever its stamp).
      const earlier = new Date(Date.now() - 60_000)
      fs.writeFileSync(file, stateText("running", completed.length))
      fs.utimesSync(file, earlier, earlier)
      expect((yield* runs.listAll()).map((state) => state.status)).toEqual(["running"])

      // The peer finishes the run: same size, same time, same inode; the store's last look still says running.
      fs.writeFileSync(file, completed)
      fs.utimesSync(file, earlier, earlier)
      yield* runs.listAll()
      expect((yield* runViews).get(RUN_ID)?.status).toBe("running")

      const summary = yield* summaryOf(record)
      expect(summary.status).toBe("finished")
      expect(summary.counts).toMatchObject({ running: 0, completed: 1 })
      expect(summary.current_runs).toEqual([])
      expect(summary.items[0]?.status).toBe("completed")
    }).pipe(Effect.provide(pipelineLayer(settings, fakeWorker(() => Effect.succeed("unused"))))), 30_000)
})
