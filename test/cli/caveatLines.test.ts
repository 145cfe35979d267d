import { describe, expect, it } from "vitest"
import { batchTable } from "../../src/cli/batchTable.js"
import { verdictCell } from "../../src/cli/runs.js"
import { caveatsOf } from "../../src/domain/report/caveats.js"
import { runSummaryOf } from "./runSummary.js"

const run = runSummaryOf({ thread_title: "Fix the login", winner: "tie", dimensions: { won: 0, tied: 6, lost: 0 } })

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
    // The verdict columns; the tokens and costs after them are batchLines.test.ts's.
    expect(table.rows.map((row) => row.slice(0, 5))).toEqual([
      ["run-a", "Fix the login", "gpt-5.6-terra", "completed", "inconclusive (the two orders disagreed)"],
      ["run-b", "Fix the login", "gpt-5.6-terra", "completed", "Codex wins [self-review]"],
      ["run-c", "Fix the login", "gpt-5.6-terra", "completed", "Claude wins"]
    ])
    expect(table.totals?.slice(0, 5)).toEqual(["Total", "1 thread(s)", "", "3 of 3 completed", "Codex wins 1 · Claude wins 1 · neither 1"])
  })
})
