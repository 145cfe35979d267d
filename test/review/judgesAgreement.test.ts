import { describe, expect, it } from "vitest"
import { judgesAgreement, verdictOf } from "../../src/domain/review/secondJudge.js"

const dimension = (orderDependent: boolean) => ({ order_dependent: orderDependent })

describe("the judges' agreement", () => {
  it("counts a tie whose two orders disagreed on every compared dimension as no verdict, so it never splits", () => {
    const disagreed = {
      winner: "tie" as const,
      comparable_dimensions: ["reliability", "code_quality"],
      dimensions: { reliability: dimension(true), code_quality: dimension(true) }
    }
    expect(verdictOf(disagreed)).toBe("inconclusive")
    expect(judgesAgreement(verdictOf(disagreed), "codex")).toBe("incomplete")
  })

  it("keeps a tie the orders agreed on, and a winner, as verdicts that can agree or split", () => {
    const agreedTie = {
      winner: "tie" as const,
      comparable_dimensions: ["reliability", "code_quality"],
      dimensions: { reliability: dimension(true), code_quality: dimension(false) }
    }
    expect(verdictOf(agreedTie)).toBe("tie")
    expect(judgesAgreement(verdictOf(agreedTie), "codex")).toBe("split")
    expect(judgesAgreement("claude", "claude")).toBe("agreed")
    expect(judgesAgreement("claude", "codex")).toBe("split")
    expect(verdictOf({ winner: "tie", comparable_dimensions: [], dimensions: {} })).toBe("tie")
  })
})
