import type { PortfolioRun, UserAgreement } from "./portfolioFile.js"

/**
 * Judge–user agreement on the overall winner (docs/verdicts.md): the share of runs on which they agree and
 * Cohen's kappa, which discounts the agreement two raters would reach by chance given how often each gives
 * each answer.
 */

export interface Agreement {
  /** Runs with both a judge's verdict and the user's vote (a run the judge reached no verdict on is not counted). */
  readonly n: number
  readonly agreeing: number
  /** agreeing ÷ n; `null` when n = 0. */
  readonly share: number | null
  /**
   * (pₒ − pₑ) ÷ (1 − pₑ); `null` when n = 0 or when chance agreement is certain (pₑ = 1: both gave one and
   * the same answer every time), where kappa is undefined.
   */
  readonly kappa: number | null
}

/** Cohen's kappa of paired categorical ratings (any category names). */
export const cohensKappa = (pairs: ReadonlyArray<readonly [string, string]>): Agreement => {
  const n = pairs.length
  if (n === 0) return { n: 0, agreeing: 0, share: null, kappa: null }
  const agreeing = pairs.filter(([first, second]) => first === second).length
  const observed = agreeing / n
  const count = (side: 0 | 1, category: string) => pairs.filter((pair) => pair[side] === category).length
  const categories = [...new Set(pairs.flatMap(([first, second]) => [first, second]))]
  const expected = categories.reduce((sum, category) => sum + (count(0, category) / n) * (count(1, category) / n), 0)
  // Floating sums of exact fractions: pₑ within rounding of 1 is 1.
  const kappa = Math.abs(1 - expected) < 1e-12 ? null : (observed - expected) / (1 - expected)
  return { n, agreeing, share: observed, kappa }
}

type JudgeWinner = "codex" | "claude" | "tie" | "inconclusive"

/**
 * The judge's overall winner as a vote's category, or `null` when the judge reached no verdict (its winner is
 * inconclusive, or the verdict carries a `no_verdict` caveat): such a run has nothing to agree with and is left
 * out of n. A tie is a tie only when the report's winner says so (as it does when the two orders disagreed).
 */
export const judgeCategory = (
  winner: JudgeWinner,
  caveats: ReadonlyArray<{ readonly kind: string }> = []
): "codex" | "claude" | "tie" | null =>
  winner === "inconclusive" || caveats.some((caveat) => caveat.kind === "no_verdict") ? null : winner

/** Agreement over the runs with a vote and a verdict of the judge; absent when the user voted on none. */
export const userAgreement = (runs: ReadonlyArray<PortfolioRun>): UserAgreement | undefined => {
  const voted = runs.filter((run) => run.user_vote !== undefined)
  if (voted.length === 0) return undefined
  const paired = voted.flatMap((run) => {
    const judge = judgeCategory(run.winner, run.caveats)
    return judge === null ? [] : [{ run_id: run.run_id, pair: [judge, run.user_vote!] as const }]
  })
  const leftOut = voted.filter((run) => judgeCategory(run.winner, run.caveats) === null).map((run) => run.run_id)
  const agreement = cohensKappa(paired.map((entry) => entry.pair))
  return {
    ...agreement,
    run_ids: paired.map((entry) => entry.run_id),
    ...(leftOut.length === 0 ? {} : { no_verdict: { count: leftOut.length, run_ids: leftOut } })
  }
}

const twoPlaces = (value: number) => (Math.abs(value) < 0.005 ? "0.00" : value.toFixed(2))

/** The voted runs left out because the judge reached no verdict on them, as a clause; "" when none. */
const leftOutText = (agreement: UserAgreement) =>
  agreement.no_verdict === undefined
    ? ""
    : `; ${agreement.no_verdict.count} voted run(s) left out: the judge reached no verdict on ${agreement.no_verdict.count === 1 ? "it" : "them"}`

/** The agreement in a sentence, for the CLI, the page and portfolio.html. */
export const agreementText = (agreement: UserAgreement) =>
  agreement.n === 0
    ? `nothing to compare: the judge reached no verdict on the ${agreement.no_verdict?.count ?? 0} run(s) you voted on, n = 0`
    : `you and the judge agree on the overall winner in ${agreement.agreeing} of ${agreement.n} run(s) you voted on (${
      Math.round((agreement.share ?? 0) * 100)
    }%); Cohen's kappa ${
      agreement.kappa === null ? "undefined (you and the judge gave one and the same answer every time)" : twoPlaces(agreement.kappa)
    }, n = ${agreement.n}${leftOutText(agreement)}`
