import { Either, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { costLines, modelLines } from "../../src/cli/portfolio.js"
import { renderPortfolioHtml, runReportLink } from "../../src/domain/portfolio/html.js"
import { buildPortfolio, PortfolioFile, portfolioRun, type PortfolioRun } from "../../src/domain/portfolio/portfolio.js"
import { signTestPValue, wilsonInterval } from "../../src/domain/portfolio/statistics.js"
import { renderReportHtml } from "../../src/domain/report/html.js"
import { integrityOf } from "../../src/domain/report/integrity.js"
import { DIMENSION_IDS } from "../../src/domain/review/dimensions.js"
import { HOSTILE, sampleReport } from "../report/fixtures.js"

type Winner = "codex" | "claude" | "tie" | "inconclusive"

/** A report as `report.json` holds it, reduced to what varies between these tests. */
const reportOf = (options: {
  readonly winner: Winner
  readonly model?: string
  readonly dimensions?: Partial<Record<string, { winner: string; comparable?: boolean; order_dependent?: boolean }>>
  readonly flips?: number
  readonly likeForLike?: boolean | null
  readonly codex?: { elapsed_ms: number | null; usd: number | null }
  readonly claude?: { elapsed_ms: number | null; usd: number | null }
  readonly thread?: string
  readonly evaluation_usd?: number
}) => ({
  schema_version: 1,
  run_id: "ignored",
  thread_id: options.thread ?? "thread-1",
  ...(options.evaluation_usd === undefined ? {} : { spend: { evaluation: { usd: options.evaluation_usd, calls: 2, unpriced_calls: 0 } } }),
  winner: options.winner,
  candidates: {
    codex: { model: options.model ?? "gpt-5.6-terra", elapsed_ms: options.codex?.elapsed_ms ?? 60_000, cost: { usd: options.codex === undefined ? 0.1 : options.codex.usd } },
    claude: { model: "claude-sonnet-4-5", elapsed_ms: options.claude?.elapsed_ms ?? 240_000, cost: { usd: options.claude === undefined ? 1 : options.claude.usd } }
  },
  evaluation: options.winner === "inconclusive" && options.dimensions === undefined
    ? null
    : {
      flips: options.flips ?? 0,
      dimensions: Object.fromEntries(DIMENSION_IDS.map((id) => [id, { winner: "tie", comparable: true, order_dependent: false, ...options.dimensions?.[id] }]))
    },
  comparability: options.likeForLike === null ? null : { like_for_like: options.likeForLike ?? true }
})

const counted = (runId: string, report: unknown, fallback: string | null = null): PortfolioRun => {
  const run = portfolioRun(runId, report, fallback)
  if (Either.isLeft(run)) throw new Error(run.left)
  return run.right
}

describe("a run as the portfolio counts it", () => {
  it("reads a real report: its verdict, each comparable dimension, the flips, time and cost", () => {
    const report = JSON.parse(JSON.stringify(sampleReport()))
    const run = counted("run-a", report)
    expect(run).toMatchObject({
      run_id: "run-a",
      model: "gpt-5.6-terra",
      winner: report.winner,
      flipped_dimensions: report.evaluation.flips,
      like_for_like: null,
      codex: { elapsed_ms: 95_000, cost_usd: 0.42 },
      claude: { elapsed_ms: 240_000, cost_usd: null }
    })
    // Request fulfillment agreed on Codex, reliability flipped (a tie), safe operations not applicable.
    expect(run.dimensions).toEqual({
      reliability: "tie",
      code_quality: "loss",
      request_fulfillment: "win",
      change_scope: "loss",
      safe_operations: "not_counted",
      accurate_reporting: "loss"
    })
  })

  it("does not count a dimension that was not compared, and takes the state's model when the report names none", () => {
    const report = reportOf({ winner: "codex", dimensions: { reliability: { winner: "codex", comparable: false } } })
    const run = counted("run-b", { ...report, candidates: { ...report.candidates, codex: { elapsed_ms: 1, cost: { usd: 0 } } } }, "gpt-5.5")
    expect(run.dimensions.reliability).toBe("not_counted")
    expect(run.model).toBe("gpt-5.5")
  })

  it("says in one sentence why a report cannot be counted", () => {
    const broken = portfolioRun("run-c", { winner: "maybe" }, "gpt-5.5")
    expect(Either.isLeft(broken) && broken.left).toMatch(/^The report of run run-c cannot be read as a replay report \(.+\)\.$/)
    const anonymous = portfolioRun("run-d", { ...reportOf({ winner: "tie" }), candidates: { codex: {}, claude: {} } }, null)
    expect(Either.isLeft(anonymous) && anonymous.left).toBe("The report of run run-d names no Codex model.")
  })
})

describe("the portfolio verdict", () => {
  const runs = [
    counted("r1", reportOf({ winner: "codex", dimensions: { reliability: { winner: "codex" } }, codex: { elapsed_ms: 60_000, usd: 0.1 }, claude: { elapsed_ms: 300_000, usd: 1 } })),
    counted("r2", reportOf({ winner: "codex", dimensions: { reliability: { winner: "codex" } }, flips: 2, codex: { elapsed_ms: 120_000, usd: 0.3 }, claude: { elapsed_ms: 100_000, usd: 2 } })),
    counted("r3", reportOf({ winner: "claude", dimensions: { reliability: { winner: "claude" } }, likeForLike: false, codex: { elapsed_ms: 30_000, usd: null }, claude: { elapsed_ms: 200_000, usd: 3 } })),
    counted("r4", reportOf({ winner: "tie", flips: 1, thread: "thread-4" })),
    counted("r5", reportOf({ winner: "inconclusive", likeForLike: false, thread: "thread-5" })),
    counted("r6", reportOf({ winner: "codex", model: "gpt-5.5", likeForLike: false }))
  ]
  const portfolio = buildPortfolio({ portfolio_id: "portfolio-20261201T120000Z-0123456789", generated_at: "2026-12-01T12:00:00.000Z", runs })
  const terra = portfolio.models[0]!

  it("is what portfolio.json's Schema decodes, through JSON and back; a damaged one is not", () => {
    const written = JSON.parse(JSON.stringify(portfolio))
    expect(Schema.decodeUnknownSync(PortfolioFile)(written)).toEqual(portfolio)
    expect(Schema.is(PortfolioFile)({ ...written, models: [{ ...written.models[0], overall: null }] })).toBe(false)
    expect(Schema.is(PortfolioFile)({ ...written, run_ids: "r1" })).toBe(false)
  })

  it("has one section per model, in the order models first appear", () => {
    expect(portfolio.models.map((model) => model.model)).toEqual(["gpt-5.6-terra", "gpt-5.5"])
    expect(portfolio.run_ids).toEqual(["r1", "r2", "r3", "r4", "r5", "r6"])
    expect(portfolio.models[1]!.runs.map((run) => run.run_id)).toEqual(["r6"])
  })

  it("counts wins, ties and losses with the runs behind each, and tests only the decisive ones", () => {
    expect(terra.overall.wins).toEqual({ count: 2, run_ids: ["r1", "r2"] })
    expect(terra.overall.ties).toEqual({ count: 1, run_ids: ["r4"] })
    expect(terra.overall.losses).toEqual({ count: 1, run_ids: ["r3"] })
    expect(terra.overall.not_counted).toEqual({ count: 1, run_ids: ["r5"] })
    expect(terra.overall.win_rate).toBeCloseTo(2 / 3, 12)
    expect(terra.overall.win_rate_interval).toEqual(wilsonInterval(2, 3))
    expect(terra.overall.sign_test_p).toBe(1) // 2·P(X ≤ 1 | n = 3) = 2·4/8
    expect(terra.overall.significant).toBe(false)
    // 5 threads in the same shares (2 wins, 1 loss per 5): the smallest total whose sign test is below 5%.
    const projection = terra.overall.more_threads_for_significance!
    expect(signTestPValue(Math.round((projection.threads * 2) / 5), Math.round(projection.threads / 5))).toBeLessThan(0.05)
    expect(signTestPValue(Math.round(((projection.threads - 1) * 2) / 5), Math.round((projection.threads - 1) / 5))).toBeGreaterThanOrEqual(0.05)
  })

  it("counts each dimension on its own", () => {
    expect(terra.dimensions.reliability).toMatchObject({
      label: "Reliability",
      wins: { count: 2, run_ids: ["r1", "r2"] },
      losses: { count: 1, run_ids: ["r3"] },
      ties: { count: 1, run_ids: ["r4"] },
      not_counted: { count: 1, run_ids: ["r5"] }
    })
    expect(terra.dimensions.code_quality.ties.count).toBe(4)
    expect(terra.dimensions.code_quality.win_rate).toBeNull()
    expect(terra.dimensions.code_quality.sign_test_p).toBeNull()
  })

  it("counts flipped dimensions and the verdicts that were not like-for-like (an inconclusive run has no verdict)", () => {
    expect(terra.flipped_dimensions).toEqual({ count: 3, runs: { count: 2, run_ids: ["r2", "r4"] } })
    expect(terra.not_like_for_like).toEqual({ count: 1, run_ids: ["r3"] })
    expect(portfolio.models[1]!.not_like_for_like.run_ids).toEqual(["r6"])
  })

  it("totals time and cost on both sides, with medians, over the runs whose figure is known", () => {
    expect(terra.time_ms.codex.total).toBe(60_000 + 120_000 + 30_000 + 60_000 + 60_000)
    expect(terra.time_ms.codex.median).toBe(60_000)
    expect(terra.cost_usd.codex.counted.run_ids).toEqual(["r1", "r2", "r4", "r5"])
    expect(terra.cost_usd.codex.total).toBeCloseTo(0.1 + 0.3 + 0.1 + 0.1, 12)
    expect(terra.cost_usd.codex.median).toBeCloseTo(0.1, 12)
    expect(terra.cost_usd.claude.total).toBeCloseTo(1 + 2 + 3 + 1 + 1, 12)
    expect(terra.cost_usd.claude.median).toBe(1)
  })
})

describe("a portfolio's cost", () => {
  // One thread (Claude $0.951) replayed by two models, once more by the first; another thread once.
  const runs = [
    counted("r1", reportOf({ winner: "codex", thread: "t-a", claude: { elapsed_ms: 1000, usd: 0.951 }, codex: { elapsed_ms: 1, usd: 0.2 }, evaluation_usd: 0.05 })),
    counted("r2", reportOf({ winner: "tie", model: "gpt-5.5", thread: "t-a", claude: { elapsed_ms: 1000, usd: 0.951 }, codex: { elapsed_ms: 1, usd: 0.3 }, evaluation_usd: 0.07 })),
    counted("r3", reportOf({ winner: "claude", thread: "t-a", claude: { elapsed_ms: 1000, usd: 0.951 }, codex: { elapsed_ms: 1, usd: 0.1 } })),
    counted("r4", reportOf({ winner: "claude", thread: "t-b", claude: { elapsed_ms: 500, usd: 0.5 }, codex: { elapsed_ms: 1, usd: 0.1 }, evaluation_usd: 0.01 }))
  ]
  const portfolio = buildPortfolio({ portfolio_id: "portfolio-20261201T120000Z-0123456789", generated_at: "2026-12-01T12:00:00.000Z", runs })

  it("counts Claude's cost once per thread, within a model and across models", () => {
    expect(portfolio.models[0]!.cost_usd.claude.total).toBeCloseTo(0.951 + 0.5, 12)
    expect(portfolio.models[1]!.cost_usd.claude.total).toBeCloseTo(0.951, 12)
    expect(portfolio.cost_usd?.claude.total).toBeCloseTo(0.951 + 0.5, 12)
    expect(portfolio.cost_usd?.threads).toBe(2)
    expect(portfolio.cost_usd?.codex.total).toBeCloseTo(0.7, 12)
  })

  it("keeps the evaluation's cost apart, over the runs that recorded it", () => {
    expect(portfolio.cost_usd?.evaluation.total).toBeCloseTo(0.13, 12)
    expect(portfolio.cost_usd?.evaluation.counted.run_ids).toEqual(["r1", "r2", "r4"])
    expect(portfolio.models[0]!.cost_usd.evaluation?.total).toBeCloseTo(0.06, 12)
  })

  it("says so in portfolio.html and the CLI's lines, and portfolio.json decodes", () => {
    const html = renderPortfolioHtml(portfolio)
    expect(html).toContain("Claude (once per thread)")
    expect(html).toContain("$1.45 in all, counted once per thread (2 threads)")
    expect(html).toContain("Evaluation (what it cost to know)")
    expect(modelLines(portfolio.models[1]!).join("\n")).toContain("Claude $0.951 in all, counted once per thread (1 thread)")
    expect(costLines(portfolio).join("\n")).toMatch(/Claude \$1\.45 in all, counted once per thread \(2 threads\) · evaluation \$0\.130 in all/)
    expect(Schema.decodeUnknownSync(PortfolioFile)(JSON.parse(JSON.stringify(portfolio)))).toEqual(portfolio)
  })
})

describe("portfolio.html", () => {
  const runs = [
    counted("run-20261201T100000Z-aaaaaaaaaa", reportOf({ winner: "codex", model: HOSTILE, dimensions: { reliability: { winner: "codex" } } })),
    counted("run-20261201T110000Z-bbbbbbbbbb", reportOf({ winner: "claude", model: HOSTILE, likeForLike: false }))
  ]
  const html = renderPortfolioHtml(buildPortfolio({ portfolio_id: "portfolio-20261201T120000Z-0123456789", generated_at: "2026-12-01T12:00:00.000Z", runs }))

  it("is self-contained: the report's CSP, inline SVG, no script and nothing requested", () => {
    expect(html).toContain(`content="default-src 'none'; style-src 'unsafe-inline'; img-src data:"`)
    expect(html).toContain("<svg")
    expect(html).not.toMatch(/<(script|img|link|iframe|object|embed)\b|\ssrc="/i)
    expect(html).not.toMatch(/(href|xlink:href)="(https?:)?\/\//)
  })

  it("puts every table but the grid's in one region that scrolls sideways, an embedded report's too, of any age", () => {
    const older = `<html><body><main><section><h2>Time and cost</h2><table class="metrics"><tbody><tr><td>1</td></tr></tbody></table></section></main></body></html>`
    const reports = new Map([["run-20261201T100000Z-aaaaaaaaaa", renderReportHtml(sampleReport())], ["run-20261201T110000Z-bbbbbbbbbb", older]])
    const withReports = renderPortfolioHtml(
      buildPortfolio({ portfolio_id: "portfolio-20261201T120000Z-0123456789", generated_at: "2026-12-01T12:00:00.000Z", runs }),
      { reports }
    )
    const count = (pattern: RegExp) => withReports.match(pattern)?.length ?? 0
    expect(count(/<div class="grid-scroll"><table\b/g)).toBe(1)
    expect(count(/<div class="scroll-x" tabindex="0"><table\b/g)).toBe(count(/<table\b/g) - 1)
    expect(withReports).toContain(`<div class="scroll-x" tabindex="0"><table class="metrics"><tbody><tr><td>1</td></tr></tbody></table></div>`)
    expect(withReports).not.toContain(`<div class="scroll-x" tabindex="0"><div class="scroll-x"`)
  })

  it("escapes every text it did not write", () => {
    expect(html).not.toContain(HOSTILE)
    expect(html).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;")
  })

  it("links every figure to a list of the runs it counts, and each of those to the run's report", () => {
    const anchors = [...html.matchAll(/href="#([^"]+)"/g)].map((match) => match[1]!)
    expect(anchors.length).toBeGreaterThan(5)
    for (const anchor of anchors) expect(html).toContain(`id="${anchor}"`)
    expect(html).toContain(`href="${runReportLink("run-20261201T100000Z-aaaaaaaaaa")}"`)
    expect(runReportLink("run-20261201T100000Z-aaaaaaaaaa")).toBe("#report-run-20261201T100000Z-aaaaaaaaaa")
    // The wins figure links to exactly the winning run.
    const wins = /<td class="number"><a href="#([^"]+)">1<\/a><\/td>/.exec(html)![1]!
    const list = new RegExp(`<dt id="${wins}">[^<]*</dt><dd>(.*?)</dd>`).exec(html)![1]!
    expect(list).toContain("run-20261201T100000Z-aaaaaaaaaa")
    expect(list).not.toContain("run-20261201T110000Z-bbbbbbbbbb")
  })

  it("states the win rate, its interval, the p-value and the projection in words", () => {
    expect(html).toContain("Even: Codex won 1, tied 0 and lost 1 of 2 runs; not significant at 5% (p = 1.000).")
    expect(html).toContain("Wins equal losses: there is no difference to confirm, however many threads.")
    expect(html).toContain("1 verdict of 2")
    expect(html).toContain("95% Wilson interval")
  })
})

describe("a possible leak", () => {
  const patch = "diff --git a/a.js b/a.js\n--- a/a.js\n+++ b/a.js\n@@ -1 +1 @@\n-old()\n+fixed()\n"
  const withPatches = (report: ReturnType<typeof reportOf>, codex: string, claude: string) => ({
    ...report,
    candidates: { codex: { ...report.candidates.codex, patch: codex }, claude: { ...report.candidates.claude, patch: claude } }
  })
  const runs = [
    counted("run-win", withPatches(reportOf({ winner: "codex" }), patch.replace("fixed()", "mended()"), patch)),
    counted("run-loss", reportOf({ winner: "claude" })),
    // Written before the check: measured from its patches, which are the same but for whitespace.
    counted("run-copy-old", withPatches(reportOf({ winner: "tie" }), patch.replace("+fixed()", "+  fixed()  "), patch)),
    // Recorded by the report itself.
    counted("run-copy", { ...reportOf({ winner: "codex" }), integrity: integrityOf(patch, patch) })
  ]
  const portfolio = buildPortfolio({ portfolio_id: "portfolio-leaks", generated_at: "2026-12-01T12:00:00.000Z", runs })
  const model = portfolio.models[0]!

  it("is read from the report, or measured from the patches of a report written before the check", () => {
    expect(runs.map((run) => [run.run_id, run.possible_leak])).toEqual([["run-win", false], ["run-loss", false], ["run-copy-old", true], ["run-copy", true]])
  })

  it("is counted apart: in no win, tie or loss, and listed as a possible leak", () => {
    expect(portfolio.run_ids).toHaveLength(4)
    expect(model.possible_leaks).toEqual({ count: 2, run_ids: ["run-copy-old", "run-copy"] })
    expect(model.runs.map((run) => run.run_id)).toEqual(["run-win", "run-loss"])
    expect([model.overall.wins.count, model.overall.ties.count, model.overall.losses.count]).toEqual([1, 0, 1])
    expect(model.overall.wins.run_ids).toEqual(["run-win"])
    expect(JSON.parse(JSON.stringify(portfolio)).models[0].possible_leaks.count).toBe(2)
  })

  it("the CLI says how many and which", () => {
    const lines = modelLines(model)
    expect(lines[0]).toContain("of 2 runs; not significant at 5% (p = 1.000). possible leaks: 2 (Codex's patch matches Claude's result; not counted in any figure).")
    expect(lines).toContain("  Possible leaks: 2 (matches Claude's result; not counted): run-copy-old, run-copy")
  })

  it("portfolio.html says how many and links to them", () => {
    const html = renderPortfolioHtml(portfolio)
    expect(html).toContain("Even: Codex won 1, tied 0 and lost 1 of 2 runs; not significant at 5% (p = 1.000). possible leaks: 2 (Codex&#39;s patch matches Claude&#39;s result; not counted in any figure).")
    const link = /<dt>Possible leaks<\/dt><dd><a href="#([^"]+)">possible leaks: 2/.exec(html)![1]!
    const list = new RegExp(`<dt id="${link}">[^<]*</dt><dd>(.*?)</dd>`).exec(html)![1]!
    expect(list).toContain("run-copy-old")
    expect(list).toContain("run-copy")
    expect(list).not.toContain("run-win")
  })
})
