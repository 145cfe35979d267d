import { describe, expect, it } from "@effect/vitest"
import { Effect, Option, Schedule } from "effect"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import type { BatchRecord } from "../../../src/domain/batch.js"
import { prepareBatch } from "../../../src/programs/batches/prepare.js"
import { resumeBatches } from "../../../src/programs/batches/start.js"
import { Batches } from "../../../src/services/Batches.js"
import { RunStore } from "../../../src/services/RunStore.js"
import { batchHistory, batchThreadId } from "../../runs/batchSupport.js"
import { fakeWorker, pipelineLayer, testSettings } from "../../runs/harness.js"

const settings = testSettings()
batchHistory(path.dirname(settings.claudeConfigDir), 3)

/** The implementations the fake worker started, by run tag. */
const implemented: Array<string> = []
const worker = fakeWorker((request) =>
  Effect.sync(() => {
    implemented.push(request.runTag ?? "")
    fs.writeFileSync(path.join(request.workingDirectory, "notes.md"), "notes\n")
    return "Wrote notes.md."
  }))

/** A pid that belonged to a process that has ended: a controller killed with `kill -9`. */
const deadPid = () => spawnSync("true").pid!

const NOT_CREATED = "run-20260101T000000Z-aaaaaaaaaa"
const STARTED_BEFORE = "run-20260101T000000Z-bbbbbbbbbb"

describe("a batch whose controller died", () => {
  it.live("is resumed: a run id without a run is created with that id, a run that exists is not started again, the rest start", () =>
    Effect.gen(function*() {
      const batches = yield* Batches
      const runs = yield* RunStore
      const configurations = [1, 2, 3].map((n) => ({
        thread_id: batchThreadId(n),
        request: `Task ${n}.`,
        beginning_kind: "non_git",
        ending_kind: "non_git",
        confirm_empty_beginning: true,
        models: ["gpt-5.6-sol"]
      }))
      const prepared = yield* prepareBatch({ configurations })
      const approved = Option.getOrThrow(yield* batches.lookupPrepared(prepared.prepare_token!))
      // The record as the dead controller left it: one run id written but its run not created yet,
      // one run that was running when it died (marked interrupted since), one pair without a run id.
      const { directory } = yield* runs.create({ runId: STARTED_BEFORE, coordinatorPid: deadPid() })
      yield* runs.update(directory, { status: "failed", summary: "The coordinator stopped before this replay finished." })
      const record: BatchRecord = {
        schema_version: 1,
        batch_id: "batch-20260101T000000Z-0123456789",
        status: "running",
        controller_session_id: "0".repeat(32),
        coordinator_pid: deadPid(),
        coordinator_start_time: null,
        created_at: "2026-01-01T00:00:00.000Z",
        ended_at: null,
        prepare_token_hash: "hash",
        reviewer_model: prepared.reviewer_model,
        blocked: [],
        items: [NOT_CREATED, STARTED_BEFORE, null].map((run_id, configuration_index) => ({
          configuration_index,
          thread_id: batchThreadId(configuration_index + 1),
          model: "gpt-5.6-sol",
          run_id,
          claude_usd: null
        })),
        resumed_by: [],
        portfolio: null
      }
      yield* batches.create(record, approved.configurations)

      expect(yield* resumeBatches).toBe(1)
      const ended = yield* batches.read(record.batch_id).pipe(
        Effect.filterOrFail((current) => current.ended_at !== null),
        Effect.retry(Schedule.spaced("50 millis"))
      )
      expect(ended.status).toBe("finished")
      expect(ended.resumed_by).toEqual([settings.controllerSessionId])
      expect(ended.controller_session_id).toBe(settings.controllerSessionId)
      expect(ended.items[0]!.run_id).toBe(NOT_CREATED)
      expect(ended.items[1]!.run_id).toBe(STARTED_BEFORE)
      const fresh = ended.items[2]!.run_id!
      expect(fresh).toMatch(/^run-/)
      expect(implemented.sort()).toEqual([NOT_CREATED, fresh].sort())
      for (const runId of [NOT_CREATED, fresh]) expect((yield* runs.readAny(runId)).state.status).toBe("completed")
      expect((yield* runs.readAny(STARTED_BEFORE)).state.status).toBe("failed")
      const portfolio = JSON.parse(fs.readFileSync(ended.portfolio!.portfolio_json, "utf8"))
      expect(portfolio.run_ids.sort()).toEqual([NOT_CREATED, fresh].sort())

      // A second controller start finds nothing to resume.
      expect(yield* resumeBatches).toBe(0)
    }).pipe(Effect.provide(pipelineLayer(settings, worker))), 60_000)
})
