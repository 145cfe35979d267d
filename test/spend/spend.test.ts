import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { estimateCost, reviewOrderTokens, type ThreadSize } from "../../src/domain/estimate.js"
import { codexCall, ModelCall, Spend, spendLineText, spendOf } from "../../src/domain/spend.js"

const usage = (input: number, cached: number, output: number) => ({ input, cached_input: cached, cache_write: 0, output })

describe("the spend ledger", () => {
  // gpt-5.5: $5 input, $0.50 cached input, $30 output per million tokens.
  const implementation = codexCall("implementation", "implementation", "gpt-5.5", usage(1_000_000, 200_000, 10_000), {})
  const reviewAb = codexCall("review", "review:codex:ab", "gpt-6.2-sol", usage(100_000, 0, 5_000), {})
  const askedAgain = codexCall("review_asked_again", "review:codex:ba:asked-again", "gpt-6.2-sol", usage(50_000, 0, 1_000), {})
  const unpriced = codexCall("reconstruction", "prompt-synthesis", "gpt-daybreak-blue-latest", usage(10_000, 0, 100), {})

  it("prices a call from its usage with the pricing table: cached input at the cached rate", () => {
    expect(implementation.tokens).toEqual({ ordinary_input: 800_000, cache_read: 200_000, cache_write: 0, output: 10_000 })
    expect(implementation.cost_usd).toBeCloseTo(0.8 * 5 + 0.2 * 0.5 + 0.01 * 30, 12)
    expect(reviewAb.cost_usd).toBeCloseTo(0.1 * 2 + 0.005 * 10, 12)
  })

  it("takes the controller's price overrides first", () => {
    const overridden = codexCall("review", "review:codex:ab", "gpt-6.2-sol", usage(1_000_000, 0, 0), {
      "gpt-6.2-sol": { input_per_million: 1, cached_input_per_million: 0, output_per_million: 0 }
    })
    expect(overridden.cost_usd).toBe(1)
  })

  it("keeps an unpriced call with its reason, never $0", () => {
    expect(unpriced.cost_usd).toBeNull()
    expect(unpriced.unpriced_reason).toMatch(/gpt-daybreak-blue-latest is not priced/)
  })

  it("sums the implementation apart from the evaluation (every other call), with unpriced counts", () => {
    const spend = spendOf([implementation, reviewAb, askedAgain, unpriced])
    expect(spend.implementation).toEqual({ usd: implementation.cost_usd, calls: 1, unpriced_calls: 0 })
    expect(spend.evaluation.calls).toBe(3)
    expect(spend.evaluation.unpriced_calls).toBe(1)
    expect(spend.evaluation.usd).toBeCloseTo(reviewAb.cost_usd! + askedAgain.cost_usd!, 12)
    expect(spend.total.usd).toBeCloseTo(implementation.cost_usd! + reviewAb.cost_usd! + askedAgain.cost_usd!, 12)
    expect(spendLineText(spend.evaluation)).toBe("$0.360 + 1 call not priced")
    expect(spendLineText({ usd: 0, calls: 2, unpriced_calls: 2 })).toBe("not priced (2 calls)")
    expect(Schema.decodeUnknownSync(Spend)(JSON.parse(JSON.stringify(spend)))).toEqual(spend)
  })

  it("accepts the purposes a run makes, a second judge included, and refuses another", () => {
    const judge = { ...reviewAb, purpose: "second_judge", model: "claude-opus" }
    expect(Schema.is(ModelCall)(judge)).toBe(true)
    expect(Schema.is(ModelCall)({ ...reviewAb, purpose: "repair" })).toBe(false)
  })
})

describe("the estimate before approval", () => {
  const size: ThreadSize = {
    thread_id: "t1",
    claude_tokens: { ordinary_input: 100_000, cache_read: 900_000, cache_write: 50_000, output: 20_000 },
    result_chars: 8_000
  }

  it("prices the implementation from Claude's tokens and two review orders from the result's size", () => {
    const estimate = estimateCost({ threads: [{ size, models: ["gpt-5.5"] }], reviewer: "gpt-6.2-sol", earlier: [], prices: {} })
    // gpt-5.5: (100k + 50k) × $5 + 900k × $0.50 + 20k × $30 per million.
    expect(estimate.implementation_usd).toBeCloseTo(0.75 + 0.45 + 0.6, 12)
    const order = reviewOrderTokens(8_000)
    expect(order.ordinary_input).toBe(3 * (4_000 + 4_000))
    expect(estimate.evaluation_usd).toBeCloseTo(2 * ((order.ordinary_input * 2 + order.output * 10) / 1_000_000), 12)
    expect(estimate.usd).toBeCloseTo(estimate.implementation_usd! + estimate.evaluation_usd!, 12)
    expect(estimate.parts).toEqual([expect.objectContaining({ thread_id: "t1", model: "gpt-5.5", basis: "thread_size" })])
    expect(estimate.text).toMatch(/^Estimated cost: about \$1\.98 for 1 run \(Codex implementation \$1\.80, evaluation \$0\.176 for two review orders per run/)
    expect(estimate.text).toContain("An estimate from the thread's size")
  })

  it("uses earlier runs of the same thread: the implementation of the same model, the review of the same reviewer", () => {
    const estimate = estimateCost({
      threads: [{ size, models: ["gpt-5.5", "gpt-6.2-sol"] }],
      reviewer: "gpt-6.2-sol",
      earlier: [
        { thread_id: "t1", model: "gpt-5.5", implementation_usd: 1, review: { model: "gpt-6.2-sol", usd: 0.2 }, second_judge_usd: 5 },
        { thread_id: "t1", model: "gpt-5.5", implementation_usd: 3, review: { model: "gpt-6.2-sol", usd: 0.4 }, second_judge_usd: null },
        // Another reviewer's review, or a review not kept apart, is not this run's review.
        { thread_id: "t1", model: "gpt-5.5", implementation_usd: 2, review: { model: "gpt-5.5", usd: 9 }, second_judge_usd: null },
        { thread_id: "t1", model: "gpt-6.2-sol", implementation_usd: null, review: null, second_judge_usd: null },
        { thread_id: "t2", model: "gpt-6.2-sol", implementation_usd: 100, review: { model: "gpt-6.2-sol", usd: 100 }, second_judge_usd: null }
      ],
      prices: {}
    })
    expect(estimate.parts[0]).toMatchObject({ basis: "earlier_runs", earlier_runs: 3, implementation_usd: 2, review_basis: "earlier_runs", review_earlier_runs: 2 })
    // The earlier second judge (no second judge is asked now) is never folded into the review.
    expect(estimate.parts[0]!.evaluation_usd).toBeCloseTo(0.3, 12)
    // gpt-6.2-sol's earlier run had no priced implementation: its implementation comes from the thread's size; its review from gpt-5.5's runs with the same reviewer.
    expect(estimate.parts[1]).toMatchObject({ basis: "thread_size", model: "gpt-6.2-sol", review_basis: "earlier_runs" })
    expect(estimate.parts[1]!.evaluation_usd).toBeCloseTo(0.3, 12)
    expect(estimate.text).toContain("the mean of 3 earlier run(s) of the same thread and model")
    expect(estimate.text).toContain("the review: earlier runs of the same thread reviewed by gpt-6.2-sol")
  })

  it("includes the second judge: from earlier runs that had one, else from the result's size at Claude's prices", () => {
    const order = reviewOrderTokens(8_000)
    const base = estimateCost({ threads: [{ size, models: ["gpt-5.5"] }], reviewer: "gpt-6.2-sol", earlier: [], prices: {} })
    // claude:sonnet is priced as claude-sonnet-4-6: $3 input, $15 output per million tokens.
    const sonnet = estimateCost({ threads: [{ size, models: ["gpt-5.5"] }], reviewer: "gpt-6.2-sol", earlier: [], prices: {}, secondJudge: "claude:sonnet" })
    const judge = 2 * ((order.ordinary_input * 3 + order.output * 15) / 1_000_000)
    expect(sonnet.parts[0]).toMatchObject({ second_judge_basis: "thread_size" })
    expect(sonnet.parts[0]!.second_judge_usd).toBeCloseTo(judge, 12)
    expect(sonnet.evaluation_usd).toBeCloseTo(base.evaluation_usd! + judge, 12)
    expect(sonnet.text).toContain("for two review orders per run and the second judge's two orders (claude:sonnet), about $0.264 from the result's size at claude-sonnet-4-6's API prices, at API-equivalent prices)")
    // A model whose price is not known is priced as the documented default, and says so.
    const unknown = estimateCost({ threads: [{ size, models: ["gpt-5.5"] }], reviewer: "gpt-6.2-sol", earlier: [], prices: {}, secondJudge: "claude:claude-test" })
    expect(unknown.parts[0]!.second_judge_usd).toBeCloseTo(judge, 12)
    expect(unknown.text).toContain("assumed because claude:claude-test names no model whose price is known")
    const opus = estimateCost({ threads: [{ size, models: ["gpt-5.5"] }], reviewer: "gpt-6.2-sol", earlier: [], prices: {}, secondJudge: "claude:claude-opus-4-1-20250805" })
    expect(opus.parts[0]!.second_judge_usd).toBeCloseTo(2 * ((order.ordinary_input * 15 + order.output * 75) / 1_000_000), 12)
    // Earlier runs of the thread with a second judge are its basis.
    const earlier = estimateCost({
      threads: [{ size, models: ["gpt-5.5"] }],
      reviewer: "gpt-6.2-sol",
      earlier: [{ thread_id: "t1", model: "gpt-6.2-sol", implementation_usd: 7, review: null, second_judge_usd: 0.5 }],
      prices: {},
      secondJudge: "claude"
    })
    expect(earlier.parts[0]).toMatchObject({ second_judge_usd: 0.5, second_judge_basis: "earlier_runs", basis: "thread_size" })
    expect(earlier.text).toContain("the second judge's two orders (claude), about $0.500 from its earlier runs on the same thread")
  })

  it("gives no figure when a model has no price, and says which", () => {
    const estimate = estimateCost({ threads: [{ size, models: ["gpt-daybreak-blue-latest"] }], reviewer: "gpt-6.2-sol", earlier: [], prices: {} })
    expect(estimate.usd).toBeNull()
    expect(estimate.text).toBe("No estimate: gpt-daybreak-blue-latest has no price.")
    const reviewer = estimateCost({ threads: [{ size, models: ["gpt-5.5"] }], reviewer: "codex-auto-review", earlier: [], prices: {} })
    expect(reviewer.text).toBe("No estimate: codex-auto-review has no price.")
  })

  it("gives no figure when Claude's tokens are not recorded and no earlier run exists", () => {
    const estimate = estimateCost({ threads: [{ size: { ...size, claude_tokens: null }, models: ["gpt-5.5"] }], reviewer: "gpt-6.2-sol", earlier: [], prices: {} })
    expect(estimate.usd).toBeNull()
    expect(estimate.text).toBe("No estimate: Claude's tokens for t1 are not recorded and it has no earlier run with gpt-5.5.")
  })

  it("sums every thread × model of a batch", () => {
    const one = estimateCost({ threads: [{ size, models: ["gpt-5.5"] }], reviewer: "gpt-6.2-sol", earlier: [], prices: {} })
    const batch = estimateCost({
      threads: [{ size, models: ["gpt-5.5", "gpt-5.5"] }, { size: { ...size, thread_id: "t2" }, models: ["gpt-5.5"] }],
      reviewer: "gpt-6.2-sol",
      earlier: [],
      prices: {}
    })
    expect(batch.usd).toBeCloseTo(3 * one.usd!, 12)
    expect(batch.text).toContain("for 3 runs")
  })
})
