import { describe, expect, it } from "vitest"
import { batchTable } from "../../src/cli/batchTable.js"
import { verdictCell } from "../../src/cli/runs.js"
import { checksLines, verdictOf } from "../../src/cli/verdict.js"
import { runSummaryOf } from "./runSummary.js"
import { sampleChecks } from "../report/checksFixture.js"

const checks = sampleChecks()
const state = { status: "completed", report_summary: { winner: "codex", checks: { sentence: checks.sentence, edge: checks.edge, tally: checks.tally } } }

describe("the checks on the command line", () => {
  it("replay and report: the sentence, then one line per check at the start, on Claude's result and on Codex's, control characters escaped", () => {
    const verdict = verdictOf(state, { winner: "codex", checks })!
    expect(verdict.checks?.rows).toHaveLength(3)
    const lines = checksLines(verdict.checks)
    expect(lines).toEqual([
      "Checks:  checks: Codex 3 of 3, Claude 1 of 2; Codex fixed `npm test`, which Claude's result still failed; `npm run lint\\u{1b}[2J` (in packages/web) could not run on every side (not counted).",
      "  npm test: start failed · Claude failed (exit 1, still failing) · Codex passed (exit 0, fixed)",
      "  node --test \"<b>x</b>\" && echo '<script>1</script>': start passed · Claude passed (exit 0, kept) · Codex passed (exit 0, kept)",
      "  npm run lint\\u{1b}[2J (in packages/web): start passed · Claude could not run (not counted: npx is not installed here.) · Codex passed (exit 0, kept)"
    ])
    expect(lines.join("\n")).not.toContain("\u001b")
  })

  it("without the report at hand, gives the sentence the run's state recorded; without checks, nothing (an older report has no checks key)", () => {
    expect(checksLines(verdictOf(state, undefined)!.checks)).toEqual([`Checks:  ${checks.sentence.replace("\u001b", "\\u{1b}")}`])
    const older = verdictOf({ status: "completed", report_summary: { winner: "tie" } }, { winner: "tie" })!
    expect(older).not.toHaveProperty("checks")
    expect(checksLines(older.checks)).toEqual([])
    // A damaged checks section is not shown, and costs nothing else.
    expect(verdictOf({ status: "completed" }, { winner: "tie", checks: { rows: "x" } })!.checks).toBeUndefined()
  })

  it("runs: the sentence under a run that has checks, escaped; nothing under one without", () => {
    const run = runSummaryOf({ winner: "codex" })
    expect(verdictCell({ ...run, checks: checks.sentence }).split("\n")).toEqual([
      "Codex wins",
      checks.sentence.replace("\u001b", "\\u{1b}")
    ])
    expect(verdictCell({ ...run, checks: null })).not.toContain("\n")
  })

  it("batch: one line per completed run with its verdict and its checks' sentence", () => {
    const item = { thread_id: "t-1", model: "gpt-5.6-terra", phase: "reporting", error: null }
    expect(batchTable({
      items: [
        { ...item, run_id: "run-a", status: "completed", winner: "codex", checks: "checks: Codex 1 of 1, Claude 1 of 1." },
        { ...item, run_id: "run-b", status: "completed", winner: "tie", checks: null },
        { ...item, run_id: "run-c", status: "failed", winner: null, checks: null },
        { ...item, run_id: "run-d", status: "completed", winner: "claude", checks: "checks: `a\u0007`" }
      ]
    }, new Map()).rows.map((row) => row[4])).toEqual([
      "Codex wins\nchecks: Codex 1 of 1, Claude 1 of 1.",
      "tie",
      "",
      "Claude wins\nchecks: `a\\u{7}`"
    ])
  })
})
