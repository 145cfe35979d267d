import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { installEnv, listTree, scratch } from "../rpc/support.js"
import { runCli as runCliWithin } from "./support.js"

/** The machine may be busy: a command gets a minute and a half before it counts as hung. */
const runCli = (args: ReadonlyArray<string>, env: Record<string, string>) => runCliWithin(args, env, { timeoutMillis: 90_000 })

let root: string
let env: Record<string, string>
const OTHER_SESSION = "b".repeat(32)

const DIMENSIONS = { reliability: "codex", code_quality: "codex", request_fulfillment: "tie", change_scope: "claude", safe_operations: "tie", accurate_reporting: "codex" }

/** A run directory as a controller leaves it. */
const writeRun = (runId: string, state: Record<string, unknown>) => {
  const directory = path.join(env.CODEX_REPLAY_RUN_ROOT!, runId)
  fs.mkdirSync(directory, { recursive: true, mode: 0o700 })
  fs.writeFileSync(path.join(directory, "controller-state.json"), JSON.stringify({
    schema_version: 1,
    controller_session_id: OTHER_SESSION,
    run_id: runId,
    thread_id: "sample-hello-cli",
    model: "gpt-5.6-terra",
    status: "completed",
    phase: "reporting",
    phases: [{ id: "reporting", label: "Writing the report", status: "complete" }],
    events: [],
    coordinator_pid: null,
    started_at: "2026-11-30T10:00:00.000Z",
    updated_at: "2026-11-30T10:05:00.000Z",
    completed_at: "2026-11-30T10:05:00.000Z",
    error: null,
    ...state
  }))
  return directory
}

beforeAll(() => {
  root = scratch("codex-replay-cli-runs-")
  env = installEnv(root)
  const completed = writeRun("run-20261130T100000Z-aaaaaaaaaa", {
    report_summary: { winner: "codex", evaluation: { dimensions: DIMENSIONS } },
    report_html: "report.html"
  })
  fs.writeFileSync(path.join(completed, "report.html"), "<html></html>")
  writeRun("run-20261130T110000Z-bbbbbbbbbb", {
    model: "gpt-5.6-luna",
    status: "cancelled",
    started_at: "2026-11-30T11:00:00.000Z",
    completed_at: "2026-11-30T11:02:00.000Z",
    error: "Cancelled by user."
  })
})

afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

describe("codex-replay runs", () => {
  it("lists every run of the run root, newest first, with the verdict", async () => {
    const result = await runCli(["runs"], env)
    expect(result.code).toBe(0)
    const lines = result.stdout.trim().split("\n")
    expect(lines).toHaveLength(3)
    expect(lines[0]).toBe("2026-11-30 11:00  run-20261130T110000Z-bbbbbbbbbb  sample-hello-cli  gpt-5.6-luna  cancelled")
    expect(lines[1]).toBe(
      "2026-11-30 10:00  run-20261130T100000Z-aaaaaaaaaa  sample-hello-cli  gpt-5.6-terra  completed  Codex wins (3 won, 2 tied, 1 lost)"
    )
    expect(lines[2]).toBe(`1–2 of 2 run(s) in ${env.CODEX_REPLAY_RUN_ROOT}.`)
  })

  it("prints the list_runs result with --json and filters by status, verdict and text", { timeout: 120_000 }, async () => {
    const json = JSON.parse((await runCli(["runs", "--json"], env)).stdout)
    expect(json).toMatchObject({ total: 2, offset: 0, limit: 50, has_more: false })
    expect(json.runs[1]).toMatchObject({ run_id: "run-20261130T100000Z-aaaaaaaaaa", winner: "codex", dimensions: { won: 3, tied: 2, lost: 1 } })
    const cancelled = JSON.parse((await runCli(["runs", "--json", "--status", "cancelled"], env)).stdout)
    expect(cancelled.runs.map((run: { status: string }) => run.status)).toEqual(["cancelled"])
    const won = JSON.parse((await runCli(["runs", "--json", "--winner", "codex"], env)).stdout)
    expect(won.total).toBe(1)
    const luna = JSON.parse((await runCli(["runs", "--json", "--query", "LUNA"], env)).stdout)
    expect(luna.runs.map((run: { model: string }) => run.model)).toEqual(["gpt-5.6-luna"])
    const paged = await runCli(["runs", "--limit", "1"], env)
    expect(paged.stdout.trim().split("\n").at(-1)).toBe(`1–1 of 2 run(s) in ${env.CODEX_REPLAY_RUN_ROOT}; more with --offset 1.`)
  })

  it("names an empty run root", async () => {
    const own = scratch("codex-replay-cli-runs-empty-")
    const ownEnv = installEnv(own)
    const result = await runCli(["runs"], ownEnv)
    expect(result.code).toBe(0)
    expect(result.stdout).toBe(`No replay runs in ${ownEnv.CODEX_REPLAY_RUN_ROOT}.\n`)
    expect(listTree(own)).toEqual([])
    fs.rmSync(own, { recursive: true, force: true })
  })

  it.each([
    [["runs", "--limit", "0"], "--limit must be a whole number from 1 through 200."],
    [["runs", "--offset", "x"], "--offset must be a whole number from 0 through 1000000."],
    [["runs", "--status", "done"], "Expected one of the following cases: running, completed, failed, cancelled"],
    [["runs", "--winner", "nobody"], "Expected one of the following cases: codex, claude, tie, inconclusive"]
  ])("refuses %j with a clear message and writes nothing", async (args, message) => {
    const before = listTree(root)
    const result = await runCli(args, env)
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(message)
    expect(result.stdout).toBe("")
    expect(listTree(root)).toEqual(before)
  })
})
