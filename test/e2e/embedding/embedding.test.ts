import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, expect, it } from "vitest"
import { CLAUDE_HOME, FAKE_CODEX, REPO, scratch } from "../../rpc/support.js"

const roots: Array<string> = []

afterAll(() => {
  for (const root of roots) fs.rmSync(root, { recursive: true, force: true })
})

/** Runs test/embedding/program.mjs, which imports the built package by its name, in its own process. */
const runProgram = (args: ReadonlyArray<string>) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [path.join(REPO, "test", "embedding", "program.mjs"), ...args], {
      cwd: REPO,
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")))
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")))
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000)
    child.once("close", (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })

it("runs prepare → start → await from the built package entry with its own layers", async () => {
  const root = scratch("codex-replay-embedding-")
  roots.push(root)
  const runRoot = path.join(root, "elsewhere", "runs")
  const result = await runProgram([runRoot, CLAUDE_HOME, FAKE_CODEX, root])
  expect(result.stderr).toBe("")
  expect(result.code).toBe(0)
  const answer = JSON.parse(result.stdout) as {
    run_root: string
    samples: ReadonlyArray<string>
    ready: boolean
    run_id: string
    status: string
    report_exists: boolean
    invalid: { tag: string; message: string; is_controller_error: boolean }
    exports: ReadonlyArray<string>
  }
  expect(answer.exports).toEqual([])
  expect(answer.run_root).toBe(runRoot)
  expect(answer.samples).toEqual(["sample-hello-cli", "sample-word-count"])
  expect(answer.ready).toBe(true)
  expect(answer.status).toBe("completed")
  expect(answer.report_exists).toBe(true)
  // The run lives under the program's own run root, owned by the program's settings.
  expect(fs.readdirSync(runRoot)).toEqual([answer.run_id])
  expect(fs.statSync(runRoot).mode & 0o777).toBe(0o700)
  const state = JSON.parse(fs.readFileSync(path.join(runRoot, answer.run_id, "controller-state.json"), "utf8")) as { status: string }
  expect(state.status).toBe("completed")
  // A user error is a typed ControllerError with its message.
  expect(answer.invalid).toEqual({ tag: "InvalidArgument", message: "Choose a Codex model (model or models).", is_controller_error: true })
})

it("fails with a clear ControllerError when its settings are invalid", async () => {
  const root = scratch("codex-replay-embedding-bad-")
  roots.push(root)
  const result = await runProgram([path.join(root, "runs"), CLAUDE_HOME, FAKE_CODEX, root, "--bad-session"])
  expect(result.code).not.toBe(0)
  expect(result.stdout).toBe("")
  expect(result.stderr).toContain("CODEX_REPLAY_CONTROLLER_SESSION_ID must be 32 lowercase hexadecimal characters.")
  expect(fs.existsSync(path.join(root, "runs"))).toBe(false)
})
