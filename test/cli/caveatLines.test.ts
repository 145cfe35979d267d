import { describe, expect, it } from "vitest"
import { batchRunLines } from "../../src/cli/batch.js"
import { runLine } from "../../src/cli/runs.js"
import { caveatsOf } from "../../src/domain/report/caveats.js"
import type { RunSummary } from "../../src/programs/runs/history.js"

const run: RunSummary = {
  run_id: "run-20261130T100000Z-aaaaaaaaaa",
  thread_id: "t-1",
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
const PREFIX = "2026-11-30 10:00  run-20261130T100000Z-aaaaaaaaaa  t-1  gpt-5.6-terra  completed"

describe("runs and batch lines carry the verdict's caveats", () => {
  it("runs: an all-tie from flips is inconclusive, never \"0 won, 6 tied, 0 lost\"; other caveats by label", () => {
    expect(runLine(run)).toBe(`${PREFIX}  tie (0 won, 6 tied, 0 lost)`)
    const disagreed = caveatsOf({ winner: "tie", orders_disagreed: true, like_for_like: false, concerns: ["Capability gap: MCP (partial)."], self_review: true, reviewer_model: "gpt-5.6-terra" })
    expect(runLine({ ...run, caveats: disagreed })).toBe(
      `${PREFIX}  inconclusive (the two orders disagreed)  [not like-for-like · self-review]`
    )
    const missing = caveatsOf({ winner: "inconclusive", missing_orders: ["AB", "BA"] })
    expect(runLine({ ...run, winner: "inconclusive", caveats: missing })).toBe(`${PREFIX}  no verdict`)
    // A possible leak keeps its own words and is not said twice.
    const leaked = caveatsOf({ winner: "codex", possible_leak: true })
    expect(runLine({ ...run, winner: "codex", dimensions: { won: 4, tied: 2, lost: 0 }, possible_leak: true, caveats: leaked }))
      .toBe(`${PREFIX}  Codex wins (4 won, 2 tied, 0 lost)  [matches Claude's result: possible leak]`)
  })

  it("batch: each completed run's verdict words and caveats' labels", () => {
    const item = { thread_id: "t-1", model: "gpt-5.6-terra", phase: "reporting", error: null, checks: null }
    expect(batchRunLines({
      items: [
        { ...item, run_id: "run-a", status: "completed", winner: "tie", caveats: caveatsOf({ winner: "tie", orders_disagreed: true }) },
        { ...item, run_id: "run-b", status: "completed", winner: "codex", caveats: caveatsOf({ winner: "codex", self_review: true, reviewer_model: "gpt-5.6-terra" }) },
        { ...item, run_id: "run-c", status: "completed", winner: "claude" }
      ]
    })).toEqual([
      "  run-a (gpt-5.6-terra, thread t-1): inconclusive (the two orders disagreed)",
      "  run-b (gpt-5.6-terra, thread t-1): Codex wins [self-review]",
      "  run-c (gpt-5.6-terra, thread t-1): Claude wins"
    ])
  })
})
