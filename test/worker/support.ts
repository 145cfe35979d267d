import { Effect, Layer } from "effect"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { RUN_TAG_VARIABLE } from "../../src/domain/product.js"
import { CodexWorker, type CodexWorkerOptions, type WorkerRequest } from "../../src/services/CodexWorker.js"
import { pidsWithEnvironment } from "../../src/services/platform/procfs.js"
import { ProcessRunner } from "../../src/services/ProcessRunner.js"
import { RunLog } from "../../src/services/RunLog.js"

export const FAKE_CODEX = fileURLToPath(new URL("../fake-codex/codex", import.meta.url))

export const scratch = (prefix = "worker-") => fs.mkdtempSync(path.join(os.tmpdir(), prefix))

export const freshTag = () => `test-${randomBytes(8).toString("hex")}`

export const realSleep = (ms: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, ms)))

export const taggedPids = (tag: string) => Effect.promise(() => pidsWithEnvironment(RUN_TAG_VARIABLE, tag))

/**
 * The pid as seen from here of a process that reported `inner` from inside its Codex's pid namespace
 * (the fake codex is that namespace's first process, pid 1), found among the processes carrying `tag`.
 */
export const outerPid = (inner: number, tag: string) =>
  Effect.map(taggedPids(tag), (pids) =>
    pids.find((pid) => {
      try {
        const line = fs.readFileSync(`/proc/${pid}/status`, "utf8").split("\n").find((entry) => entry.startsWith("NSpid:")) ?? ""
        return Number(line.split(/\s+/)[2]) === inner
      } catch {
        return false
      }
    }) ?? -1)

export const readLog = (runDirectory: string) => {
  try {
    return fs.readFileSync(path.join(runDirectory, "run.log"), "utf8")
  } catch {
    return ""
  }
}

/** Polls (real time) until `condition` holds, failing the test after `withinMs`. */
export const eventually = (condition: () => boolean, withinMs = 5000, what = "condition") =>
  Effect.gen(function*() {
    const deadline = Date.now() + withinMs
    while (!condition()) {
      if (Date.now() > deadline) return yield* Effect.die(new Error(`timed out waiting for ${what}`))
      yield* realSleep(20)
    }
  })

/** A live worker driving the fake CLI through the real SDK, with its state in a scratch folder. */
export const fakeCodexLayer = (
  environment: Record<string, string> = {},
  options: Partial<CodexWorkerOptions> = {}
) =>
  CodexWorker.layer({
    cliPath: FAKE_CODEX,
    environment: {
      ...process.env,
      FAKE_CODEX_SESSIONS_DIR: path.join(os.tmpdir(), "codex-replay-worker-test-sessions"),
      ...environment
    },
    ...options
  }).pipe(Layer.provide(Layer.mergeAll(ProcessRunner.Default, RunLog.Default)))

/** A request for the fake CLI in a fresh workspace; `runDirectory` holds its run.log. */
export const implementationRequest = (overrides: Partial<WorkerRequest<undefined>> = {}) => {
  const runDirectory = scratch("worker-run-")
  const workspace = path.join(runDirectory, "workspace")
  fs.mkdirSync(workspace)
  return {
    purpose: "implementation" as const,
    model: "gpt-5.6-terra",
    prompt: "Add a greeting to the README.",
    workingDirectory: workspace,
    runDirectory,
    label: "implementation",
    ...overrides
  }
}
