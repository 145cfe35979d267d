import { describe, expect, it } from "vitest"
import { verdictLines, verdictOf } from "../../src/cli/verdict.js"

const stateWith = (statuses: ReadonlyArray<string>, winner: string) => ({
  status: "completed",
  report_summary: {
    winner,
    evaluation: {
      dimensions: { reliability: "inconclusive", code_quality: "inconclusive", request_fulfillment: "inconclusive", change_scope: "inconclusive", safe_operations: "inconclusive", accurate_reporting: "inconclusive" },
      reviews: statuses.map((status, index) => ({ order: index === 0 ? "AB" : "BA", status, error: status === "completed" ? null : "not a ballot" }))
    }
  }
})

describe("the CLI's verdict says which review order has no ballot", () => {
  it("one order missing: inconclusive, no tie tally, the order named", () => {
    const lines = verdictLines(verdictOf(stateWith(["completed", "invalid"], "inconclusive"), undefined)!)
    expect(lines[0]).toBe("Verdict: Inconclusive (no order-balanced verdict)")
    expect(lines[1]).toBe("Ballots: no validated ballot for the B/A order.")
  })

  it("both missing: there is no verdict", () => {
    const lines = verdictLines(verdictOf(stateWith(["failed", "invalid"], "inconclusive"), undefined)!)
    expect(lines[1]).toBe("Ballots: no validated ballot for the A/B and B/A orders: there is no verdict.")
  })

  it("both ballots: nothing is added", () => {
    const verdict = verdictOf(stateWith(["completed", "completed"], "tie"), undefined)!
    expect(verdict.missing_orders).toBeUndefined()
    expect(verdictLines(verdict).some((line) => line.startsWith("Ballots:"))).toBe(false)
  })
})
