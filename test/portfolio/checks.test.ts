import { Either, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { modelLines } from "../../src/cli/portfolio.js"
import { renderPortfolioHtml } from "../../src/domain/portfolio/html.js"
import { buildPortfolio, PortfolioFile, portfolioRun, type PortfolioRun } from "../../src/domain/portfolio/portfolio.js"
import { wilsonInterval } from "../../src/domain/portfolio/statistics.js"
import { sampleReport } from "../report/fixtures.js"
import { sampleChecks } from "../report/checksFixture.js"

type Edge = "codex" | "claude" | "same" | "mixed" | null

/** A real report, with a checks section whose edge and "keeps Claude's passes" are given (or none). */
const reportWith = (checks: { edge: Edge; keeps: boolean | null } | "none" | "absent", winner: "codex" | "claude" | "tie" = "codex") => {
  const { checks: _omitted, ...report } = { ...sampleReport(), winner }
  if (checks === "absent") return report
  if (checks === "none") return { ...report, checks: null }
  return { ...report, checks: { ...sampleChecks(), edge: checks.edge, codex_keeps_claude_passes: checks.keeps } }
}

const counted = (runId: string, report: unknown): PortfolioRun => {
  const run = portfolioRun(runId, report, null)
  if (Either.isLeft(run)) throw new Error(run.left)
  return run.right
}

describe("the checks in a portfolio", () => {
  const runs = [
    counted("c1", reportWith({ edge: "codex", keeps: true })),
    counted("c2", reportWith({ edge: "codex", keeps: true })),
    counted("c3", reportWith({ edge: "same", keeps: true }, "claude")),
    counted("c4", reportWith({ edge: "claude", keeps: false }, "tie")),
    // No check ran on both results: in the runs with checks, in no rate.
    counted("c5", reportWith({ edge: null, keeps: null })),
    // Without checks: in no checks figure at all.
    counted("n1", reportWith("none")),
    counted("n2", reportWith("absent"))
  ]
  const portfolio = buildPortfolio({ portfolio_id: "portfolio-checks", generated_at: "2026-12-01T12:00:00.000Z", runs })
  const model = portfolio.models[0]!
  const checks = model.checks!

  it("counts only the runs whose report has checks, each rate out of the runs where it is defined, with its Wilson interval", () => {
    expect(runs.map((run) => run.checks)).toEqual([
      { edge: "codex", codex_keeps_claude_passes: true },
      { edge: "codex", codex_keeps_claude_passes: true },
      { edge: "same", codex_keeps_claude_passes: true },
      { edge: "claude", codex_keeps_claude_passes: false },
      { edge: null, codex_keeps_claude_passes: null },
      null,
      null
    ])
    expect(checks.runs_with_checks).toEqual({ count: 5, run_ids: ["c1", "c2", "c3", "c4", "c5"] })
    expect(checks.keeps_claude_passes).toEqual({ count: { count: 3, run_ids: ["c1", "c2", "c3"] }, of: 4, rate: 0.75, interval: wilsonInterval(3, 4) })
    expect(checks.better).toEqual({ count: { count: 2, run_ids: ["c1", "c2"] }, of: 4, rate: 0.5, interval: wilsonInterval(2, 4) })
    expect(checks.worse).toEqual({ count: { count: 1, run_ids: ["c4"] }, of: 4, rate: 0.25, interval: wilsonInterval(1, 4) })
    expect(checks.keeps_claude_passes.interval!.lower).toBeCloseTo(0.3006, 3)
    expect(checks.keeps_claude_passes.interval!.upper).toBeCloseTo(0.9544, 3)
  })

  it("is in portfolio.json, and a portfolio written before the checks still decodes, without them", () => {
    const written = JSON.parse(JSON.stringify(portfolio))
    expect(Schema.decodeUnknownSync(PortfolioFile)(written)).toEqual(portfolio)
    const older = { ...written, models: written.models.map(({ checks: _c, ...rest }: Record<string, unknown>) => ({
      ...rest,
      runs: (rest.runs as Array<Record<string, unknown>>).map(({ checks: _r, ...run }) => run)
    })) }
    const decoded = Schema.decodeUnknownSync(PortfolioFile)(older)
    expect(decoded.models[0]!.checks).toBeUndefined()
    expect(modelLines(decoded.models[0]!).join("\n")).not.toContain("checks")
    expect(renderPortfolioHtml(decoded)).not.toContain("Checks beside the judge")
  })

  it("with no run with checks, says so and gives no rate", () => {
    const none = buildPortfolio({ portfolio_id: "p", generated_at: "2026-12-01T12:00:00.000Z", runs: runs.slice(5) }).models[0]!
    expect(none.checks!.runs_with_checks.count).toBe(0)
    expect(none.checks!.better).toEqual({ count: { count: 0, run_ids: [] }, of: 0, rate: null, interval: null })
    expect(modelLines(none)).toContain("  Codex strictly better on checks: none to count")
  })

  it("the CLI gives each rate with its interval and how many runs had checks", () => {
    const lines = modelLines(model)
    expect(lines).toContain("  Checks ran in 5 of 7 run(s); runs without checks are not counted in these figures.")
    expect(lines).toContain("  Codex keeps every check Claude's result passed: 3 of 4 (75%, 95% Wilson interval 30%–95%)")
    expect(lines).toContain("  Codex strictly better on checks: 2 of 4 (50%, 95% Wilson interval 15%–85%)")
    expect(lines).toContain("  Codex strictly worse on checks: 1 of 4 (25%, 95% Wilson interval 5%–70%)")
  })

  it("portfolio.html shows them beside the judge's win rate, each count linked to its runs", () => {
    const html = renderPortfolioHtml(portfolio)
    const section = /<h3>Checks beside the judge<\/h3>.*?<\/table>/s.exec(html)![0]
    expect(section).toContain("Checks ran in 5 of 7 runs</a>; runs without checks are not counted")
    expect(section).toContain("Judge: Codex wins (of decisive verdicts)</th><td>5 of 6 (83%, 95% Wilson interval 44%–97%)")
    expect(section).toContain("Codex strictly worse on checks</th><td><a href=\"#")
    const link = /Codex strictly worse on checks<\/th><td><a href="#([^"]+)">1 of 4/.exec(section)![1]!
    expect(new RegExp(`<dt id="${link}">[^<]*</dt><dd>(.*?)</dd>`).exec(html)![1]).toContain("c4")
  })
})
