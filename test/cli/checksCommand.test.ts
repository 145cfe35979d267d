/**
 * The checks on the command line (`codex-replay` in this process): `runs` gives the sentence under a
 * run with checks, `report` the sentence and a line per check after the paths, control characters
 * escaped; a run whose report was written before the checks shows none. The run directories are
 * written as a controller leaves them.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { buildReport } from "../../src/domain/report/report.js"
import { runCommandLine } from "../support/commandLine.js"
import { sampleChecks } from "../report/checksFixture.js"
import { sampleInput } from "../report/fixtures.js"
import { installEnv, scratch } from "../rpc/support.js"
import { writeRun } from "../support/daemon.js"

/** The command line in this process: what it prints, writes and exits with (the binary itself: test/e2e/cli/). */
const runCli = (args: ReadonlyArray<string>, env: Record<string, string>) => runCommandLine(args, { env })

const WITH_CHECKS = "run-20261130T100000Z-aaaaaaaaaa"
const OLDER = "run-20261130T090000Z-bbbbbbbbbb"
const checks = sampleChecks()
const SENTENCE = checks.sentence.replace("\u001b", "\\u{1b}")

let root: string
let env: Record<string, string>

const seed = (runId: string, withChecks: boolean, startedAt: string) => {
  const runRoot = env.CODEX_REPLAY_RUN_ROOT!
  const built = buildReport({ ...sampleInput(), run_id: runId, ...(withChecks ? { checks } : {}) })
  const { checks: _none, ...older } = built
  const directory = writeRun(runRoot, runId, {
    controller_session_id: "b".repeat(32),
    thread_id: "c45af7b1-thread",
    model: "gpt-5.6-terra",
    status: "completed",
    phase: "reporting",
    started_at: startedAt,
    completed_at: startedAt,
    report_html: path.join(runRoot, runId, "report.html"),
    report_summary: { winner: built.winner, ...(withChecks ? { checks: { sentence: checks.sentence, edge: checks.edge, tally: checks.tally } } : {}) }
  })
  fs.writeFileSync(path.join(directory, "report.json"), JSON.stringify(withChecks ? built : older))
  fs.writeFileSync(path.join(directory, "report.html"), "<html></html>")
}

beforeAll(() => {
  root = scratch("codex-replay-cli-checks-")
  env = installEnv(root)
  seed(WITH_CHECKS, true, "2026-11-30T10:00:00.000Z")
  seed(OLDER, false, "2026-11-30T09:00:00.000Z")
})

afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

describe("the checks on the command line", () => {
  it("runs: the sentence, escaped, under the run that has checks only", async () => {
    const result = await runCli(["runs"], { ...env, COLUMNS: "400" })
    expect(result.code).toBe(0)
    const lines = result.stdout.split("\n")
    const at = lines.findIndex((line) => line.includes(WITH_CHECKS))
    // The sentence is the second line of the run's verdict cell, in the table's next line.
    expect(lines[at + 1]).toContain(`│ ${SENTENCE} `)
    expect(lines[at + 1]).not.toContain("run-")
    expect(lines[lines.findIndex((line) => line.includes(OLDER)) + 1]).not.toContain("checks:")
    expect(result.stdout).not.toContain("\u001b")
  })

  it("report: after the paths, the sentence and one line per check with the three outcomes; --json carries the rows", async () => {
    const result = await runCli(["report", WITH_CHECKS], env)
    expect(result.code).toBe(0)
    expect(result.stdout).toContain(`report.json\nChecks:  ${SENTENCE}\n  npm test: start failed · Claude failed (exit 1, still failing) · Codex passed (exit 0, fixed)\n`)
    expect(result.stdout).toContain("  npm run lint\\u{1b}[2J (in packages/web): start passed · Claude could not run (not counted: npx is not installed here.) · Codex passed (exit 0, kept)\n")
    expect(result.stdout).not.toContain("\u001b")
    const json = JSON.parse((await runCli(["report", WITH_CHECKS, "--json"], env)).stdout)
    expect(json.verdict.checks.sentence).toBe(checks.sentence)
    expect(json.verdict.checks.rows).toHaveLength(3)
  })

  it("report: a report written before the checks prints no checks and no error", async () => {
    const result = await runCli(["report", OLDER], env)
    expect(result.code).toBe(0)
    expect(result.stdout).not.toContain("Checks:")
    expect(result.stdout).toContain("report.json\n")
    expect(JSON.parse((await runCli(["report", OLDER, "--json"], env)).stdout).verdict).not.toHaveProperty("checks")
  })
})
