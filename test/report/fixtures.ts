import { canonicalBallot } from "../../src/domain/review/ballot.js"
import { aggregateEvaluation, type CandidateMapping, type Evaluation, positionsFor, type ReviewOrder } from "../../src/domain/review/evaluation.js"
import { buildReport, type CandidateSide, type Report } from "../../src/domain/report/report.js"
import { makeBallot, NARRATIVE } from "../review/ballots.js"

export const HOSTILE = `<script>alert("x")</script><img src="https://example.invalid/pixel.png">`

/** Codex wins request fulfillment in both orders; reliability flips; the rest agree on Claude or N/A. */
export const sampleEvaluation = (mapping: CandidateMapping = { A: "claude", B: "codex" }): Evaluation => {
  const ballotFor = (order: ReviewOrder) => {
    const positions = positionsFor(order, mapping)
    const codexLetter = positions.A === "codex" ? "A" : "B"
    return canonicalBallot(makeBallot((dimension, check, position) => {
      const isCodex = position === codexLetter
      switch (dimension) {
        case "reliability":
          // The first position always passes: order-dependent.
          return check === "state_consistency" ? null : position === "A" ? 1 : 0
        case "request_fulfillment":
          return isCodex ? 1 : 0
        case "safe_operations":
          return null
        default:
          return isCodex ? 0 : 1
      }
    }))
  }
  const review = (order: ReviewOrder) => ({
    order,
    evaluator: "codex",
    model: "gpt-review",
    status: "completed" as const,
    error: null,
    positions: positionsFor(order, mapping),
    ballot: ballotFor(order),
    normalized: false
  })
  return aggregateEvaluation({ candidate_mapping: mapping, reviews: [review("AB"), review("BA")] })
}

const patchOf = (marker: string) => [
  "diff --git a/src/app.ts b/src/app.ts",
  "index 1111111..2222222 100644",
  "--- a/src/app.ts",
  "+++ b/src/app.ts",
  "@@ -1,3 +1,4 @@",
  " const a = 1",
  `-const b = "${marker} old"`,
  `+const b = "${marker} <new> & improved"`,
  "+const c = 3",
  " export { a }",
  ""
].join("\n")

export const codexSide: CandidateSide = {
  model: "gpt-5.6-terra",
  patch: patchOf("codex"),
  final_response: `Implemented the change. ${HOSTILE}`,
  files: [{ path: "src/app.ts", additions: 2, deletions: 1 }],
  worktree: "/tmp/run/workspaces/codex",
  elapsed_ms: 95_000,
  tokens: { ordinary_input: 12_000, cache_read: 48_000, cache_write: 0, output: 3_500 },
  cost: { usd: 0.42, reason: null }
}

export const claudeSide: CandidateSide = {
  model: "claude-sonnet-4-5",
  patch: patchOf("claude"),
  final_response: "Done: updated src/app.ts.",
  files: [{ path: "src/app.ts", additions: 2, deletions: 1 }],
  worktree: "/home/dev/project",
  elapsed_ms: 240_000,
  tokens: { ordinary_input: 900, cache_read: 150_000, cache_write: 22_000, output: 6_100 },
  cost: { usd: null, reason: "No price is known for this model." }
}

export const sampleInput = (evaluation: Evaluation | null = sampleEvaluation()) => ({
  run_id: "run-2026-11-29",
  thread_id: "c45af7b1-thread",
  original_request: `Add c to app.ts ${HOSTILE}`,
  generated_at: "2026-11-29T12:00:00.000Z",
  codex: codexSide,
  claude: claudeSide,
  evaluation,
  reviewer_model: "gpt-review"
})

export const sampleReport = (evaluation: Evaluation | null = sampleEvaluation()): Report => buildReport(sampleInput(evaluation))

export { NARRATIVE }
