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

describe("the CLI's verdict carries the report's caveats", () => {
  const dimensions = (orderDependent: boolean) =>
    Object.fromEntries(["reliability", "code_quality"].map((id) => [id, { winner: "tie", order_dependent: orderDependent }]))
  const report = (overrides: Record<string, unknown>) => ({
    winner: "tie",
    candidates: {},
    evaluation: { comparable_dimensions: ["reliability", "code_quality"], dimensions: dimensions(false) },
    comparability: { like_for_like: true, concerns: [] },
    about_review: { self_review: false, reviewer_model: "gpt-5.5" },
    ...overrides
  })
  const state = { status: "completed", report_summary: { winner: "tie" } }

  it("not like-for-like with its reasons, self-review, and a tie by disagreement printed as inconclusive", () => {
    const verdict = verdictOf(state, report({
      comparability: { like_for_like: false, concerns: ["Codex started from an empty directory."] },
      about_review: { self_review: true, reviewer_model: "gpt-5.6-sol" },
      evaluation: { comparable_dimensions: ["reliability", "code_quality"], dimensions: dimensions(true) }
    }))!
    expect(verdict.caveats).toEqual([
      "not like-for-like: Codex started from an empty directory.",
      "self-review: gpt-5.6-sol judged its own replay against Claude's result",
      "inconclusive: the two review orders disagreed on every dimension"
    ])
    const lines = verdictLines(verdict)
    expect(lines[0]).toBe("Verdict: Inconclusive (the two orders disagreed)")
    expect(lines.slice(1, 4)).toEqual(verdict.caveats!.map((caveat) => `Caveat:  ${caveat}`))
  })

  it("a self-review the comparability already names is said once; a possible leak's warning comes first", () => {
    const leaked = { ...state, report_summary: { winner: "tie", possible_leak: true } }
    const verdict = verdictOf(leaked, report({
      comparability: { like_for_like: false, concerns: ["Self-review: the reviewer (gpt-5.6-sol) is the model that implemented the replay."] },
      about_review: { self_review: true, reviewer_model: "gpt-5.6-sol" }
    }))!
    expect(verdict.caveats).toEqual(["not like-for-like: Self-review: the reviewer (gpt-5.6-sol) is the model that implemented the replay."])
    const lines = verdictLines(verdict)
    expect(lines[1]).toMatch(/^Warning: Codex's patch /)
    expect(lines[2]).toBe(`Caveat:  ${verdict.caveats![0]}`)
  })

  it("a like-for-like, neutral, agreed tie has no caveat", () => {
    const verdict = verdictOf(state, report({}))!
    expect(verdict.caveats).toBeUndefined()
    expect(verdictLines(verdict)[0]).toBe("Verdict: Tie")
  })
})
