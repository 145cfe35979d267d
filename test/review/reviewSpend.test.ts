import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { WorkerError, withAttemptUsage } from "../../src/domain/errors.js"
import { Review } from "../../src/services/Review.js"
import { ballotFavouring, NARRATIVE } from "./ballots.js"
import { makeRunDirectory, retryableFailure, reviewInput, reviewLayer, runWithTestClock } from "./support.js"

const usage = (input: number, output: number) => ({ input, cached_input: 0, cache_write: 0, output, reasoning_output: 0 })

describe("the review's calls", () => {
  it.effect("counts each order and each asked-again review, the answer that was not a ballot included, priced", () =>
    Effect.gen(function*() {
      const runDirectory = yield* makeRunDirectory()
      const layer = reviewLayer((request) => {
        const askedAgain = request.prompt.includes("did not match the output schema")
        // A/B: prose first (its tokens billed all the same), a ballot when asked again; B/A: a ballot at once.
        if (request.label?.includes(":ab") === true && !askedAgain) return Effect.succeed({ final_response: `${NARRATIVE}: A`, usage: usage(100_000, 1_000) })
        return Effect.succeed({ final_response: JSON.stringify(ballotFavouring("A")), usage: usage(200_000, 2_000) })
      })
      const { calls, evaluation } = yield* Effect.flatMap(Review, (review) => review.runCounted(reviewInput(runDirectory, { model: "gpt-6.2-sol" }))).pipe(
        Effect.provide(layer)
      )
      expect(evaluation.reviews.map((review) => review.status)).toEqual(["completed", "completed"])
      expect(calls.map((call) => [call.purpose, call.label, call.tokens.ordinary_input])).toEqual([
        ["review", "review:codex:ab (not a ballot)", 100_000],
        ["review_asked_again", "review:codex:ab:asked-again", 200_000],
        ["review", "review:codex:ba", 200_000]
      ])
      // gpt-6.2-sol: $2 input, $10 output per million tokens.
      expect(calls[0]!.cost_usd).toBeCloseTo(0.1 * 2 + 0.001 * 10, 12)
      expect(calls.every((call) => call.model === "gpt-6.2-sol")).toBe(true)
    }))

  it.effect("counts a retried attempt that reported its tokens, and prices an unpriced reviewer as null", () =>
    Effect.gen(function*() {
      const runDirectory = yield* makeRunDirectory()
      let count = 0
      const layer = reviewLayer(() =>
        Effect.suspend(() => {
          count += 1
          if (count === 1) return Effect.fail(withAttemptUsage(retryableFailure(), usage(5_000, 50)))
          return Effect.succeed({ final_response: JSON.stringify(ballotFavouring("B")), usage: usage(10_000, 100) })
        })
      )
      const fiber = yield* Effect.flatMap(Review, (review) => review.runCounted(reviewInput(runDirectory, { model: "unpriced-reviewer" }))).pipe(
        Effect.provide(layer),
        Effect.fork
      )
      const { calls } = yield* runWithTestClock(fiber)
      expect(calls.map((call) => call.label)).toEqual(["review:codex:ab:attempt-1 (failed)", "review:codex:ab", "review:codex:ba"])
      expect(calls[0]!.tokens.ordinary_input).toBe(5_000)
      expect(calls.every((call) => call.cost_usd === null && call.unpriced_reason?.includes("unpriced-reviewer"))).toBe(true)
    }))

  it("carries a failed attempt's tokens on its error, and nothing when Codex reported none", () => {
    const failure = retryableFailure()
    expect(withAttemptUsage(failure, undefined)).toBe(failure)
    const counted = withAttemptUsage(failure, usage(7, 3))
    expect(counted).toBeInstanceOf(WorkerError)
    expect(counted.usage).toEqual({ input: 7, cached_input: 0, cache_write: 0, output: 3 })
    expect(counted.code).toBe(failure.code)
  })
})
