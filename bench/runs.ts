/**
 * The run pipeline's own overhead (issue 6): 20 replays of the packaged git sample through
 * prepareRun → startRun → awaitRun with a zero-latency fake worker, 4 at a time (the controller's
 * semaphore). Reports the orchestration overhead per run (pipeline time minus worker time), the
 * workspace creation time against a plain `git clone --no-checkout` + checkout, and peak RSS.
 */
import { Effect, Ref } from "effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import type { RunState } from "../src/domain/runState.js"
import { awaitRun } from "../src/programs/runs/watch.js"
import { prepareRun } from "../src/programs/runs/prepare.js"
import { startRun } from "../src/programs/runs/start.js"
import { Samples } from "../src/services/Samples.js"
import { Workspace } from "../src/services/Workspace.js"
import { pipelineLayer, testSettings, tieBallot } from "../test/runs/harness.js"
import { CodexWorker } from "../src/services/CodexWorker.js"

const RUNS = 20
const WORKSPACE_SAMPLES = 20
const SAMPLE = "sample-word-count"

const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}
const mean = (values: ReadonlyArray<number>) => values.reduce((sum, value) => sum + value, 0) / values.length
const ms = (value: number) => `${value.toFixed(1)} ms`

const settings = testSettings()
const scratch = path.join(settings.cacheRoot, "bench")
fs.mkdirSync(scratch, { recursive: true })

/** Worker time per run tag: the fake does its work (one file) and answers at once. */
const workerTime = new Map<string, number>()
const timedWorker = CodexWorker.fake((request) => {
  const started = performance.now()
  if (request.purpose === "implementation") {
    fs.writeFileSync(path.join(request.workingDirectory, "wc_words.py"), "def words(text):\n    return len(text.split())\n")
  }
  const answer = request.purpose === "implementation" ? "Added --words." : tieBallot
  const tag = request.runTag ?? ""
  workerTime.set(tag, (workerTime.get(tag) ?? 0) + performance.now() - started)
  return Effect.succeed(answer)
})

const eventTime = (state: RunState, phase: string) => Date.parse(state.events.find((event) => event.phase === phase)?.at ?? "")

const replays = Effect.gen(function*() {
  const samples = yield* Samples
  const { inspection, manifest } = yield* samples.inspect(SAMPLE)
  const repository = inspection.record.project_dir ?? ""
  const base = {
    thread_id: SAMPLE,
    request: "Add a --words option to wc.py.",
    repo: repository,
    beginning_kind: "git",
    ending_kind: "git",
    baseline_commit: manifest?.baseline_commit,
    ending_commit: manifest?.ending_commit,
    model: "gpt-5.6-sol"
  }
  const startLatency = yield* Ref.make<Array<number>>([])
  const batchStarted = performance.now()
  const runIds = yield* Effect.forEach(Array.from({ length: RUNS }), () =>
    Effect.gen(function*() {
      const config = base
      const started = performance.now()
      const prepared = yield* prepareRun(config)
      const run = yield* startRun({ ...config, approved: true, prepare_token: prepared.prepare_token })
      yield* Ref.update(startLatency, (list) => [...list, performance.now() - started])
      return run.run_id
    }))
  const states = yield* Effect.forEach(runIds, (runId) => awaitRun(runId, { pollInterval: "20 millis" }), { concurrency: "unbounded" })
  const batchMillis = performance.now() - batchStarted
  return { states, batchMillis, startLatency: yield* Ref.get(startLatency), repository, commit: String(manifest?.baseline_commit) }
})

const workspaceComparison = (repository: string, commit: string) =>
  Effect.gen(function*() {
    const workspace = yield* Workspace
    const ours: Array<number> = []
    const plain: Array<number> = []
    for (let index = 0; index < WORKSPACE_SAMPLES; index++) {
      const runDirectory = path.join(scratch, `workspace-${index}`)
      fs.mkdirSync(runDirectory, { recursive: true })
      let started = performance.now()
      yield* workspace.materialise(runDirectory, { kind: "git", repository, commit, carriedForwardFiles: [] })
      ours.push(performance.now() - started)
      const target = path.join(scratch, `plain-${index}`)
      started = performance.now()
      execFileSync("git", ["clone", "--quiet", "--no-checkout", repository, target])
      execFileSync("git", ["-C", target, "checkout", "--quiet", "--detach", commit])
      plain.push(performance.now() - started)
    }
    return { ours: median(ours), plain: median(plain) }
  })

const main = Effect.gen(function*() {
  const { states, batchMillis, startLatency, repository, commit } = yield* replays
  const failed = states.filter((state) => state.status !== "completed")
  if (failed.length > 0) throw new Error(`${failed.length} replay(s) did not complete: ${failed[0]?.error}`)
  const pipeline = states.map((state) => Date.parse(String(state.completed_at)) - eventTime(state, "creating_workspace"))
  const overhead = states.map((state, index) => pipeline[index]! - (workerTime.get(state.run_id) ?? 0))
  const workspaces = yield* workspaceComparison(repository, commit)
  const peakRss = process.resourceUsage().maxRSS / 1024
  console.log(`Replays: ${RUNS} of ${SAMPLE}, zero-latency fake worker, at most 4 at once`)
  console.log(`  batch wall time            ${ms(batchMillis)} (${ms(batchMillis / RUNS)} per replay)`)
  console.log(`  prepare + start, median    ${ms(median(startLatency))}`)
  console.log(`  pipeline per run, median   ${ms(median(pipeline))} (mean ${ms(mean(pipeline))})`)
  console.log(`  worker time per run, mean  ${ms(mean(states.map((state) => workerTime.get(state.run_id) ?? 0)))}`)
  const phases = ["creating_workspace", "implementing", "collecting", "reviewing", "reporting"]
  const phaseSpans = phases.map((phase, index) =>
    median(states.map((state) => {
      const end = index + 1 < phases.length ? eventTime(state, phases[index + 1]!) : Date.parse(String(state.completed_at))
      return end - eventTime(state, phase)
    })))
  console.log(`  per phase, median          ${phases.map((phase, index) => `${phase} ${ms(phaseSpans[index]!)}`).join(", ")}`)
  console.log(`  overhead per run, median   ${ms(median(overhead))}, max ${ms(Math.max(...overhead))} (target ≤ 1500 ms)`)
  console.log(`Workspace creation (median of ${WORKSPACE_SAMPLES})`)
  console.log(`  codex-replay workspace     ${ms(workspaces.ours)}`)
  console.log(`  git clone --no-checkout + checkout ${ms(workspaces.plain)}`)
  console.log(`  ratio                      ${(workspaces.ours / workspaces.plain).toFixed(2)}× (target ≤ 1.5×)`)
  console.log(`Peak RSS                     ${peakRss.toFixed(0)} MiB`)
})

await Effect.runPromise(main.pipe(Effect.provide(pipelineLayer(settings, timedWorker)), Effect.scoped))
fs.rmSync(settings.cacheRoot, { recursive: true, force: true })
