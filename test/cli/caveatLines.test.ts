import { describe, expect, it } from "vitest"
import { batchTable } from "../../src/cli/batchTable.js"
import { verdictCell } from "../../src/cli/runs.js"
import { caveatsOf } from "../../src/domain/report/caveats.js"
import type { RunSummary } from "../../src/programs/runs/history.js"

const run: RunSummary = {
  run_id: "run-20261130T100000Z-aaaaaaaaaa",
  thread_id: "t-1",
  thread_title: "Fix the login",
  model: "gpt-5.6-terra",
  models: ["gpt-5.6-terra"],
  status: "completed",
  phase: "reporting",
  phase_label: "Writing the report",
  winner: "tie",
  dimensions: { won: 0, tied: 6, lost: 0 },
  possible_leak: false,
  checks: null,
  caveats: [],
  started_at: "2026-11-30T10:00:00.000Z",
  completed_at: null,
  updated_at: "2026-11-30T10:05:00.000Z",
  error: null,
  chunk: null,
  report_ready: true,
  start_group: null,
  supervision: { controller_session_id: "a".repeat(32), this_controller: true, live: true, read_only: false, controller_url: null }
}

describe("runs and batch lines carry the verdict's caveats", () => {
  it("runs: an all-tie from flips is inconclusive, never \"0 won, 6 tied, 0 lost\"; other caveats by label", () => {
    expect(verdictCell(run)).toBe("tie (0 won, 6 tied, 0 lost)")
    const disagreed = caveatsOf({ winner: "tie", orders_disagreed: true, like_for_like: false, concerns: ["Capability gap: MCP (partial)."], self_review: true, reviewer_model: "gpt-5.6-terra" })
    expect(verdictCell({ ...run, caveats: disagreed })).toBe("inconclusive (the two orders disagreed)  [not like-for-like · self-review]")
    const missing = caveatsOf({ winner: "inconclusive", missing_orders: ["AB", "BA"] })
    expect(verdictCell({ ...run, winner: "inconclusive", caveats: missing })).toBe("no verdict")
    // A possible leak keeps its own words and is not said twice.
    const leaked = caveatsOf({ winner: "codex", possible_leak: true })
    expect(verdictCell({ ...run, winner: "codex", dimensions: { won: 4, tied: 2, lost: 0 }, possible_leak: true, caveats: leaked }))
      .toBe("Codex wins (4 won, 2 tied, 0 lost)  [matches Claude's result: possible leak]")
  })

  it("batch: each completed run's verdict words and caveats' labels", () => {
    const item = { thread_id: "t-1", model: "gpt-5.6-terra", phase: "reporting", error: null, checks: null }
    const table = batchTable({
      items: [
        { ...item, run_id: "run-a", status: "completed", winner: "tie", caveats: caveatsOf({ winner: "tie", orders_disagreed: true }) },
        { ...item, run_id: "run-b", status: "completed", winner: "codex", caveats: caveatsOf({ winner: "codex", self_review: true, reviewer_model: "gpt-5.6-terra" }) },
        { ...item, run_id: "run-c", status: "completed", winner: "claude" }
      ]
    }, new Map([["t-1", "Fix the login"]]))
    expect(table.rows).toEqual([
      ["run-a", "Fix the login", "gpt-5.6-terra", "completed", "inconclusive (the two orders disagreed)"],
      ["run-b", "Fix the login", "gpt-5.6-terra", "completed", "Codex wins [self-review]"],
      ["run-c", "Fix the login", "gpt-5.6-terra", "completed", "Claude wins"]
    ])
    expect(table.totals).toEqual(["Total", "1 thread(s)", "", "3 of 3 completed", "Codex wins 1 · Claude wins 1 · neither 1"])
  })
})
