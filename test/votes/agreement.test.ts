import { Either, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { modelLines } from "../../src/cli/portfolio.js"
import { voteLines, voteView } from "../../src/cli/voteLines.js"
import { judgeCategory } from "../../src/domain/portfolio/agreement.js"
import { renderPortfolioHtml } from "../../src/domain/portfolio/html.js"
import { buildPortfolio, PortfolioFile, portfolioRun, type PortfolioRun } from "../../src/domain/portfolio/portfolio.js"

type Winner = "codex" | "claude" | "tie" | "inconclusive"

const reportOf = (winner: Winner) => ({
  thread_id: "thread-1",
  winner,
  candidates: { codex: { model: "gpt-5.6-terra" }, claude: { model: "claude-sonnet-4-5" } },
  evaluation: null,
  // A report records its caveats: none for a verdict; a run with no evaluation has none recorded, so no verdict.
  ...(winner === "inconclusive" ? {} : { caveats: [] })
})

const run = (runId: string, winner: Winner, vote: "codex" | "claude" | "tie" | null): PortfolioRun => {
  const counted = portfolioRun(runId, reportOf(winner), null, vote)
  if (Either.isLeft(counted)) throw new Error(counted.left)
  return counted.right
}

const portfolioOf = (runs: ReadonlyArray<PortfolioRun>) =>
  buildPortfolio({ portfolio_id: "portfolio-1", generated_at: "2026-01-01T00:00:00.000Z", runs })

describe("judge–user agreement in a portfolio", () => {
  it("counts the runs with a vote and a verdict: share agreeing and Cohen's kappa with n, in the file, the CLI and portfolio.html", () => {
    const portfolio = portfolioOf([
      run("run-1", "codex", "codex"),
      run("run-2", "claude", "claude"),
      run("run-3", "tie", "codex"),
      run("run-4", "tie", null),
      run("run-5", "inconclusive", "tie")
    ])
    const model = portfolio.models[0]!
    // Judge codex, claude, tie; user codex, claude, codex: pₒ = 2/3, pₑ = (1·2 + 1·1 + 1·0)/9 = 1/3, κ = ½.
    // run-5: the judge reached no verdict, so it is left out of n (never read as a tie the user agreed with).
    expect(model.user_agreement).toMatchObject({ n: 3, agreeing: 2, run_ids: ["run-1", "run-2", "run-3"], no_verdict: { count: 1, run_ids: ["run-5"] } })
    expect(model.user_agreement!.share).toBeCloseTo(2 / 3, 12)
    expect(model.user_agreement!.kappa).toBeCloseTo(0.5, 12)
    expect(model.runs.map((each) => each.user_vote)).toEqual(["codex", "claude", "codex", undefined, "tie"])
    expect(Schema.decodeUnknownSync(PortfolioFile)(JSON.parse(JSON.stringify(portfolio)))).toEqual(portfolio)
    const sentence = "you and the judge agree on the overall winner in 2 of 3 run(s) you voted on (67%); Cohen's kappa 0.50, n = 3; " +
      "1 voted run(s) left out: the judge reached no verdict on it"
    expect(modelLines(model)).toContain(`  You and judge:  ${sentence}`)
    expect(renderPortfolioHtml(portfolio)).toContain(`Y${sentence.slice(1).replace("'", "&#39;")}`)
  })

  it("leaves out a run whose verdict says no verdict; a tie from orders that disagreed counts as the tie its winner says", () => {
    const noVerdict = { kind: "no_verdict", label: "no verdict", detail: null } as const
    const disagreed = { kind: "inconclusive", label: "inconclusive (the two orders disagreed)", detail: null } as const
    const runs = [
      { ...run("run-1", "tie", "tie"), caveats: [disagreed] },
      { ...run("run-2", "tie", "tie"), caveats: [noVerdict] }
    ]
    expect(judgeCategory("inconclusive")).toBeNull()
    expect(judgeCategory("tie", [disagreed])).toBe("tie")
    expect(judgeCategory("tie", [noVerdict])).toBeNull()
    const model = portfolioOf(runs).models[0]!
    expect(model.user_agreement).toMatchObject({ n: 1, agreeing: 1, run_ids: ["run-1"], no_verdict: { count: 1, run_ids: ["run-2"] } })
    // Only runs without a verdict: nothing to compare, said so.
    const none = portfolioOf([run("run-3", "inconclusive", "codex")]).models[0]!
    expect(none.user_agreement).toMatchObject({ n: 0, share: null, kappa: null, no_verdict: { count: 1 } })
    expect(modelLines(none)).toContain("  You and judge:  nothing to compare: the judge reached no verdict on the 1 run(s) you voted on, n = 0")
  })

  it("the CLI's report line says the judge reached no verdict instead of agreeing or not", () => {
    const vote = {
      schema_version: 1 as const,
      run_id: "run-1",
      voted_at: "2026-01-01T00:00:00.000Z",
      overall: "tie" as const,
      dimensions: { reliability: "tie", code_quality: "tie", request_fulfillment: "tie", change_scope: "tie", safe_operations: "tie", accurate_reporting: "tie" } as const,
      shown_first: "candidate-a.json" as const
    }
    expect(voteView(vote, "inconclusive")?.agrees_with_judge).toBeNull()
    expect(voteView(vote, "tie", [{ kind: "no_verdict", label: "no verdict", detail: null }])?.agrees_with_judge).toBeNull()
    expect(voteView(vote, "tie")?.agrees_with_judge).toBe(true)
    expect(voteLines(voteView(vote, "inconclusive"))[0]).toMatch(/; the judge reached no verdict to agree with[.]$/)
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
