/**
 * `list_runs` and a batch's summary say, for each completed run of the answer, whether it is still blind
 * (no `vote.json`, no `revealed.json`, and the two candidates recorded to judge), so the page can keep its verdict from view until the user judges or
 * reveals it. Real files in a fresh run root.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import type { BatchRecord } from "../../src/domain/batch.js"
import { summaryOf } from "../../src/programs/batches/summary.js"
import { listRuns } from "../../src/programs/runs/history.js"
import { RunStore } from "../../src/services/RunStore.js"
import { fakeWorker, pipelineLayer, testSettings } from "../runs/harness.js"

const settings = testSettings()
const RUNS = ["run-20260101T000000Z-aaaaaaaaaa", "run-20260101T000001Z-bbbbbbbbbb", "run-20260101T000002Z-cccccccccc", "run-20260101T000004Z-eeeeeeeeee"]
const RUNNING = "run-20260101T000003Z-dddddddddd"

const writeState = (runId: string, status: string) => {
  const directory = path.join(settings.runRoot, runId)
  fs.mkdirSync(directory, { recursive: true, mode: 0o700 })
  fs.writeFileSync(path.join(directory, "controller-state.json"), JSON.stringify({
    schema_version: 1, run_id: runId, controller_session_id: "c".repeat(32), thread_id: "sample-hello-cli", model: "gpt-5.6-sol",
    status, phase: "reporting", phases: [], events: [], coordinator_pid: null,
    started_at: "2026-01-01T00:00:00.000Z", updated_at: "2026-01-01T00:00:00.000Z", error: null,
    ...(status === "completed" ? { report_summary: { winner: "codex" } } : {})
  }))
  if (status === "completed") {
    fs.mkdirSync(path.join(directory, "reviews"), { mode: 0o700 })
    for (const name of ["candidate-a.json", "candidate-b.json", "candidate-mapping.json"]) fs.writeFileSync(path.join(directory, "reviews", name), "{}")
  }
  return directory
}

const record: BatchRecord = {
  schema_version: 1,
  batch_id: "batch-20260101T000000Z-0123456789",
  status: "finished",
  controller_session_id: "c".repeat(32),
  coordinator_pid: process.pid,
  coordinator_start_time: null,
  created_at: "2026-01-01T00:00:00.000Z",
  ended_at: "2026-01-01T00:10:00.000Z",
  prepare_token_hash: "hash",
  reviewer_model: "gpt-5.6-sol",
  blocked: [],
  items: [...RUNS, RUNNING].map((run_id, configuration_index) => ({ configuration_index, thread_id: "sample-hello-cli", model: "gpt-5.6-sol", run_id, claude_usd: null })),
  resumed_by: [],
  portfolio: null
}

describe("which completed runs are still blind", () => {
  it.live("list_runs and the batch's items say blind until a vote or a reveal; a run not completed says nothing", () =>
    Effect.gen(function*() {
      const [blindRun, votedRun, revealedRun, unrecorded] = RUNS.map((runId) => writeState(runId, "completed"))
      writeState(RUNNING, "running")
      fs.writeFileSync(path.join(votedRun!, "vote.json"), "{}")
      fs.writeFileSync(path.join(revealedRun!, "revealed.json"), "{}")
      // A review that recorded no candidates leaves nothing to judge blind: its verdict shows.
      fs.rmSync(path.join(unrecorded!, "reviews", "candidate-b.json"))
      yield* (yield* RunStore).listAll()
      const expected = { [RUNS[0]!]: true, [RUNS[1]!]: false, [RUNS[2]!]: false, [RUNS[3]!]: false, [RUNNING]: undefined }

      const listed = yield* listRuns({})
      expect(Object.fromEntries(listed.runs.map((run) => [run.run_id, run.blind]))).toEqual(expected)
      expect(listed.runs.find((run) => run.run_id === RUNNING)).not.toHaveProperty("blind")
      // Only the page asked for is looked at.
      expect((yield* listRuns({ limit: 1 })).runs.map((run) => [run.run_id, run.blind])).toEqual([[RUNS[3], false]])

      const summary = yield* summaryOf(record)
      expect(Object.fromEntries(summary.items.map((item) => [item.run_id, item.blind]))).toEqual(expected)

      // Revealed since: blind no more.
      fs.writeFileSync(path.join(blindRun!, "revealed.json"), "{}")
      expect((yield* listRuns({})).runs.find((run) => run.run_id === RUNS[0])?.blind).toBe(false)
    }).pipe(Effect.provide(pipelineLayer(settings, fakeWorker(() => Effect.succeed("unused"))))), 30_000)
})
