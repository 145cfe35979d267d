/**
 * The Codex worker's own overhead: end-to-end runs through CodexWorker.run (the real SDK, the
 * fake CLI with zero latency, run.log streaming, the leftover sweep). Prints the median of 20.
 */
import { Effect, Layer } from "effect"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { CodexWorker } from "../src/services/CodexWorker.js"
import { ProcessRunner } from "../src/services/ProcessRunner.js"
import { RunLog } from "../src/services/RunLog.js"

const RUNS = 20
const WARMUP = 2
const fakeCodex = fileURLToPath(new URL("../test/fake-codex/codex", import.meta.url))
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "bench-worker-"))

const layer = CodexWorker.layer({
  cliPath: fakeCodex,
  environment: { ...process.env, FAKE_CODEX_DELAY_MS: "0", FAKE_CODEX_SESSIONS_DIR: path.join(scratch, "sessions") }
}).pipe(Layer.provide(Layer.mergeAll(ProcessRunner.Default, RunLog.Default)))

const oneRun = (index: number) =>
  Effect.gen(function*() {
    const worker = yield* CodexWorker
    const runDirectory = path.join(scratch, `run-${index}`)
    const workspace = path.join(runDirectory, "workspace")
    fs.mkdirSync(workspace, { recursive: true })
    const started = performance.now()
    yield* worker.run({ purpose: "implementation", model: "gpt-5.6-terra", prompt: "Add a greeting.", workingDirectory: workspace, runDirectory })
    return performance.now() - started
  })

/** The same fake run spawned directly, without the SDK or the worker: the floor the worker adds to. */
const bareRun = (index: number) =>
  Effect.promise(() => {
    const workspace = path.join(scratch, `bare-${index}`)
    fs.mkdirSync(workspace, { recursive: true })
    const started = performance.now()
    const child = spawn(fakeCodex, ["exec", "--experimental-json", "--skip-git-repo-check", "--cd", workspace], {
      env: { ...process.env, FAKE_CODEX_SESSIONS_DIR: path.join(scratch, "sessions") },
      stdio: ["pipe", "ignore", "ignore"]
    })
    child.stdin.end("Add a greeting.")
    return new Promise<number>((resolve) => child.once("exit", () => resolve(performance.now() - started)))
  })

const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 0 ? (sorted[middle - 1]! + sorted[middle]!) / 2 : sorted[middle]!
}

const program = Effect.gen(function*() {
  for (let index = 0; index < WARMUP; index++) yield* oneRun(-1 - index)
  const durations: number[] = []
  for (let index = 0; index < RUNS; index++) durations.push(yield* oneRun(index))
  const bare: number[] = []
  for (let index = 0; index < RUNS; index++) bare.push(yield* bareRun(index))
  const round = (value: number) => Math.round(value * 10) / 10
  console.log(JSON.stringify({
    benchmark: "codex-worker zero-latency fake run, end to end",
    runs: RUNS,
    median_ms: round(median(durations)),
    min_ms: round(Math.min(...durations)),
    max_ms: round(Math.max(...durations)),
    bare_fake_cli_median_ms: round(median(bare)),
    worker_overhead_median_ms: round(median(durations) - median(bare))
  }))
}).pipe(Effect.provide(layer), Effect.ensuring(Effect.sync(() => fs.rmSync(scratch, { recursive: true, force: true }))))

await Effect.runPromise(program)
