import { Either, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { modelLines } from "../../src/cli/portfolio.js"
import { renderPortfolioHtml } from "../../src/domain/portfolio/html.js"
import { buildPortfolio, PortfolioFile, portfolioRun, type PortfolioRun } from "../../src/domain/portfolio/portfolio.js"

type Winner = "codex" | "claude" | "tie" | "inconclusive"

const reportOf = (winner: Winner) => ({
  thread_id: "thread-1",
  winner,
  candidates: { codex: { model: "gpt-5.6-terra" }, claude: { model: "claude-sonnet-4-5" } },
  evaluation: null
})

const run = (runId: string, winner: Winner, vote: "codex" | "claude" | "tie" | null): PortfolioRun => {
  const counted = portfolioRun(runId, reportOf(winner), null, vote)
  if (Either.isLeft(counted)) throw new Error(counted.left)
  return counted.right
}

const portfolioOf = (runs: ReadonlyArray<PortfolioRun>) =>
  buildPortfolio({ portfolio_id: "portfolio-1", generated_at: "2026-01-01T00:00:00.000Z", runs })

describe("judge–user agreement in a portfolio", () => {
  it("counts the runs with a vote: share agreeing and Cohen's kappa with n, in the file, the CLI and portfolio.html", () => {
    const portfolio = portfolioOf([
      run("run-1", "codex", "codex"),
      run("run-2", "claude", "claude"),
      run("run-3", "inconclusive", "codex"),
      run("run-4", "tie", null)
    ])
    const model = portfolio.models[0]!
    // Judge codex, claude, tie (inconclusive); user codex, claude, codex: pₒ = 2/3, pₑ = (1·2 + 1·1 + 1·0)/9 = 1/3, κ = ½.
    expect(model.user_agreement).toMatchObject({ n: 3, agreeing: 2, run_ids: ["run-1", "run-2", "run-3"] })
    expect(model.user_agreement!.share).toBeCloseTo(2 / 3, 12)
    expect(model.user_agreement!.kappa).toBeCloseTo(0.5, 12)
    expect(model.runs.map((each) => each.user_vote)).toEqual(["codex", "claude", "codex", undefined])
    expect(Schema.decodeUnknownSync(PortfolioFile)(JSON.parse(JSON.stringify(portfolio)))).toEqual(portfolio)
    expect(modelLines(model)).toContain(
      "  You and judge:  you and the judge agree on the overall winner in 2 of 3 run(s) you voted on (67%); Cohen's kappa 0.50, n = 3"
    )
    expect(renderPortfolioHtml(portfolio)).toContain("You and the judge agree on the overall winner in 2 of 3 run(s) you voted on (67%); Cohen&#39;s kappa 0.50, n = 3")
  })

  it("says nothing of agreement without a vote, and calls kappa undefined when both always answered the same", () => {
    const none = portfolioOf([run("run-1", "codex", null)]).models[0]!
    expect(none.user_agreement).toBeUndefined()
    expect(modelLines(none).some((line) => line.includes("You and judge"))).toBe(false)
    const same = portfolioOf([run("run-1", "codex", "codex"), run("run-2", "codex", "codex")]).models[0]!
    expect(same.user_agreement).toMatchObject({ n: 2, agreeing: 2, share: 1, kappa: null })
    expect(modelLines(same).join("\n")).toContain("Cohen's kappa undefined (you and the judge gave one and the same answer every time), n = 2")
  })
})
