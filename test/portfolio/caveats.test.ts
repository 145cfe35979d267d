import { Either, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { modelLines } from "../../src/cli/portfolio.js"
import { renderPortfolioHtml } from "../../src/domain/portfolio/html.js"
import { buildPortfolio, PortfolioFile, portfolioRun, type PortfolioRun } from "../../src/domain/portfolio/portfolio.js"
import { DIMENSION_IDS } from "../../src/domain/review/dimensions.js"

const report = (options: { readonly winner: string; readonly orderDependent?: boolean; readonly selfReview?: boolean }) => ({
  thread_id: "thread-1",
  winner: options.winner,
  candidates: { codex: { model: "gpt-5.6-terra", elapsed_ms: 1000, cost: { usd: 0.1 } }, claude: { elapsed_ms: 2000, cost: { usd: 1 } } },
  evaluation: {
    flips: options.orderDependent === true ? 6 : 0,
    comparable_dimensions: DIMENSION_IDS,
    dimensions: Object.fromEntries(DIMENSION_IDS.map((id) => [id, { winner: options.winner === "codex" ? "codex" : "tie", comparable: true, order_dependent: options.orderDependent === true }])),
    reviews: [{ order: "AB", status: "completed" }, { order: "BA", status: "completed" }]
  },
  comparability: options.selfReview === true
    ? { like_for_like: false, concerns: ["Self-review: the reviewer (gpt-5.6-terra) is the model that implemented the replay."] }
    : { like_for_like: true, concerns: [] },
  about_review: { reviewer_model: options.selfReview === true ? "gpt-5.6-terra" : "gpt-5.6-sol", self_review: options.selfReview === true }
})

const counted = (runId: string, value: unknown): PortfolioRun => {
  const run = portfolioRun(runId, value, null)
  if (Either.isLeft(run)) throw new Error(run.left)
  return run.right
}

describe("the portfolio carries each verdict's caveats and counts self-reviews apart", () => {
  const runs = [
    counted("run-self", report({ winner: "codex", selfReview: true })),
    counted("run-flips", report({ winner: "tie", orderDependent: true })),
    counted("run-clean", report({ winner: "codex" }))
  ]
  const portfolio = buildPortfolio({ portfolio_id: "portfolio-x", generated_at: "2026-12-01T00:00:00.000Z", runs })
  const model = portfolio.models[0]!

  it("each run's caveats in the report's words; the self-reviews counted, with their runs", () => {
    expect(runs.map((run) => [run.self_review, (run.caveats ?? []).map((caveat) => caveat.kind)])).toEqual([
      [true, ["not_like_for_like", "self_review"]],
      [false, ["inconclusive"]],
      [false, []]
    ])
    expect(model.self_reviews).toEqual({ count: 1, run_ids: ["run-self"] })
    // portfolio.json keeps them, and an older portfolio without them still reads.
    const decoded = Schema.decodeUnknownSync(PortfolioFile)(JSON.parse(JSON.stringify(portfolio)))
    expect(decoded.models[0]!.runs[0]!.caveats).toEqual(runs[0]!.caveats)
    const { self_reviews: _, ...older } = JSON.parse(JSON.stringify(model))
    expect(() => Schema.decodeUnknownSync(PortfolioFile)({ ...portfolio, models: [{ ...older, runs: [] }] })).not.toThrow()
  })

  it("CLI lines and HTML: the self-reviews' count, and a tie by disagreement as inconclusive", () => {
    const lines = modelLines(model)
    expect(lines).toContain("  Self-reviews:   1 run of 3 reviewed by gpt-5.6-terra itself: run-self")
    expect(lines).toContain("  Caveats:        run-self: Codex wins [not like-for-like · self-review]")
    expect(lines).toContain("  Caveats:        run-flips: inconclusive (the two orders disagreed)")
    const html = renderPortfolioHtml(portfolio)
    expect(html).toContain("<dt>Self-reviews</dt>")
    expect(html).toContain("1 run of 3 reviewed by gpt-5.6-terra itself")
    expect(html).toContain("Inconclusive (the two orders disagreed)")
    expect(html).toContain('Codex wins <span class="caveats">(not like-for-like · self-review)</span>')
  })

  it("counts a tie by disagreement in no overall figure: it is no tie, and the headline says it was left out", () => {
    expect([model.overall.wins.count, model.overall.ties.count, model.overall.losses.count, model.overall.not_counted.count]).toEqual([2, 0, 0, 1])
    expect(model.overall.not_counted.run_ids).toEqual(["run-flips"])
    expect(modelLines(model)[0]).toContain("Codex won 2, tied 0 and lost 0 of 3 runs (1 without a verdict: not counted)")
  })
})
