import { describe, expect, it } from "vitest"
import {
  median,
  moreThreadsForSignificance,
  signTestPValue,
  wilsonInterval,
  Z_95
} from "../../src/domain/portfolio/statistics.js"

/** The exact two-sided sign test in whole numbers: 2·Σ_{i ≤ min} C(n, i) / 2^n, capped at 1. */
const exactSignTest = (wins: number, losses: number) => {
  const n = wins + losses
  let coefficient = 1n
  let sum = 0n
  for (let i = 0; i <= Math.min(wins, losses); i++) {
    sum += coefficient
    coefficient = (coefficient * BigInt(n - i)) / BigInt(i + 1)
  }
  return Math.min(1, (2 * Number(sum)) / 2 ** n)
}

/** The Wilson bounds as the roots of (1 + z²/n)p² − (2p̂ + z²/n)p + p̂² = 0, i.e. |p̂ − p| = z·√(p(1−p)/n). */
const wilsonRoots = (successes: number, trials: number) => {
  const rate = successes / trials
  const z2 = Z_95 * Z_95
  const a = 1 + z2 / trials
  const b = -(2 * rate + z2 / trials)
  const c = rate * rate
  const root = Math.sqrt(b * b - 4 * a * c)
  return { lower: (-b - root) / (2 * a), upper: (-b + root) / (2 * a) }
}

describe("Wilson score interval", () => {
  it("matches the textbook example of 8 successes in 10 trials: 0.490 to 0.943", () => {
    const interval = wilsonInterval(8, 10)!
    expect(interval.lower).toBeCloseTo(0.4902, 4)
    expect(interval.upper).toBeCloseTo(0.9433, 4)
  })

  it("gives [0, z²/(n + z²)] for no success and stays inside [0, 1] at the edges", () => {
    expect(wilsonInterval(0, 10)).toEqual({ lower: 0, upper: expect.closeTo((Z_95 * Z_95) / (10 + Z_95 * Z_95), 12) })
    const all = wilsonInterval(10, 10)!
    expect(all.upper).toBe(1)
    expect(all.lower).toBeCloseTo(1 - (Z_95 * Z_95) / (10 + Z_95 * Z_95), 12)
  })

  it("agrees with the roots of the score equation for every count up to 30 trials", () => {
    for (let trials = 1; trials <= 30; trials++) {
      for (let successes = 0; successes <= trials; successes++) {
        const expected = wilsonRoots(successes, trials)
        const interval = wilsonInterval(successes, trials)!
        expect(interval.lower).toBeCloseTo(Math.max(0, expected.lower), 10)
        expect(interval.upper).toBeCloseTo(Math.min(1, expected.upper), 10)
      }
    }
  })

  it("has no interval without a trial", () => {
    expect(wilsonInterval(0, 0)).toBeNull()
  })
})

describe("two-sided exact sign test", () => {
  it("matches binomial tables", () => {
    expect(signTestPValue(8, 2)).toBeCloseTo(0.109375, 12) // 2·(1 + 10 + 45)/1024
    expect(signTestPValue(9, 1)).toBeCloseTo(0.021484375, 12) // 2·(1 + 10)/1024
    expect(signTestPValue(10, 0)).toBeCloseTo(0.001953125, 12)
    expect(signTestPValue(5, 5)).toBe(1)
    // n = 20: the two-sided 5% critical value of the sign test is 5.
    expect(signTestPValue(15, 5)).toBeCloseTo(0.04138947, 7)
    expect(signTestPValue(14, 6)).toBeCloseTo(0.11531830, 7)
    expect(signTestPValue(2, 8)).toBe(signTestPValue(8, 2))
  })

  it("agrees with exact whole-number sums for every split up to 60 decisive verdicts", () => {
    for (let n = 1; n <= 60; n++) {
      for (let wins = 0; wins <= n; wins++) {
        expect(signTestPValue(wins, n - wins)).toBeCloseTo(exactSignTest(wins, n - wins), 12)
      }
    }
  })

  it("stays exact for large counts, where 2^n overflows a float", () => {
    // 600 vs 400: far beyond 5% (the normal approximation gives z ≈ 6.3).
    const p = signTestPValue(600, 400)!
    expect(p).toBeGreaterThan(0)
    expect(p).toBeLessThan(1e-9)
    expect(signTestPValue(500, 500)).toBe(1)
  })

  it("has no p-value without a decisive verdict", () => {
    expect(signTestPValue(0, 0)).toBeNull()
  })
})

/** The definition, by brute force against the whole-number test. */
const bruteForceMore = (wins: number, losses: number, threads: number) => {
  for (let total = threads; total <= 10_000; total++) {
    if (exactSignTest(Math.round((total * wins) / threads), Math.round((total * losses) / threads)) < 0.05) return total - threads
  }
  return null
}

describe("how many more threads would make the difference significant at 5%", () => {
  it("8 wins and 2 losses in 10 threads need 2 more (10 of 12 against 2: p = 0.039)", () => {
    expect(moreThreadsForSignificance(8, 2, 10)).toEqual({ threads: 12, more: 2 })
    expect(exactSignTest(9, 2)).toBeGreaterThan(0.05) // 11 threads are not enough
  })

  it("is 0 when the difference is already significant, and null when wins equal losses", () => {
    expect(moreThreadsForSignificance(9, 1, 10)).toEqual({ threads: 10, more: 0 })
    expect(moreThreadsForSignificance(3, 3, 8)).toBeNull()
    expect(moreThreadsForSignificance(0, 0, 4)).toBeNull()
    expect(moreThreadsForSignificance(0, 0, 0)).toBeNull()
  })

  it("keeps ties in the shares, and agrees with the brute-force definition", () => {
    for (const [wins, ties, losses] of [[6, 4, 2], [3, 1, 1], [2, 5, 4], [7, 0, 5], [1, 0, 0], [0, 2, 1]] as const) {
      const threads = wins + ties + losses
      const projection = moreThreadsForSignificance(wins, losses, threads)
      expect(projection?.more ?? null).toBe(bruteForceMore(wins, losses, threads))
    }
  })

  it("says null when it would take more than 10,000 threads, and answers quickly", () => {
    const started = performance.now()
    expect(moreThreadsForSignificance(51, 49, 100)).toEqual({ threads: 9652, more: 9552 })
    expect(moreThreadsForSignificance(101, 99, 200)).toBeNull()
    expect(performance.now() - started).toBeLessThan(2000)
  })
})

describe("median", () => {
  it("is the middle value, or the mean of the middle two", () => {
    expect(median([3, 1, 2])).toBe(2)
    expect(median([4, 1, 3, 2])).toBe(2.5)
    expect(median([])).toBeNull()
  })
})
