/**
 * The statistics of a portfolio verdict: pure functions on counts of wins and losses.
 * Ties are left out of the win rate and of the sign test; they carry no direction.
 */

/** The two-sided 95% normal quantile (z for which Φ(z) = 0.975). */
export const Z_95 = 1.959963984540054
export const SIGNIFICANCE_LEVEL = 0.05
/** Beyond this many threads "how many more" is not computed (the answer would be "more than 10,000"). */
export const MAX_PROJECTED_THREADS = 10_000

export interface Interval {
  readonly lower: number
  readonly upper: number
}

/**
 * The Wilson score interval for `successes` out of `trials` (Wilson 1927): unlike the normal
 * ("Wald") interval it stays inside [0, 1] and keeps close to its coverage for small counts and
 * rates near 0 or 1. `null` without a trial.
 */
export const wilsonInterval = (successes: number, trials: number, z = Z_95): Interval | null => {
  if (trials <= 0) return null
  const rate = successes / trials
  const z2 = z * z
  const denominator = 1 + z2 / trials
  const center = (rate + z2 / (2 * trials)) / denominator
  const half = (z / denominator) * Math.sqrt((rate * (1 - rate)) / trials + z2 / (4 * trials * trials))
  // At 0 or all successes one bound is exactly 0 or 1; rounding would leave it a hair inside.
  return {
    lower: successes === 0 ? 0 : Math.max(0, center - half),
    upper: successes === trials ? 1 : Math.min(1, center + half)
  }
}

const logFactorials: Array<number> = [0]
const logFactorial = (n: number): number => {
  for (let i = logFactorials.length; i <= n; i++) logFactorials[i] = logFactorials[i - 1]! + Math.log(i)
  return logFactorials[n]!
}

/** P(X = k) for X ~ Binomial(n, 1/2), from log factorials so that large n neither overflows nor underflows early. */
const halfBinomial = (n: number, k: number) => Math.exp(logFactorial(n) - logFactorial(k) - logFactorial(n - k) - n * Math.LN2)

/** P(X ≤ k) for X ~ Binomial(n, 1/2), summed from k down while the terms still count. */
const lowerTail = (n: number, k: number) => {
  let sum = 0
  for (let i = k; i >= 0; i--) {
    const term = halfBinomial(n, i)
    sum += term
    if (term < sum * 1e-17) break
  }
  return sum
}

/**
 * The exact two-sided sign test: under "neither side is better" each decisive verdict is a fair
 * coin, so the p-value is 2·P(X ≤ min(wins, losses)) for X ~ Binomial(wins + losses, 1/2), capped at
 * 1. `null` without a decisive verdict.
 */
export const signTestPValue = (wins: number, losses: number): number | null => {
  const n = wins + losses
  if (n === 0) return null
  return Math.min(1, 2 * lowerTail(n, Math.min(wins, losses)))
}

export interface Projection {
  /** Threads in all (the ones counted plus the more) at which the difference would be significant. */
  readonly threads: number
  /** How many threads beyond the ones counted. */
  readonly more: number
}

/**
 * How many more threads would make the observed difference significant at 5%: the smallest
 * N ≥ n (n = the threads counted, ties and inconclusive verdicts included) such that, were the
 * N threads to end in the same shares as the n did — round(N·wins/n) wins and round(N·losses/n)
 * losses — the two-sided sign test would give p < 0.05; the answer is N − n (0 when it already
 * is significant). `null` when no number would do: wins equal losses (no difference to confirm),
 * no decisive verdict, or more than MAX_PROJECTED_THREADS threads needed.
 */
export const moreThreadsForSignificance = (wins: number, losses: number, threads: number): Projection | null => {
  if (threads <= 0 || wins === losses) return null
  for (let total = threads; total <= MAX_PROJECTED_THREADS; total++) {
    const p = signTestPValue(Math.round((total * wins) / threads), Math.round((total * losses) / threads))
    if (p !== null && p < SIGNIFICANCE_LEVEL) return { threads: total, more: total - threads }
  }
  return null
}

/** The median of some numbers (the mean of the middle two for an even count); `null` for none. */
export const median = (values: ReadonlyArray<number>): number | null => {
  if (values.length === 0) return null
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}
