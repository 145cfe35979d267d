import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { installEnv, listTree, scratch } from "../rpc/support.js"
import { runCommandLine } from "../support/commandLine.js"
import { cancelledByUser } from "../support/daemon.js"

/** The machine may be busy: a command gets a minute and a half before it counts as hung. */
/** The command line in this process: what it prints, writes and exits with (the binary itself: test/e2e/cli/). */
const runCli = (args: ReadonlyArray<string>, env: Record<string, string>) => runCommandLine(args, { env })

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
  fs.writeFileSync(path.join(completed, "report.json"), JSON.stringify({
    winner: "codex",
    candidates: { codex: { elapsed_ms: 62_000, cost: { usd: 0.125 } }, claude: { elapsed_ms: 250_000, cost: { usd: 1.3 } } }
  }))
  writeRun("run-20261130T090000Z-cccccccccc", {
    status: "failed",
    started_at: "2026-11-30T09:00:00.000Z",
    completed_at: "2026-11-30T09:01:00.000Z",
    error: "Codex stopped: the usage limit was reached (429)."
  })
  writeRun("run-20261130T110000Z-bbbbbbbbbb", { model: "gpt-5.6-luna", ...cancelledByUser("2026-11-30T11:00:00.000Z", "2026-11-30T11:02:00.000Z") })
})

afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

describe("codex-replay runs", () => {
  it("lists every run of the run root, newest first, with the verdict", async () => {
    const result = await runCli(["runs"], { ...env, TZ: "UTC", COLUMNS: "300" })
    expect(result.code).toBe(0)
    // A table (border, header, rule, three runs, totals under a rule, border), then the paging line.
    const lines = result.stdout.trim().split("\n").map((line) => line.replace(/ +/g, " "))
    expect(lines).toHaveLength(10)
    expect(lines[1]).toBe("│ Started │ Run │ Thread │ Model │ Status │ Verdict │ Input │ Output │ Codex │ Evaluation │")
    // The thread by its title (the packaged sample's).
    expect(lines[3]).toBe("│ 2026-11-30 11:00 │ run-20261130T110000Z-bbbbbbbbbb │ Sample: create a greeting script (non-git) │ gpt-5.6-luna │ cancelled │ │ - │ - │ - │ - │")
    expect(lines[4]).toBe(
      "│ 2026-11-30 10:00 │ run-20261130T100000Z-aaaaaaaaaa │ Sample: create a greeting script (non-git) │ gpt-5.6-terra │ completed │ Codex wins (3 won, 2 tied, 1 lost) │ - │ - │ - │ - │"
    )
    expect(lines[5]).toBe("│ 2026-11-30 09:00 │ run-20261130T090000Z-cccccccccc │ Sample: create a greeting script (non-git) │ gpt-5.6-terra │ failed │ │ - │ - │ - │ - │")
    expect(lines[7]).toBe("│ Total │ │ │ │ │ │ - │ - │ - │ - │")
    expect(lines[9]).toBe(`1–3 of 3 run(s) in ${env.CODEX_REPLAY_RUN_ROOT}.`)
  })

  it("prints the list_runs result with --json and filters by status, verdict and text", { timeout: 120_000 }, async () => {
    const json = JSON.parse((await runCli(["runs", "--json"], env)).stdout)
    expect(json).toMatchObject({ total: 3, offset: 0, limit: 50, has_more: false })
    expect(json.runs[1]).toMatchObject({ run_id: "run-20261130T100000Z-aaaaaaaaaa", winner: "codex", dimensions: { won: 3, tied: 2, lost: 1 } })
    const cancelled = JSON.parse((await runCli(["runs", "--json", "--status", "cancelled"], env)).stdout)
    expect(cancelled.runs.map((run: { status: string }) => run.status)).toEqual(["cancelled"])
    const won = JSON.parse((await runCli(["runs", "--json", "--winner", "codex"], env)).stdout)
    expect(won.total).toBe(1)
    const luna = JSON.parse((await runCli(["runs", "--json", "--query", "LUNA"], env)).stdout)
    expect(luna.runs.map((run: { model: string }) => run.model)).toEqual(["gpt-5.6-luna"])
    const paged = await runCli(["runs", "--limit", "1"], env)
    expect(paged.stdout.trim().split("\n").at(-1)).toBe(`1–1 of 3 run(s) in ${env.CODEX_REPLAY_RUN_ROOT}; more with --offset 1.`)
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
    [["runs", "--status", "done"], "--status must be running, completed, failed or cancelled (got \"done\")."],
    [["runs", "--winner", "nobody"], "--winner must be codex, claude, tie or inconclusive (got \"nobody\")."]
  ])("refuses %j with a clear message and writes nothing", async (args, message) => {
    const before = listTree(root)
    const result = await runCli(args, env)
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(message)
    expect(result.stdout).toBe("")
    expect(listTree(root)).toEqual(before)
  })
})

describe("codex-replay report: the verdict summary", () => {
  it("prints the verdict of a completed run, and --json carries it", async () => {
    const result = await runCli(["report", "run-20261130T100000Z-aaaaaaaaaa"], env)
    expect(result.code).toBe(0)
    const directory = fs.realpathSync(path.join(env.CODEX_REPLAY_RUN_ROOT!, "run-20261130T100000Z-aaaaaaaaaa"))
    expect(result.stdout).toBe([
      "Run:     run-20261130T100000Z-aaaaaaaaaa (gpt-5.6-terra, thread sample-hello-cli)",
      "Verdict: Codex wins — 3 dimension(s) won, 2 tied, 1 lost",
      "Time:    Codex 1 min 02 s · Claude 4 min 10 s",
      "Cost:    Codex $0.125 · Claude $1.30",
      path.join(directory, "report.html"),
      path.join(directory, "report.json"),
      ""
    ].join("\n"))
    const json = JSON.parse((await runCli(["report", "run-20261130T100000Z-aaaaaaaaaa", "--json"], env)).stdout)
    expect(json.verdict).toEqual({
      winner: "codex",
      dimensions: { won: 3, tied: 2, lost: 1 },
      codex: { elapsed_ms: 62_000, cost_usd: 0.125 },
      claude: { elapsed_ms: 250_000, cost_usd: 1.3 },
      // The report holds no patches and the state no check: nothing to say either way.
      integrity: null,
      caveats: []
    })
  })

  it("says a cancelled or failed run has no report, and names an unknown run", async () => {
    const utc = { ...env, TZ: "UTC" }
    const cancelled = await runCli(["report", "run-20261130T110000Z-bbbbbbbbbb"], utc)
    expect(cancelled.code).toBe(1)
    expect(cancelled.stderr).toBe("codex-replay: Run run-20261130T110000Z-bbbbbbbbbb: cancelled by the user at 11:02 — no report.\n")
    const failed = await runCli(["report", "run-20261130T090000Z-cccccccccc"], utc)
    expect(failed.stderr).toBe(
      "codex-replay: Run run-20261130T090000Z-cccccccccc: failed at 09:01: Codex stopped: the usage limit was reached (429). — no report. " +
        "Your plan's usage limit or API quota is used up: check the plan or quota (codex login status names the account), then replay it again.\n"
    )
    const unknown = await runCli(["report", "run-nobody-knows"], env)
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toBe(`codex-replay: No run run-nobody-knows in ${env.CODEX_REPLAY_RUN_ROOT}.\n`)
    expect(unknown.stdout).toBe("")
  })
})

describe("--help in the project's words, without colour", () => {
  it.each(["open", "threads", "replay", "report", "runs", "stop"])("codex-replay %s --help", async (command) => {
    for (const extra of [{}, { NO_COLOR: "1" }, { FORCE_COLOR: "1" }]) {
      const result = await runCli([command, "--help"], { ...env, ...extra })
      expect(result.code).toBe(0)
      expect(result.stdout.startsWith(`Usage: codex-replay ${command}`)).toBe(true)
      expect(result.stdout).toContain("--help")
      expect(result.stdout).not.toContain("A user-defined piece of text")
      expect(result.stdout).not.toMatch(/--wizard|--completions|--log-level/)
      expect(result.stdout).not.toContain("\x1b")
      expect(result.stderr).toBe("")
    }
  })

  it("codex-replay --help lists every command", async () => {
    const result = await runCli(["--help"], { ...env, NO_COLOR: "1" })
    expect(result.code).toBe(0)
    for (const command of ["open", "threads", "replay", "report", "runs", "stop"]) expect(result.stdout).toMatch(new RegExp(`^  ${command} `, "m"))
    expect(result.stdout).not.toContain("\x1b")
  })
})
