import { describe, expect, it } from "vitest"
import {
  caveatFactsOfReport,
  caveatLabels,
  caveatsOf,
  caveatsOfReport,
  caveatsOfSummary,
  tallyCounts,
  verdictWords
} from "../../src/domain/report/caveats.js"

const kinds = (caveats: ReadonlyArray<{ readonly kind: string }>) => caveats.map((caveat) => caveat.kind)

describe("caveatsOf: the same labels wherever a verdict is shown", () => {
  it("a like-for-like, neutral, agreed verdict has none, and its tally counts", () => {
    const caveats = caveatsOf({ winner: "codex", like_for_like: true, concerns: [], self_review: false, missing_orders: [], possible_leak: false })
    expect(caveats).toEqual([])
    expect(verdictWords("codex", caveats)).toBe("Codex wins")
    expect(tallyCounts("codex", caveats)).toBe(true)
  })

  it("not like-for-like and why; a self-review said apart, its comparability sentence not repeated", () => {
    const caveats = caveatsOf({
      winner: "claude",
      like_for_like: false,
      concerns: ["Capability gap: Web search (not available).", "Self-review: the reviewer (gpt-a) is the model that implemented the replay."],
      self_review: true,
      reviewer_model: "gpt-a"
    })
    expect(caveats).toEqual([
      { kind: "not_like_for_like", label: "not like-for-like", detail: "Capability gap: Web search (not available)." },
      { kind: "self_review", label: "self-review", detail: "gpt-a judged its own replay against Claude's result." }
    ])
    expect(caveatLabels(caveats)).toBe("not like-for-like · self-review")
    expect(verdictWords("claude", caveats)).toBe("Claude wins")
  })

  it("one missing ballot names its order; both missing is no verdict; neither has a tally", () => {
    const one = caveatsOf({ winner: "inconclusive", missing_orders: ["BA"] })
    expect(one.map((caveat) => caveat.label)).toEqual(["missing ballot (B/A)"])
    expect(tallyCounts("inconclusive", one)).toBe(false)
    const both = caveatsOf({ winner: "inconclusive", missing_orders: ["AB", "BA"] })
    expect(kinds(both)).toEqual(["no_verdict"])
    expect(verdictWords("inconclusive", both)).toBe("no verdict")
  })

  it("a tie because the orders disagreed on every dimension is inconclusive, never a tally of ties", () => {
    const caveats = caveatsOf({ winner: "tie", orders_disagreed: true })
    expect(kinds(caveats)).toEqual(["inconclusive"])
    expect(verdictWords("tie", caveats)).toBe("inconclusive (the two orders disagreed)")
    expect(tallyCounts("tie", caveats)).toBe(false)
  })

  it("a possible leak comes first; a split between judges is one field away", () => {
    const caveats = caveatsOf({ winner: "tie", possible_leak: true, judges_split: true, self_review: true, reviewer_model: "gpt-b" })
    expect(kinds(caveats)).toEqual(["possible_leak", "split", "self_review"])
    expect(verdictWords("tie", caveats)).toBe("split")
  })

  it("control characters in a reason are shown escaped", () => {
    const [caveat] = caveatsOf({ winner: "tie", like_for_like: false, concerns: ["Gap\u001b[31m"] })
    expect(caveat!.detail).toBe("Gap\\u{1b}[31m")
  })
})

describe("the facts of a report or of a run's summary", () => {
  const dimension = (orderDependent: boolean) => ({ winner: "tie", order_dependent: orderDependent })
  const report = {
    winner: "tie",
    evaluation: {
      comparable_dimensions: ["reliability", "code_quality"],
      dimensions: { reliability: dimension(true), code_quality: dimension(true) },
      reviews: [{ order: "AB", status: "completed" }, { order: "BA", status: "completed" }]
    },
    comparability: { like_for_like: false, concerns: ["Self-review: the reviewer (gpt-x) is the model that implemented the replay."] },
    about_review: { self_review: true, reviewer_model: "gpt-x" },
    integrity: { matches_claude: false }
  }

  it("a report: every dimension order-dependent is a disagreement; its comparability and reviewer are read", () => {
    expect(caveatFactsOfReport(report)).toMatchObject({ orders_disagreed: true, like_for_like: false, self_review: true, missing_orders: [] })
    expect(kinds(caveatsOfReport(report))).toEqual(["inconclusive", "not_like_for_like", "self_review"])
    const agreedOnOne = { ...report, evaluation: { ...report.evaluation, dimensions: { reliability: dimension(true), code_quality: dimension(false) } } }
    expect(kinds(caveatsOfReport(agreedOnOne))).toEqual(["not_like_for_like", "self_review"])
    // A report whose review never ran has no verdict.
    expect(kinds(caveatsOfReport({ winner: "inconclusive", evaluation: null }))).toEqual(["no_verdict"])
  })

  it("what a report or a summary recorded is used as it is", () => {
    const recorded = [{ kind: "self_review", label: "self-review", detail: "gpt-x judged its own replay against Claude's result." }]
    expect(caveatsOfReport({ ...report, caveats: recorded })).toEqual(recorded)
    expect(caveatsOfSummary({ winner: "tie", caveats: recorded })).toEqual(recorded)
  })

  it("a summary written before caveats were recorded still tells a leak, missing ballots and orders that disagreed", () => {
    const summary = {
      winner: "tie",
      possible_leak: true,
      evaluation: {
        flips: 6,
        comparable_dimensions: ["reliability", "code_quality", "request_fulfillment", "change_scope", "safe_operations", "accurate_reporting"],
        dimensions: { reliability: "tie" },
        reviews: [{ order: "AB", status: "completed" }, { order: "BA", status: "completed" }]
      }
    }
    expect(kinds(caveatsOfSummary(summary))).toEqual(["possible_leak", "inconclusive"])
    expect(kinds(caveatsOfSummary({ winner: "inconclusive", evaluation: { reviews: [{ order: "AB", status: "invalid" }, { order: "BA", status: "completed" }] } })))
      .toEqual(["missing_ballot"])
    expect(caveatsOfSummary(null)).toEqual([])
  })
})
