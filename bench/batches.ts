/**
 * A batch's own cost (issue 15): 25 threads × 2 models through prepare_run/start_run with
 * `configurations`, with a zero-latency fake worker, 4 replays at a time. Reports the batch's wall
 * time per replay, what it adds beyond the worker's own time (wall time − worker time ÷ 4, per replay),
 * and each run's pipeline time beyond its worker time.
 */
import { Effect, Schedule } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { prepareBatch } from "../src/programs/batches/prepare.js"
import { startBatch } from "../src/programs/batches/start.js"
import { Batches } from "../src/services/Batches.js"
import { CodexWorker } from "../src/services/CodexWorker.js"
import { RunStore } from "../src/services/RunStore.js"
import { pipelineLayer, testSettings, tieBallot } from "../test/runs/harness.js"

const THREADS = 25
const MODELS = ["gpt-5.6-sol", "gpt-5.6-terra"]
const TRANSCRIPT = path.join(import.meta.dirname, "../test/fixtures/claude-home/projects/-workspace/c45af7b1-cb7c-4e51-93db-8cbb250a877a.jsonl")

const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}
const sum = (values: ReadonlyArray<number>) => values.reduce((total, value) => total + value, 0)
const ms = (value: number) => `${value.toFixed(1)} ms`

const settings = testSettings()
const projects = path.join(settings.claudeConfigDir, "projects", "-workspace")
fs.mkdirSync(projects, { recursive: true })
const threadIds = Array.from({ length: THREADS }, (_, n) => `00000000-0000-4000-8000-${String(n + 1).padStart(12, "0")}`)
for (const id of threadIds) fs.copyFileSync(TRANSCRIPT, path.join(projects, `${id}.jsonl`))

/** Worker time per run tag: the fake writes one file and answers at once. */
const workerTime = new Map<string, number>()
const timedWorker = CodexWorker.fake((request) => {
  const started = performance.now()
  if (request.purpose === "implementation") fs.writeFileSync(path.join(request.workingDirectory, "notes.md"), "notes\n")
  const tag = request.runTag ?? ""
  workerTime.set(tag, (workerTime.get(tag) ?? 0) + performance.now() - started)
  return Effect.succeed(request.purpose === "implementation" ? "Wrote notes.md." : tieBallot)
})

const main = Effect.gen(function*() {
  const configurations = threadIds.map((thread_id) => ({
    thread_id,
    request: "Create notes.md.",
    beginning_kind: "non_git" as const,
    ending_kind: "non_git" as const,
    confirm_empty_beginning: true,
    models: MODELS
  }))
  const started = performance.now()
  const prepared = yield* prepareBatch({ configurations })
  const prepareMillis = performance.now() - started
  const { batch_id } = yield* startBatch({ configurations, approved: true, prepare_token: prepared.prepare_token! })
  const batches = yield* Batches
  const ended = yield* batches.read(batch_id).pipe(
    Effect.filterOrFail((record) => record.ended_at !== null),
    Effect.retry(Schedule.spaced("20 millis"))
  )
  const wall = performance.now() - started
  const runs = yield* RunStore
  const states = yield* Effect.forEach(ended.items, (item) => Effect.map(runs.readAny(item.run_id!), ({ state }) => state))
  const failed = states.filter((state) => state.status !== "completed")
  if (failed.length > 0) throw new Error(`${failed.length} replay(s) did not complete: ${failed[0]?.error}`)
  const replays = states.length
  const worker = states.map((state) => workerTime.get(state.run_id) ?? 0)
  const pipelineOverhead = states.map((state, index) => Date.parse(String(state.completed_at)) - Date.parse(state.started_at) - worker[index]!)
  console.log(`Batch: ${THREADS} threads × ${MODELS.length} models = ${replays} replays, zero-latency fake worker, 4 at a time`)
  console.log(`  prepare_run (${THREADS} configurations)  ${ms(prepareMillis)}`)
  console.log(`  batch wall time                   ${ms(wall)} (${ms(wall / replays)} per replay)`)
  console.log(`  beyond the worker's own time      ${ms((wall - sum(worker) / 4) / replays)} per replay`)
  console.log(`  run time beyond its worker, median ${ms(median(pipelineOverhead))}, max ${ms(Math.max(...pipelineOverhead))}`)
  console.log(`  batch.json                        ${fs.statSync(path.join(settings.runRoot, "batches", batch_id, "batch.json")).size} bytes`)
})

await Effect.runPromise(main.pipe(Effect.provide(pipelineLayer(settings, timedWorker)), Effect.scoped))
fs.rmSync(settings.cacheRoot, { recursive: true, force: true })
