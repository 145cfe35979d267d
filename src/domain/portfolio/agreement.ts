import type { PortfolioRun, UserAgreement } from "./portfolioFile.js"

/**
 * Judge–user agreement on the overall winner (docs/verdicts.md): the share of runs on which they agree and
 * Cohen's kappa, which discounts the agreement two raters would reach by chance given how often each gives
 * each answer.
 */

export interface Agreement {
  /** Runs with both a judge's verdict and the user's vote. */
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

/** The judge's overall winner as a vote's category: no winner (a tie or inconclusive) is a tie. */
export const judgeCategory = (winner: "codex" | "claude" | "tie" | "inconclusive"): "codex" | "claude" | "tie" =>
  winner === "inconclusive" ? "tie" : winner

/** Agreement over the runs with a vote; absent when the user voted on none. */
export const userAgreement = (runs: ReadonlyArray<PortfolioRun>): UserAgreement | undefined => {
  const voted = runs.filter((run) => run.user_vote !== undefined)
  if (voted.length === 0) return undefined
  const agreement = cohensKappa(voted.map((run) => [judgeCategory(run.winner), run.user_vote!] as const))
  return { ...agreement, run_ids: voted.map((run) => run.run_id) }
}

const twoPlaces = (value: number) => (Math.abs(value) < 0.005 ? "0.00" : value.toFixed(2))

/** The agreement in a sentence, for the CLI, the page and portfolio.html. */
export const agreementText = (agreement: UserAgreement) =>
  `you and the judge agree on the overall winner in ${agreement.agreeing} of ${agreement.n} run(s) you voted on (${
    Math.round((agreement.share ?? 0) * 100)
  }%); Cohen's kappa ${
    agreement.kappa === null ? "undefined (you and the judge gave one and the same answer every time)" : twoPlaces(agreement.kappa)
  }, n = ${agreement.n}`
