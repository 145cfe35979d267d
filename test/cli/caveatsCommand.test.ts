/**
 * The caveats of a verdict in every CLI view of it, in the same words: `runs`, `report` and `portfolio`, text and
 * --json, over run directories as a controller leaves them (one written with its caveats recorded, one written
 * before they were).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { installEnv, scratch } from "../rpc/support.js"
import { runCommandLine } from "../support/commandLine.js"

/** The command line in this process: what it prints, writes and exits with (the binary itself: test/e2e/cli/). */
const runCli = (args: ReadonlyArray<string>, env: Record<string, string>) => runCommandLine(args, { env })

let root: string
let env: Record<string, string>
const SESSION = "b".repeat(32)
const SELF = "run-20261130T100000Z-aaaaaaaaaa"
const FLIPS = "run-20261130T110000Z-bbbbbbbbbb"
const IDS = ["reliability", "code_quality", "request_fulfillment", "change_scope", "safe_operations", "accurate_reporting"]

const SELF_CAVEATS = [
  { kind: "not_like_for_like", label: "not like-for-like", detail: "Capability gap: Web search (not available)." },
  { kind: "self_review", label: "self-review", detail: "gpt-5.6-terra judged its own replay against Claude's result." }
]

const writeRun = (runId: string, startedAt: string, summary: Record<string, unknown>, report: Record<string, unknown>) => {
  const directory = path.join(env.CODEX_REPLAY_RUN_ROOT!, runId)
  fs.mkdirSync(directory, { recursive: true, mode: 0o700 })
  fs.writeFileSync(path.join(directory, "controller-state.json"), JSON.stringify({
    schema_version: 1, controller_session_id: SESSION, run_id: runId, thread_id: "sample-hello-cli", model: "gpt-5.6-terra",
    status: "completed", phase: "reporting", phases: [{ id: "reporting", label: "Writing the report", status: "complete" }], events: [],
    coordinator_pid: null, started_at: startedAt, updated_at: startedAt, completed_at: startedAt, error: null,
    report_summary: summary, report_html: "report.html", report_json: "report.json"
  }))
  fs.writeFileSync(path.join(directory, "report.html"), "<html></html>")
  fs.writeFileSync(path.join(directory, "report.json"), JSON.stringify({
    thread_id: "sample-hello-cli",
    candidates: { codex: { model: "gpt-5.6-terra", elapsed_ms: 60_000, cost: { usd: 0.1 } }, claude: { elapsed_ms: 240_000, cost: { usd: 1 } } },
    ...report
  }))
}

beforeAll(() => {
  root = scratch("codex-replay-cli-caveats-")
  env = installEnv(root)
  // A self-review that is not like-for-like, its caveats recorded.
  writeRun(SELF, "2026-11-30T10:00:00.000Z", {
    winner: "codex",
    evaluation: { dimensions: Object.fromEntries(IDS.map((id) => [id, "codex"])) },
    possible_leak: false,
    caveats: SELF_CAVEATS
  }, {
    winner: "codex",
    evaluation: { flips: 0, comparable_dimensions: IDS, dimensions: Object.fromEntries(IDS.map((id) => [id, { winner: "codex", comparable: true, order_dependent: false }])) },
    comparability: { like_for_like: false, concerns: ["Capability gap: Web search (not available).", "Self-review: the reviewer (gpt-5.6-terra) is the model that implemented the replay."] },
    about_review: { reviewer_model: "gpt-5.6-terra", self_review: true },
    caveats: SELF_CAVEATS
  })
  // A tie because the two orders disagreed on every dimension, written before caveats were recorded.
  writeRun(FLIPS, "2026-11-30T11:00:00.000Z", {
    winner: "tie",
    evaluation: { flips: 6, comparable_dimensions: IDS, dimensions: Object.fromEntries(IDS.map((id) => [id, "tie"])), reviews: [{ order: "AB", status: "completed" }, { order: "BA", status: "completed" }] },
    possible_leak: false
  }, {
    winner: "tie",
    evaluation: { flips: 6, comparable_dimensions: IDS, dimensions: Object.fromEntries(IDS.map((id) => [id, { winner: "tie", comparable: true, order_dependent: true }])) },
    comparability: { like_for_like: true, concerns: [] },
    about_review: { reviewer_model: "gpt-5.6-sol", self_review: false }
  })
})

afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

describe("the CLI carries each verdict's caveats", () => {
  it("runs: an all-tie from flips is inconclusive, never 0 won, 6 tied, 0 lost; other caveats by label; --json whole", async () => {
    const result = await runCli(["runs"], { ...env, TZ: "UTC", COLUMNS: "400" })
    expect(result.code).toBe(0)
    // The table's rows (border, header, rule, then the runs), the cells' padding squeezed.
    const lines = result.stdout.split("\n").map((line) => line.replace(/ +/g, " "))
    expect(lines[3]).toMatch(new RegExp(`^│ 2026-11-30 11:00 │ ${FLIPS} │ .+ │ gpt-5\\.6-terra │ completed │ inconclusive \\(the two orders disagreed\\) │`))
    expect(lines[4]).toContain(`│ ${SELF} │`)
    expect(lines[4]).toContain("│ completed │ Codex wins (6 won, 0 tied, 0 lost) [not like-for-like · self-review] │")
    expect(result.stdout).not.toContain("0 won, 6 tied, 0 lost")
    const json = JSON.parse((await runCli(["runs", "--json"], env)).stdout)
    expect(json.runs.map((run: { caveats: ReadonlyArray<{ kind: string }> }) => run.caveats.map((caveat) => caveat.kind))).toEqual([["inconclusive"], ["not_like_for_like", "self_review"]])
    expect(json.runs[1].caveats).toEqual(SELF_CAVEATS)
  })

  it("report: the caveats under the verdict, each with why; --json carries them", async () => {
    const self = await runCli(["report", SELF], env)
    expect(self.stdout.split("\n").slice(1, 4)).toEqual([
      "Verdict: Codex wins — 6 dimension(s) won, 0 tied, 0 lost",
      "Caveat:  not like-for-like: Capability gap: Web search (not available).",
      "Caveat:  self-review: gpt-5.6-terra judged its own replay against Claude's result."
    ])
    const flips = await runCli(["report", FLIPS, "--json"], env)
    const verdict = JSON.parse(flips.stdout).verdict
    expect(verdict.caveats.map((caveat: { label: string }) => caveat.label)).toEqual(["inconclusive (the two orders disagreed)"])
  })

  it("portfolio: self-reviews counted apart, each run's caveats in text and --json", async () => {
    const text = await runCli(["portfolio", SELF, FLIPS], env)
    expect(text.code).toBe(0)
    expect(text.stdout).toContain(`  Self-reviews:   1 run of 2 reviewed by gpt-5.6-terra itself: ${SELF}\n`)
    expect(text.stdout).toContain(`  Caveats:        ${SELF}: Codex wins [not like-for-like · self-review]\n`)
    expect(text.stdout).toContain(`  Caveats:        ${FLIPS}: inconclusive (the two orders disagreed)\n`)
    const json = JSON.parse((await runCli(["portfolio", SELF, FLIPS, "--json"], env)).stdout)
    const model = json.portfolio.models[0]
    expect(model.self_reviews).toEqual({ count: 1, run_ids: [SELF] })
    expect(model.runs.map((run: { run_id: string; caveats: unknown }) => [run.run_id, run.caveats])).toEqual([
      [SELF, SELF_CAVEATS],
      [FLIPS, [{ kind: "inconclusive", label: "inconclusive (the two orders disagreed)", detail: "The two review orders disagreed on every dimension compared: each counts as a tie, which is no verdict." }]]
    ])
    const html = fs.readFileSync(json.portfolio_html, "utf8")
    expect(html).toContain("<dt>Self-reviews</dt>")
  })
})
