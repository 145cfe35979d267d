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
    expect(lines[1]).toBe("Caveat:  missing ballot (B/A): The B/A order has no validated ballot, so no dimension is confirmed in both orders.")
  })

  it("both missing: there is no verdict", () => {
    const lines = verdictLines(verdictOf(stateWith(["failed", "invalid"], "inconclusive"), undefined)!)
    expect(lines[0]).toBe("Verdict: No verdict")
    expect(lines[1]).toBe("Caveat:  no verdict: Neither review order has a validated ballot.")
  })

  it("both ballots: nothing is added", () => {
    const verdict = verdictOf(stateWith(["completed", "completed"], "tie"), undefined)!
    expect(verdict.missing_orders).toBeUndefined()
    expect(verdict.caveats).toEqual([])
    expect(verdictLines(verdict).some((line) => line.startsWith("Caveat:"))).toBe(false)
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
    expect(verdict.caveats.map((caveat) => caveat.kind)).toEqual(["inconclusive", "not_like_for_like", "self_review"])
    const lines = verdictLines(verdict)
    expect(lines[0]).toBe("Verdict: Inconclusive (the two orders disagreed)")
    expect(lines.slice(1, 4)).toEqual([
      "Caveat:  inconclusive (the two orders disagreed): The two review orders disagreed on every dimension compared: each counts as a tie, which is no verdict.",
      "Caveat:  not like-for-like: Codex started from an empty directory.",
      "Caveat:  self-review: gpt-5.6-sol judged its own replay against Claude's result."
    ])
  })

  it("a self-review the comparability already names is said once; a possible leak's warning comes first", () => {
    const verdict = verdictOf(state, report({
      comparability: { like_for_like: false, concerns: ["Self-review: the reviewer (gpt-5.6-sol) is the model that implemented the replay."] },
      about_review: { self_review: true, reviewer_model: "gpt-5.6-sol" },
      integrity: { matches_claude: true, similarity: 1, shared_lines: 4, codex_lines: 4, claude_lines: 4, threshold: 0.9, note: "Codex's patch is Claude's." }
    }))!
    expect(verdict.caveats.map((caveat) => caveat.kind)).toEqual(["possible_leak", "not_like_for_like", "self_review"])
    const lines = verdictLines(verdict)
    expect(lines[1]).toMatch(/^Warning: Codex's patch .*\(100% of the changed lines are Claude's\)/)
    expect(lines.slice(2, 4)).toEqual([
      "Caveat:  not like-for-like: The reviewer judged its own replay.",
      "Caveat:  self-review: gpt-5.6-sol judged its own replay against Claude's result."
    ])
  })

  it("a like-for-like, neutral, agreed tie has no caveat", () => {
    const verdict = verdictOf(state, report({}))!
    expect(verdict.caveats).toEqual([])
    expect(verdictLines(verdict)[0]).toBe("Verdict: Tie")
  })
})
