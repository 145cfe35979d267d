import { describe, expect, it } from "vitest"
import { canonicalBallot } from "../../src/domain/review/ballot.js"
import { DIMENSION_IDS } from "../../src/domain/review/dimensions.js"
import {
  aggregateEvaluation,
  type CandidateMapping,
  positionsFor,
  revealLetters,
  type ReviewOrder,
  type ReviewRecord
} from "../../src/domain/review/evaluation.js"
import { ballotFavouring, makeBallot } from "./ballots.js"

const mapping: CandidateMapping = { A: "claude", B: "codex" }

const review = (order: ReviewOrder, ballot: ReturnType<typeof makeBallot> | null, status: ReviewRecord["status"] = "completed"): ReviewRecord => ({
  order,
  evaluator: "codex",
  model: "gpt-review",
  status,
  error: status === "completed" ? null : "boom",
  positions: positionsFor(order, mapping),
  ballot: ballot === null ? null : canonicalBallot(ballot),
  normalized: false
})

describe("order-balanced aggregation", () => {
  it("turns a first-position bias into ties, one flip per dimension", () => {
    const evaluation = aggregateEvaluation({
      candidate_mapping: mapping,
      reviews: [review("AB", ballotFavouring("A")), review("BA", ballotFavouring("A"))]
    })
    expect(evaluation.flips).toBe(DIMENSION_IDS.length)
    for (const id of DIMENSION_IDS) {
      expect(evaluation.dimensions[id]).toMatchObject({ winner: "tie", agreement: "order_dependent", order_dependent: true })
      expect(evaluation.dimensions[id].by_order).toEqual([{ order: "AB", winner: "claude" }, { order: "BA", winner: "codex" }])
    }
    expect(evaluation.winner).toBe("tie")
  })

  it("keeps a verdict both orders agree on", () => {
    // codex is B in the run; in the swapped order the reviewer sees it as A.
    const evaluation = aggregateEvaluation({
      candidate_mapping: mapping,
      reviews: [review("AB", ballotFavouring("B")), review("BA", ballotFavouring("A"))]
    })
    expect(evaluation.flips).toBe(0)
    expect(DIMENSION_IDS.map((id) => evaluation.dimensions[id].winner)).toEqual(DIMENSION_IDS.map(() => "codex"))
    expect(evaluation.winner).toBe("codex")
    expect(evaluation.candidate_mapping).toEqual(mapping)
  })

  it("counts only comparable dimensions toward the overall winner", () => {
    // claude wins reliability only; codex wins the rest, which are excluded.
    const favour = (order: ReviewOrder) => makeBallot((dimension, _check, position) => {
      const claudeLetter = positionsFor(order, mapping).A === "claude" ? "A" : "B"
      const winner = dimension === "reliability" ? claudeLetter : claudeLetter === "A" ? "B" : "A"
      return position === winner ? 1 : 0
    })
    const evaluation = aggregateEvaluation({
      candidate_mapping: mapping,
      reviews: [review("AB", favour("AB")), review("BA", favour("BA"))],
      comparable_dimensions: ["reliability"]
    })
    expect(evaluation.dimensions.code_quality).toMatchObject({ winner: "codex", comparable: false })
    expect(evaluation.comparable_dimensions).toEqual(["reliability"])
    expect(evaluation.winner).toBe("claude")
  })

  it("is inconclusive without two validated ballots", () => {
    const evaluation = aggregateEvaluation({
      candidate_mapping: mapping,
      reviews: [review("AB", ballotFavouring("A")), review("BA", null, "failed")]
    })
    expect(evaluation.flips).toBe(0)
    expect(evaluation.dimensions.reliability).toMatchObject({ winner: "inconclusive", agreement: "incomplete" })
    expect(evaluation.winner).toBe("inconclusive")
  })
})

describe("revealing identities", () => {
  const labels = { codex: "Codex replay", claude: "Historical Claude" } as const
  const positions: CandidateMapping = { A: "codex", B: "claude" }

  it("replaces the candidate labels as the ballot uses them", () => {
    expect(revealLetters("Candidate A tests more than Candidate B; candidate B's patch is smaller.", positions, labels))
      .toBe("Codex replay tests more than Historical Claude; Historical Claude's patch is smaller.")
    expect(revealLetters("Candidate B.", positions, labels)).toBe("Historical Claude.")
  })

  it("leaves a letter inside other words and phrases alone", () => {
    for (const text of ["Plan B stays Plan B.", "A/B testing is not a candidate.", "Option A and option B.", "A check of B found a gap.", "Vitamin B12 and a Type-A error.", "Candidate A/B wording is ambiguous."]) {
      expect(revealLetters(text, positions, labels)).toBe(text)
    }
    expect(revealLetters("Candidate A keeps Plan B; candidate B uses A/B testing.", positions, labels))
      .toBe("Codex replay keeps Plan B; Historical Claude uses A/B testing.")
  })
})
