import { it } from "@effect/vitest"
import { Effect, Either, Schema } from "effect"
import { describe, expect } from "vitest"
import { modelLines } from "../../src/cli/portfolio.js"
import { checkRepeats, REPEATS_FLAG_MESSAGE, withRepeats } from "../../src/cli/repeats.js"
import { PrepareRunPayload, RepeatOutcomes, type RunState } from "../../src/domain/contracts/index.js"
import { renderPortfolioHtml } from "../../src/domain/portfolio/html.js"
import { buildPortfolio, PortfolioFile, portfolioRun, type PortfolioRun } from "../../src/domain/portfolio/portfolio.js"
import { majority, pairwiseAgreement } from "../../src/domain/portfolio/repeats.js"
import { estimateCost } from "../../src/domain/estimate.js"
import { outcomeWord, repeatOutcomes, repeatOutcomesOf } from "../../src/domain/repeats.js"
import { buildReport } from "../../src/domain/report/report.js"
import { sampleInput } from "../report/fixtures.js"
import { type Caveat, capitalised, INCONCLUSIVE_DISAGREED } from "../../src/domain/report/caveats.js"
import { repeatsSection, withRepeatsSection } from "../../src/domain/report/repeatsHtml.js"
import { DIMENSION_IDS } from "../../src/domain/review/dimensions.js"
import { configurationFingerprint, normalizeConfiguration } from "../../src/domain/runConfig.js"
import { describeParseError } from "../../src/domain/toolResult.js"
import { launchUnits } from "../../src/programs/runs/repeats.js"

type Winner = "codex" | "claude" | "tie" | "inconclusive"

const reportOf = (winner: Winner, thread: string, usd = 0.1) => ({
  schema_version: 1,
  thread_id: thread,
  winner,
  candidates: {
    codex: { model: "gpt-x", elapsed_ms: 60_000, cost: { usd } },
    claude: { model: "claude-sonnet-4-5", elapsed_ms: 240_000, cost: { usd: 1 } }
  },
  spend: { evaluation: { usd: 0.02, calls: 2, unpriced_calls: 0 } },
  evaluation: winner === "inconclusive"
    ? null
    : { flips: 0, dimensions: Object.fromEntries(DIMENSION_IDS.map((id) => [id, { winner, comparable: true, order_dependent: false }])) },
  comparability: { like_for_like: true }
})

/** A repeat as the portfolio program counts it: the report's figures and the state's label. */
const repeat = (runId: string, winner: Winner, thread: string, index: number, of: number, usd = 0.1): PortfolioRun => {
  const run = portfolioRun(runId, reportOf(winner, thread, usd), null)
  if (Either.isLeft(run)) throw new Error(run.left)
  return { ...run.right, repeat: { index, of, group: `group-${thread}` } }
}

const portfolioOf = (runs: ReadonlyArray<PortfolioRun>) =>
  buildPortfolio({ portfolio_id: "portfolio-20261203T120000Z-0123456789", generated_at: "2026-12-03T12:00:00.000Z", runs })

const base = { thread_id: "t", request: "Do it.", beginning_kind: "non_git", ending_kind: "non_git", models: ["m1", "m2"] }

describe("combining the repeats of a (thread, model) cell", () => {
  it.effect("takes the winner most repeats gave; a tie among them, or none, is no winner", () =>
    Effect.sync(() => {
      expect(majority(["codex", "codex", "claude"], "inconclusive")).toBe("codex")
      expect(majority(["codex", "claude"], "inconclusive")).toBe("inconclusive")
      expect(majority(["codex", "inconclusive"], "inconclusive")).toBe("codex")
      expect(majority(["tie", "tie", "claude"], "inconclusive")).toBe("tie")
      expect(majority(["inconclusive", "inconclusive"], "inconclusive")).toBe("inconclusive")
      expect(majority(["win", "loss", "tie", "loss"], "not_counted")).toBe("loss")
    }))

  it.effect("counts n threads as n observations, sums the repeats' costs and shows how often they agree", () =>
    Effect.sync(() => {
      const runs = [
        repeat("r1", "codex", "thread-1", 1, 3, 0.1),
        repeat("r2", "codex", "thread-1", 2, 3, 0.2),
        repeat("r3", "claude", "thread-1", 3, 3, 0.3),
        repeat("r4", "codex", "thread-2", 1, 2),
        repeat("r5", "claude", "thread-2", 2, 2),
        repeat("r6", "claude", "thread-3", 1, 2),
        repeat("r7", "claude", "thread-3", 2, 2)
      ]
      const portfolio = portfolioOf(runs)
      const model = portfolio.models[0]!
      // Three threads, three observations: a win (2 of 3), no verdict (1 to 1), a loss (2 of 2).
      expect(model.runs.map((run) => [run.run_id, run.winner])).toEqual([["r1", "codex"], ["r4", "inconclusive"], ["r6", "claude"]])
      expect([model.overall.wins.count, model.overall.losses.count, model.overall.ties.count, model.overall.not_counted.count]).toEqual([1, 1, 0, 1])
      expect(model.dimensions.reliability.wins.count + model.dimensions.reliability.losses.count).toBe(2)
      // Costs sum every repeat; Claude still counts once per thread.
      expect(model.cost_usd.codex.total).toBeCloseTo(0.1 + 0.2 + 0.3 + 0.1 * 4)
      expect(model.cost_usd.evaluation?.total).toBeCloseTo(0.02 * 7)
      expect(model.cost_usd.claude.total).toBe(3)
      expect(portfolio.cost_usd?.codex.total).toBeCloseTo(1)
      expect(model.runs[0]!.repeats).toEqual({ run_ids: ["r1", "r2", "r3"], winners: ["codex", "codex", "claude"] })
      // Repeats agree in 1 of 3 cells; pairwise: 1/3 (thread 1), 0 (thread 2), 1 (thread 3).
      expect(model.repeat_agreement).toEqual({
        cells: 3,
        all_agree: { count: 1, run_ids: ["r6"] },
        all_agree_share: 1 / 3,
        mean_pairwise: (1 / 3 + 0 + 1) / 3
      })
      expect(Schema.decodeUnknownSync(PortfolioFile)(JSON.parse(JSON.stringify(portfolio)))).toEqual(portfolio)
      expect(modelLines(model).join("\n")).toContain(
        "Repeats:        repeats agree on the winner in 1 of 3 repeated (thread, model) cell(s) (33%); mean pairwise agreement 44%"
      )
      const html = renderPortfolioHtml(portfolio)
      expect(html).toContain("<dt>Repeats agree</dt>")
      expect(html).toContain("(3 repeats: codex, codex, claude)")
    }))

  it.effect("leaves runs that are no repeats as they were, with no agreement figure", () =>
    Effect.sync(() => {
      const plain = [repeat("r1", "codex", "thread-1", 1, 1), repeat("r2", "claude", "thread-2", 1, 1)].map(({ repeat: _, ...run }) => run)
      const model = portfolioOf(plain).models[0]!
      expect(model.runs.map((run) => run.run_id)).toEqual(["r1", "r2"])
      expect(model.repeat_agreement).toBeUndefined()
      expect(pairwiseAgreement(["codex"])).toBe(1)
    }))
})

const stateOf = (runId: string, index: number, status: RunState["status"], winner: string | null, group = "g"): RunState => ({
  schema_version: 1,
  controller_session_id: "0123456789abcdef0123456789abcdef",
  run_id: runId,
  status,
  phase: "reporting",
  phases: [],
  events: [],
  coordinator_pid: 1,
  started_at: "2026-12-03T12:00:00.000Z",
  updated_at: "2026-12-03T12:00:00.000Z",
  error: null,
  model: "gpt-X",
  repeat: { index, of: 3, group },
  ...(winner === null ? {} : { report_summary: { winner } })
})

describe("the repeats of a run in Results", () => {
  it.effect("lists the k outcomes of its start in order, each linking to its run, and how many agree", () =>
    Effect.sync(() => {
      const states = [
        stateOf("run-20261203T120000Z-0000000003", 3, "completed", "claude"),
        stateOf("run-20261203T120000Z-0000000001", 1, "completed", "codex"),
        stateOf("run-20261203T120000Z-0000000009", 1, "completed", "claude", "other start"),
        stateOf("run-20261203T120000Z-0000000002", 2, "running", null)
      ]
      const own = states[3]!
      const outcomes = repeatOutcomesOf(own, states, { winner: "codex" })!
      expect(outcomes.text).toBe("Repeats: 3 of gpt-X from this start — Codex wins, Codex wins, Claude wins (2 of 3 agree)")
      expect(outcomes.outcomes.map((outcome) => outcome.address)).toEqual([
        "/runs/run-20261203T120000Z-0000000001",
        "/runs/run-20261203T120000Z-0000000002",
        "/runs/run-20261203T120000Z-0000000003"
      ])
      // Without its own winner, a run still reporting shows its status.
      expect(repeatOutcomesOf(own, states)!.text).toBe("Repeats: 3 of gpt-X from this start — Codex wins, running, Claude wins (1 of 2 agree)")
      const html = repeatsSection(outcomes)
      expect(html).toContain(`<a href="/runs/run-20261203T120000Z-0000000002">Repeat 2</a>: Codex wins</li>`)
      expect(html).toContain("2 of 3 agree")
      const { repeat: _, ...single } = own
      expect(repeatOutcomesOf(single, states)).toBeUndefined()
      expect(repeatsSection(undefined)).toBe("")
      // A report written while a repeat still ran gets its section replaced, and only its section.
      const earlier = `<main><section aria-labelledby="verdict-heading">v</section>${repeatsSection(repeatOutcomesOf(own, states))}<section>rest</section></main>`
      const refreshed = withRepeatsSection(earlier, html)
      expect(refreshed).toBe(`<main><section aria-labelledby="verdict-heading">v</section>${html}<section>rest</section></main>`)
      expect(withRepeatsSection("<main>none</main>", html)).toBe("<main>none</main>")
    }))
})

describe("repeats whose verdicts have no winner", () => {
  const IDS = DIMENSION_IDS
  const disagreed = { winner: "tie", caveats: [{ kind: "inconclusive", label: INCONCLUSIVE_DISAGREED, detail: "The two review orders disagreed." }] }
  // A summary written before caveats were recorded: a tie whose every compared dimension flipped.
  const olderDisagreed = { winner: "tie", evaluation: { flips: IDS.length, comparable_dimensions: IDS, reviews: [{ order: "AB", status: "completed" }, { order: "BA", status: "completed" }] } }
  const withSummary = (runId: string, index: number, summary: object): RunState => ({ ...stateOf(runId, index, "completed", null), repeat: { index, of: 2, group: "g" }, report_summary: summary } as RunState)

  it.effect("say each run was inconclusive in the single verdict's words, and agree on no winner", () =>
    Effect.sync(() => {
      const states = [withSummary("run-20261203T120000Z-0000000001", 1, disagreed), withSummary("run-20261203T120000Z-0000000002", 2, olderDisagreed)]
      const outcomes = repeatOutcomesOf(states[0]!, states)!
      expect(outcomes.text).toBe(
        "Repeats: 2 of gpt-X from this start — Inconclusive (the two orders disagreed), Inconclusive (the two orders disagreed) (2 of 2 agree)"
      )
      expect(outcomes.agreeing).toEqual({ winner: "inconclusive", count: 2 })
      expect(outcomes.outcomes.map(outcomeWord)).toEqual([capitalised(INCONCLUSIVE_DISAGREED), capitalised(INCONCLUSIVE_DISAGREED)])
      expect(repeatsSection(outcomes)).toContain("Repeat 1</a>: Inconclusive (the two orders disagreed)</li>")
      expect(Schema.decodeUnknownSync(RepeatOutcomes)(JSON.parse(JSON.stringify(outcomes)))).toEqual(outcomes)
    }))

  it.effect("tell a real tie from a tie by disagreement, and an inconclusive review by its own words", () =>
    Effect.sync(() => {
      const states = [
        withSummary("run-20261203T120000Z-0000000001", 1, { winner: "tie", caveats: [] }),
        withSummary("run-20261203T120000Z-0000000002", 2, disagreed),
        withSummary("run-20261203T120000Z-0000000003", 3, { winner: "inconclusive", caveats: [] })
      ]
      const outcomes = repeatOutcomesOf(states[0]!, states)!
      expect(outcomes.outcomes.map(outcomeWord)).toEqual(["Tie", "Inconclusive (the two orders disagreed)", "Inconclusive (no order-balanced verdict)"])
      expect(outcomes.text).toContain("(2 of 3 agree)")
      expect(outcomes.agreeing).toEqual({ winner: "inconclusive", count: 2 })
      // The run whose report is being written says what its own caveats say.
      expect(repeatOutcomesOf(states[0]!, states, { winner: "tie", caveats: disagreed.caveats as ReadonlyArray<Caveat> })!.outcomes.map(outcomeWord)[0])
        .toBe("Inconclusive (the two orders disagreed)")
    }))
})

describe("a repeat's own report", () => {
  it.effect("gives its own outcome the report's caveats, which its run's state does not hold yet", () =>
    Effect.sync(() => {
      const own = "run-20261203T120000Z-0000000001"
      const sibling = "run-20261203T120000Z-0000000002"
      const repeats = repeatOutcomes("gpt-X", 2, [
        { run_id: own, index: 1, status: "completed", winner: "tie", address: `/runs/${own}` },
        { run_id: sibling, index: 2, status: "completed", winner: "tie", caveats: [], address: `/runs/${sibling}` }
      ])
      const report = buildReport({ ...sampleInput(null), run_id: own, repeats })
      expect(report.caveats!.length).toBeGreaterThan(0)
      expect(report.repeats!.outcomes[0]!.caveats).toEqual(report.caveats)
      expect(report.repeats!.outcomes[1]!.caveats).toEqual([])
      expect(report.repeats!.text).toContain(`${outcomeWord(report.repeats!.outcomes[0]!)}, Tie (`)
      expect(outcomeWord(report.repeats!.outcomes[0]!)).not.toBe("Tie")
    }))
})

describe("repeats on a configuration, a batch and the command line", () => {
  const messageOf = (input: unknown) => {
    const result = normalizeConfiguration(input)
    return Either.isLeft(result) ? result.left.message : "valid"
  }

  it.effect.each<[unknown]>([[0], [6], [2.5], ["x"], [true]])("refuses repeats %j in one sentence", ([value]) =>
    Effect.sync(() => {
      expect(messageOf({ ...base, repeats: value })).toBe("repeats must be a whole number from 1 through 5.")
      const batch = Schema.decodeUnknownEither(PrepareRunPayload)({ configurations: [base], repeats: value })
      expect(Either.isLeft(batch) ? describeParseError(batch.left) : "valid").toBe("repeats must be a whole number from 1 through 5.")
    }))

  it.effect("keeps 2–5 and leaves once as absent (the same fingerprint as before repeats)", () =>
    Effect.sync(() => {
      const without = Either.getOrThrow(normalizeConfiguration(base))
      const once = Either.getOrThrow(normalizeConfiguration({ ...base, repeats: 1 }))
      expect("repeats" in once).toBe(false)
      expect(configurationFingerprint(once)).toBe(configurationFingerprint(without))
      const thrice = Either.getOrThrow(normalizeConfiguration({ ...base, repeats: 3 }))
      expect(thrice.repeats).toBe(3)
      expect(configurationFingerprint(thrice)).not.toBe(configurationFingerprint(without))
      // Each model three times: six runs, repeats in order.
      expect(launchUnits(thrice).map((unit) => `${unit.model}#${unit.repeat?.index}/${unit.repeat?.of}`)).toEqual([
        "m1#1/3", "m1#2/3", "m1#3/3", "m2#1/3", "m2#2/3", "m2#3/3"
      ])
      expect(launchUnits(without).map((unit) => unit.repeat)).toEqual([undefined, undefined])
      expect(Either.isRight(Schema.decodeUnknownEither(PrepareRunPayload)({ configurations: [base], repeats: 2 }))).toBe(true)
    }))

  it.effect("checks --repeats before anything is contacted", () =>
    Effect.sync(() => {
      for (const value of [0, 6, Number.NaN, 2.5]) {
        const checked = checkRepeats(value)
        expect(Either.isLeft(checked) ? checked.left.message : "valid").toBe(REPEATS_FLAG_MESSAGE)
      }
      expect(Either.isRight(checkRepeats(undefined)) && Either.isRight(checkRepeats(5))).toBe(true)
      expect(withRepeats(2)({ a: 1 })).toEqual({ a: 1, repeats: 2 })
      expect(withRepeats(1)({ a: 1 })).toEqual({ a: 1 })
    }))

  it.effect("prices every repeat as a run, each from the same earlier runs of its thread and model", () =>
    Effect.sync(() => {
      const size = { thread_id: "t1", claude_tokens: null, result_chars: 8_000 }
      const earlier = [
        { thread_id: "t1", model: "gpt-5.5", implementation_usd: 1, review: { model: "gpt-6.2-sol", usd: 0.2 }, second_judge_usd: null },
        { thread_id: "t1", model: "gpt-5.5", implementation_usd: 3, review: { model: "gpt-6.2-sol", usd: 0.4 }, second_judge_usd: null }
      ]
      const once = estimateCost({ threads: [{ size, models: ["gpt-5.5"] }], reviewer: "gpt-6.2-sol", earlier, prices: {} })
      const thrice = estimateCost({
        threads: [{ size, models: launchUnits({ ...Either.getOrThrow(normalizeConfiguration({ ...base, models: ["gpt-5.5"], repeats: 3 })) }).map((unit) => unit.model) }],
        reviewer: "gpt-6.2-sol",
        earlier,
        prices: {}
      })
      expect(thrice.parts).toHaveLength(3)
      expect(thrice.usd).toBeCloseTo(3 * once.usd!, 12)
      expect(thrice.text).toContain("for 3 runs")
      expect(thrice.text).toContain("the mean of 2 earlier run(s) of the same thread and model")
    }))
})
