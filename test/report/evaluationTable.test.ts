import { describe, expect, it } from "vitest"
import { canonicalBallot } from "../../src/domain/review/ballot.js"
import { DIMENSIONS } from "../../src/domain/review/dimensions.js"
import { type CandidateMapping, positionsFor } from "../../src/domain/review/evaluation.js"
import { NO_BALLOT_MESSAGE, renderEvaluationTable } from "../../src/domain/report/evaluationTable.js"
import { makeBallot, NARRATIVE } from "../review/ballots.js"
import { sampleEvaluation } from "./fixtures.js"

/** The seed's scenario: reliability 2/3 vs 1/3 with one N/A check, code quality a tie, A passes elsewhere. */
const seedBallot = () =>
  makeBallot((dimension, check, position) => {
    if (dimension === "reliability") {
      if (check === "state_consistency") return null
      const first = { invalid_inputs: 1, boundary_conditions: 1, failure_handling: 0 } as Record<string, 0 | 1>
      const value = first[check] ?? 0
      return position === "A" ? (value as 0 | 1) : ((1 - value) as 0 | 1)
    }
    if (dimension === "code_quality") return check === "clear_naming" ? 1 : 0
    return position === "A" ? 1 : 0
  }, (dimension) => (dimension === "code_quality" ? "tie" : "A"))

const evaluationWith = (mapping: CandidateMapping, extra: Record<string, unknown> = {}) => ({
  candidate_mapping: mapping,
  reviews: [{ evaluator: "codex", model: "gpt-review", ballot: seedBallot() }],
  ...extra
})

describe("renderEvaluationTable", () => {
  it("reveals identities, renders every check as Pass/Fail/N/A and whole-percent scores", () => {
    const rendered = renderEvaluationTable(evaluationWith({ A: "codex", B: "claude" }))
    expect(rendered).toContain("<th>Codex replay</th><th>Historical Claude</th>")
    for (const dimension of DIMENSIONS) {
      expect(rendered).toContain(`<strong>${dimension.label}</strong>`)
      for (const check of dimension.checks) expect(rendered).toContain(`>${check.label}</td>`)
    }
    for (const label of ["Invalid inputs handled appropriately", "Boundary conditions handled", "Required behavior implemented", "Summary is truthful", "Limitations disclosed"]) {
      expect(rendered).toContain(`>${label}</td><td class="result result--pass">Pass</td><td class="result result--fail">Fail</td>`)
    }
    expect(rendered).toContain(">Failures handled gracefully</td><td class=\"result result--fail\">Fail</td><td class=\"result result--pass\">Pass</td>")
    expect(rendered).toContain(">State remains consistent</td><td class=\"result result--na\">N/A</td><td class=\"result result--na\">N/A</td>")
    expect(rendered).toContain("<td>67%</td><td>33%</td>")
    expect(rendered).not.toContain("66.7%")
    expect(rendered).toContain("<strong>Codex replay</strong>")
    expect(rendered).toContain("<strong>Tie</strong>")
    expect(rendered).toContain("<td>50%</td><td>50%</td>")
    expect(rendered).toContain("Pass: satisfied. Fail: failed.")
    expect(rendered).not.toContain("excluded from aggregate")
    expect(rendered).not.toContain(NO_BALLOT_MESSAGE)
  })

  it("never shows reviewer narratives", () => {
    const rendered = renderEvaluationTable(evaluationWith({ A: "codex", B: "claude" }))
    expect(rendered).not.toContain(NARRATIVE)
    expect(rendered).not.toContain("Explanation")
    expect(JSON.stringify(seedBallot())).toContain(NARRATIVE)
  })

  it("follows the mapping: with Claude as A the columns swap their values", () => {
    const rendered = renderEvaluationTable(evaluationWith({ A: "claude", B: "codex" }))
    expect(rendered).toContain("<th>Codex replay</th><th>Historical Claude</th>")
    expect(rendered).toContain(">Required behavior implemented</td><td class=\"result result--fail\">Fail</td><td class=\"result result--pass\">Pass</td>")
    expect(rendered).toContain("<td>33%</td><td>67%</td>")
    expect(rendered).toContain("<strong>Historical Claude</strong>")
  })

  it("uses each review's own positions in the swapped order", () => {
    const mapping: CandidateMapping = { A: "codex", B: "claude" }
    const swapped = { order: "BA" as const, evaluator: "codex", model: "gpt-review", status: "completed", error: null, positions: positionsFor("BA", mapping), ballot: canonicalBallot(seedBallot()) }
    const rendered = renderEvaluationTable({ candidate_mapping: mapping, reviews: [swapped] })
    // In B/A the reviewer's A is Claude, so its passes land in the Claude column.
    expect(rendered).toContain(">Required behavior implemented</td><td class=\"result result--fail\">Fail</td><td class=\"result result--pass\">Pass</td>")
    expect(rendered).toContain("Historical Claude shown first as A")
  })

  it("marks dimensions outside comparable_dimensions", () => {
    const rendered = renderEvaluationTable(evaluationWith({ A: "codex", B: "claude" }, { comparable_dimensions: ["request_fulfillment"] }))
    expect(rendered).toContain("Code quality (excluded from aggregate)")
    expect(rendered).toContain("<strong>Request fulfillment</strong>")
    expect(rendered).not.toContain("Request fulfillment (excluded from aggregate)")
  })

  it("shows failed and invalid reviews with their escaped error", () => {
    const rendered = renderEvaluationTable({
      candidate_mapping: { A: "claude", B: "codex" },
      reviews: [
        { evaluator: "codex", model: "gpt-review", status: "failed", error: "Reviewer unavailable <offline>" },
        { evaluator: "codex", model: "gpt-review", status: "invalid", error: "Invalid ballot <details>" }
      ]
    })
    expect(rendered).toContain("<strong>Failed</strong> Reviewer unavailable &lt;offline&gt;")
    expect(rendered).toContain("<strong>Invalid</strong> Invalid ballot &lt;details&gt;")
    expect(rendered).not.toContain("<offline>")
    expect(rendered).not.toContain("<details>")
    expect(rendered).toContain(NO_BALLOT_MESSAGE)
  })

  it("says so when there is no ballot at all", () => {
    expect(renderEvaluationTable({})).toContain(`<p class="no-ballot">${NO_BALLOT_MESSAGE}</p>`)
    expect(renderEvaluationTable(null)).toContain(NO_BALLOT_MESSAGE)
    expect(renderEvaluationTable({ reviews: [{ evaluator: "codex", ballot: null }] })).toContain(NO_BALLOT_MESSAGE)
  })

  it("renders the order-balanced result with order-dependent ties and the flip count", () => {
    const rendered = renderEvaluationTable(sampleEvaluation())
    expect(rendered).toContain("Order-balanced result")
    expect(rendered).toMatch(/<strong>Reliability<\/strong><\/td><td>Historical Claude<\/td><td>Codex replay<\/td><td><strong>Tie<\/strong> <span class="order-dependent">order-dependent<\/span>/)
    expect(rendered).toMatch(/<strong>Request fulfillment<\/strong><\/td><td>Codex replay<\/td><td>Codex replay<\/td><td><strong>Codex replay<\/strong><\/td>/)
    expect(rendered).toContain("1 of 6 dimensions flipped with the order")
  })
})
