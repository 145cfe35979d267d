import { describe, expect, it } from "vitest"
import { Schema } from "effect"
import { SubmitVotePayload } from "../../src/domain/contracts/votes.js"
import { cohensKappa, judgeCategory } from "../../src/domain/portfolio/agreement.js"
import { blindPresentation, mapChoice, storedVote } from "../../src/domain/review/vote.js"
import { describeParseError } from "../../src/domain/toolResult.js"

const candidate = (name: string) => ({ task: "Fix it.", patch: `diff ${name}`, final_response: `answer ${name}`, changed_files: [] })

describe("a blind vote's mapping", () => {
  it("maps first and second back through the order shown and the review's mapping", () => {
    const mapping = { A: "claude", B: "codex" } as const
    expect(mapChoice("first", "A", mapping)).toBe("claude")
    expect(mapChoice("second", "A", mapping)).toBe("codex")
    expect(mapChoice("first", "B", mapping)).toBe("codex")
    expect(mapChoice("second", "B", mapping)).toBe("claude")
    expect(mapChoice("tie", "B", mapping)).toBe("tie")
  })

  it("stores every dimension and the overall choice by author, and which file was shown first", () => {
    const payload = {
      run_id: "run-1",
      ballot_token: "t",
      overall: "second",
      dimensions: { reliability: "first", code_quality: "second", request_fulfillment: "tie", change_scope: "first", safe_operations: "tie", accurate_reporting: "second" }
    } as const
    const vote = storedVote(payload, "B", { A: "codex", B: "claude" }, "2026-01-01T00:00:00.000Z")
    expect(vote).toEqual({
      schema_version: 1,
      run_id: "run-1",
      voted_at: "2026-01-01T00:00:00.000Z",
      overall: "codex",
      dimensions: { reliability: "claude", code_quality: "codex", request_fulfillment: "tie", change_scope: "claude", safe_operations: "tie", accurate_reporting: "codex" },
      shown_first: "candidate-b.json"
    })
  })

  it("presents the candidate shown first under `first`, with nothing that names a letter", () => {
    const shown = blindPresentation("run-1", "token", { A: candidate("a"), B: candidate("b") }, "B")
    expect(shown.candidates.map((each) => [each.label, each.patch])).toEqual([["first", "diff b"], ["second", "diff a"]])
    expect(JSON.stringify(shown)).not.toMatch(/candidate-[ab]|"[AB]"/)
    expect(shown.dimensions.map((dimension) => dimension.id)).toHaveLength(6)
  })

  it("refuses a malformed vote with one sentence", () => {
    const refusal = (value: unknown) => {
      const decoded = Schema.decodeUnknownEither(SubmitVotePayload)(value)
      return decoded._tag === "Left" ? describeParseError(decoded.left) : "accepted"
    }
    const dimensions = { reliability: "first", code_quality: "first", request_fulfillment: "first", change_scope: "first", safe_operations: "first", accurate_reporting: "first" }
    const good = { run_id: "run-1", ballot_token: "t", dimensions, overall: "tie" }
    expect(refusal(good)).toBe("accepted")
    expect(refusal({ ...good, overall: "codex" })).toBe("overall must be first, second or tie.")
    expect(refusal({ ...good, dimensions: { ...dimensions, reliability: "A" } })).toBe("dimensions.reliability must be first, second or tie.")
    expect(refusal({ ...good, dimensions: { ...dimensions, speed: "first" } })).toBe(
      "dimensions must give first, second or tie for each of the six rubric dimensions, and nothing else."
    )
    expect(refusal({ ...good, winner: "codex" })).toBe("A vote needs run_id, ballot_token, dimensions and overall, and nothing else.")
    expect(refusal({ ...good, run_id: "../x" })).toBe("The run ID is invalid.")
  })
})

describe("Cohen's kappa", () => {
  it("is 1 for perfect agreement over two categories and 0 for agreement at chance", () => {
    expect(cohensKappa([["codex", "codex"], ["claude", "claude"]])).toEqual({ n: 2, agreeing: 2, share: 1, kappa: 1 })
    // Each rater says codex half the time, independently: pₒ = pₑ = ½.
    const chance = cohensKappa([["codex", "codex"], ["codex", "claude"], ["claude", "codex"], ["claude", "claude"]])
    expect(chance.share).toBe(0.5)
    expect(chance.kappa).toBeCloseTo(0, 12)
  })

  it("matches a worked example (three categories)", () => {
    // Judge: codex 3, claude 2, tie 1; user: codex 2, claude 2, tie 2. pₒ = 4/6; pₑ = (3·2 + 2·2 + 1·2)/36 = 1/3; κ = (2/3 − 1/3)/(2/3) = ½.
    const pairs: Array<readonly [string, string]> = [
      ["codex", "codex"], ["codex", "codex"], ["codex", "claude"], ["claude", "claude"], ["claude", "tie"], ["tie", "tie"]
    ]
    const result = cohensKappa(pairs)
    expect(result.agreeing).toBe(4)
    expect(result.kappa).toBeCloseTo(0.5, 12)
    expect(cohensKappa([["codex", "claude"], ["claude", "codex"]]).kappa).toBe(-1)
  })

  it("has no share and no kappa with no pairs, and no kappa when both always gave the same one answer", () => {
    expect(cohensKappa([])).toEqual({ n: 0, agreeing: 0, share: null, kappa: null })
    expect(cohensKappa([["tie", "tie"], ["tie", "tie"], ["tie", "tie"]])).toEqual({ n: 3, agreeing: 3, share: 1, kappa: null })
    // One rater always the same, the other not: pₑ < 1, κ is defined (0 here).
    expect(cohensKappa([["codex", "codex"], ["codex", "claude"]]).kappa).toBe(0)
  })

  it("leaves an inconclusive judge out: it reached no verdict to agree with", () => {
    expect(judgeCategory("inconclusive")).toBeNull()
    expect(judgeCategory("claude")).toBe("claude")
  })
})
