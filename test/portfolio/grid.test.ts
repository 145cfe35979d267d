import { Either } from "effect"
import { describe, expect, it } from "vitest"
import type { Caveat } from "../../src/domain/report/caveats.js"
import { buildGrid, type GridEntry, portfolioGrid } from "../../src/domain/portfolio/grid.js"
import { renderGridHtml } from "../../src/domain/portfolio/gridHtml.js"
import { GRID_CSV_HEADER, gridCsv } from "../../src/domain/portfolio/gridCsv.js"
import { embedReport } from "../../src/domain/portfolio/embeddedReports.js"
import { renderPortfolioHtml } from "../../src/domain/portfolio/html.js"
import { buildPortfolio, portfolioRun } from "../../src/domain/portfolio/portfolio.js"
import { renderReportHtml } from "../../src/domain/report/html.js"
import { DIMENSION_IDS } from "../../src/domain/review/dimensions.js"
import { sampleReport } from "../report/fixtures.js"
import { parseCsv } from "../support/csv.js"

const caveat = (kind: Caveat["kind"], label: string): Caveat => ({ kind, label, detail: null })
const SPLIT = caveat("split", "split")
const NLFL = caveat("not_like_for_like", "not like-for-like")

const entry = (thread: string, model: string, run: string | null, overrides: Partial<GridEntry> = {}): GridEntry => ({
  thread_id: thread,
  model,
  run_id: run,
  status: "completed",
  winner: "codex",
  caveats: [],
  checks: null,
  ...overrides
})

const TITLES = new Map([
  ["thread-a", `Fix the parser, then "quote" it`],
  ["thread-b", "Line one\nline two, with a comma"],
  ["thread-c", `<b>bold</b> & "both", ok`]
])

const ENTRIES: ReadonlyArray<GridEntry> = [
  entry("thread-a", "m1", "run-a1"),
  entry("thread-a", "m2", "run-a2", { winner: "claude", checks: "checks: Codex 2 of 3, Claude 3 of 3" }),
  entry("thread-b", "m1", "run-b1", { winner: "codex", caveats: [SPLIT] }),
  entry("thread-b", "m2", "run-b2", { winner: "tie", caveats: [NLFL] }),
  entry("thread-c", "m1", "run-c1", { blind: true, winner: "claude" }),
  entry("thread-c", "m2", null, { status: "pending", winner: null })
]

describe("the grid's view model", () => {
  const grid = buildGrid({ entries: ENTRIES, titles: TITLES, models: ["m1", "m2"] })

  it("has one row per thread with its title and one cell per model, each run with its verdict, tone and address", () => {
    expect(grid.models).toEqual(["m1", "m2"])
    expect(grid.rows.map((row) => [row.thread_id, row.title])).toEqual([...TITLES.entries()])
    const cell = (row: number, column: number) => grid.rows[row]!.cells[column]!.runs[0]!
    expect(cell(0, 0)).toMatchObject({ run_id: "run-a1", address: "/runs/run-a1", tone: "win", text: "Codex wins", loss: false })
    expect(cell(0, 1)).toMatchObject({ tone: "loss", text: "Claude wins", loss: true, checks: "checks: Codex 2 of 3, Claude 3 of 3" })
    // A split says so instead of a winner; a verdict not like-for-like keeps its winner and names the caveat.
    expect(cell(1, 0)).toMatchObject({ tone: "none", text: "Split", split: true, caveats: [] })
    expect(cell(1, 1)).toMatchObject({ tone: "tie", text: "Tie", not_like_for_like: true, caveats: [NLFL] })
    // A verdict the user has not voted on or revealed stays hidden; a pair not started has no address.
    expect(cell(2, 0)).toMatchObject({ tone: "hidden", loss: false })
    expect(cell(2, 0).text).not.toContain("Claude")
    expect(cell(2, 1)).toMatchObject({ run_id: null, address: null, tone: "pending", text: "Not started" })
    expect(grid.filters).toEqual({ loss: 1, split: 1, not_like_for_like: 1 })
    expect(grid.rows.map((row) => [row.loss, row.split, row.not_like_for_like])).toEqual([[true, false, false], [false, true, true], [false, false, false]])
  })

  it("puts each model's figures so far above the grid while there is no portfolio", () => {
    expect(grid.statistics.map((figures) => figures.sentence)).toEqual([
      "m1 so far: Codex won 1, tied 0, lost 0 (1 without a verdict); win rate 100% (95% interval 21%–100%); sign test p = 1.000.",
      "m2 so far: Codex won 0, tied 1, lost 1 (1 not completed); win rate 0% (95% interval 0%–79%); sign test p = 1.000."
    ])
  })

  it("takes a portfolio's own statistics once it exists, and its threads in the portfolio's order", () => {
    const report = (thread: string, winner: "codex" | "claude", model: string) => ({
      thread_id: thread,
      winner,
      candidates: { codex: { model, elapsed_ms: 1, cost: { usd: 0.1 } }, claude: { elapsed_ms: 2, cost: { usd: 1 } } },
      evaluation: { flips: 0, dimensions: Object.fromEntries(DIMENSION_IDS.map((id) => [id, { winner: "tie" }])) }
    })
    const runs = [["r1", "thread-a", "claude", "m1"], ["r2", "thread-b", "codex", "m1"], ["r3", "thread-a", "codex", "m2"]] as const
    const portfolio = buildPortfolio({
      portfolio_id: "portfolio-x",
      generated_at: "2026-12-01T00:00:00Z",
      runs: runs.map(([id, thread, winner, model]) => Either.getOrThrow(portfolioRun(id, report(thread, winner, model), null)))
    })
    const fromPortfolio = portfolioGrid(portfolio, TITLES)
    expect(fromPortfolio.rows.map((row) => row.thread_id)).toEqual(["thread-a", "thread-b"])
    expect(fromPortfolio.rows[0]!.cells.map((cell) => cell.runs.map((run) => run.text))).toEqual([["Claude wins"], ["Codex wins"]])
    expect(fromPortfolio.rows[1]!.cells[1]!.runs).toEqual([])
    expect(fromPortfolio.statistics[0]).toMatchObject({ model: "m1", wins: 1, losses: 1, sign_test_p: portfolio.models[0]!.overall.sign_test_p })
    expect(fromPortfolio.statistics[0]!.sentence).toMatch(/^m1: Codex won 1, tied 0, lost 1; win rate 50%/)
  })
})

describe("the grid as HTML", () => {
  const grid = buildGrid({ entries: ENTRIES, titles: TITLES, models: ["m1", "m2"] })
  const html = renderGridHtml(grid, { idPrefix: "g", runHref: (run) => run.address })

  it("names each cell's verdict in words and colour, links it to the run's address and escapes every title", () => {
    expect(html).toContain(`<span class="grid-run tone-loss"><a href="/runs/run-a2">Claude wins</a>`)
    expect(html).toContain(`<span class="grid-run tone-none"><a href="/runs/run-b1">Split</a>`)
    expect(html).toContain(`<span class="grid-run tone-pending"><span>Not started</span>`)
    expect(html).toContain("&lt;b&gt;bold&lt;/b&gt; &amp; &quot;both&quot;, ok")
    expect(html).not.toContain("<b>bold</b>")
    expect(html).not.toMatch(/<script/i)
  })

  it("filters rows with CSS alone: one radio per filter, each row marked with what it has", () => {
    for (const key of ["all", "loss", "split", "nlfl"]) expect(html).toContain(`<input type="radio" name="g-filter" id="g-filter-${key}" class="grid-filter-${key}"`)
    expect(html).toContain(`<label for="g-filter-loss">With a loss (1)</label>`)
    const rows = [...html.matchAll(/<tr( class="([^"]*)")?><th scope="row">/g)].map((match) => match[2] ?? "")
    expect(rows).toEqual(["row-loss", "row-split row-nlfl", ""])
  })
})

describe("the grid as CSV", () => {
  it("round-trips titles with commas, quotes and line breaks through a CSV reader, one line per run", () => {
    const grid = buildGrid({ entries: ENTRIES, titles: TITLES, models: ["m1", "m2"] })
    const csv = gridCsv(grid, "http://127.0.0.1:43118")
    const [header, ...records] = parseCsv(csv)
    expect(header).toEqual([...GRID_CSV_HEADER])
    expect(records).toHaveLength(6)
    for (const record of records) expect(record).toHaveLength(GRID_CSV_HEADER.length)
    const column = (name: (typeof GRID_CSV_HEADER)[number]) => records.map((record) => record[GRID_CSV_HEADER.indexOf(name)])
    expect(column("title")).toEqual([...TITLES.values()].flatMap((title) => [title, title]))
    expect(column("verdict")).toEqual(["Codex wins", "Claude wins", "Split", "Tie", "Hidden until you vote or reveal", "Not started"])
    expect(column("caveats")).toEqual(["", "", "", "not like-for-like", "", ""])
    expect(column("address")).toEqual(["run-a1", "run-a2", "run-b1", "run-b2", "run-c1"].map((id) => `http://127.0.0.1:43118/runs/${id}`).concat([""]))
    expect(column("checks")[1]).toBe("checks: Codex 2 of 3, Claude 3 of 3")
  })
})

describe("a portfolio that carries its reports", () => {
  it("embeds each run's report with ids of its own, so every in-file link resolves and no link leaves the file", () => {
    const report = sampleReport()
    const reportHtml = renderReportHtml(report)
    const run = Either.getOrThrow(portfolioRun("run-one", JSON.parse(JSON.stringify(report)), null))
    const other = Either.getOrThrow(portfolioRun("run-two", JSON.parse(JSON.stringify({ ...report, thread_id: "thread-two" })), null))
    const portfolio = buildPortfolio({ portfolio_id: "portfolio-x", generated_at: "2026-12-01T00:00:00Z", runs: [run, other] })
    const html = renderPortfolioHtml(portfolio, {
      titles: new Map([[report.thread_id, "A title"]]),
      reports: new Map([["run-one", reportHtml], ["run-two", reportHtml]]),
      controllerOrigin: "http://127.0.0.1:43118"
    })
    const ids = [...html.matchAll(/ id="([^"]+)"/g)].map((match) => match[1]!)
    expect(new Set(ids).size).toBe(ids.length)
    const hrefs = [...html.matchAll(/ href="([^"]+)"/g)].map((match) => match[1]!)
    const local = hrefs.filter((href) => href.startsWith("#"))
    expect(local.length).toBeGreaterThan(5)
    for (const href of local) expect(ids, href).toContain(decodeURIComponent(href.slice(1)))
    // Nothing else but the runs' addresses in the controller.
    expect(hrefs.filter((href) => !href.startsWith("#")).every((href) => /^http:\/\/127\.0\.0\.1:43118\/runs\/run-(one|two)$/.test(href))).toBe(true)
    expect(hrefs).toContain("http://127.0.0.1:43118/runs/run-one")
    expect(html).toContain(`<section class="embedded-report" id="report-run-one"`)
    expect(html).toContain(`id="report-run-two-evaluation-heading"`)
    // The report's headings sit below the portfolio's: its h1 is an h3 there.
    expect(html).toContain(`<h3>Replay report</h3>`)
    expect(html.match(/<h1[ >]/g)).toHaveLength(1)
    expect(html).toContain("A title")
  })

  it("a report names its run's address only when it knows the controller's", () => {
    const report = sampleReport()
    expect(renderReportHtml(report, "http://127.0.0.1:43118")).toContain(
      `<dt>In the controller</dt><dd><a href="http://127.0.0.1:43118/runs/${report.run_id}">http://127.0.0.1:43118/runs/${report.run_id}</a></dd>`
    )
    expect(renderReportHtml(report)).not.toContain("In the controller")
  })

  it("says so in one sentence when a run's report could not be read", () => {
    expect(embedReport("run-x", null, null)).toContain("The report of run <code>run-x</code> could not be read when this portfolio was written.")
    expect(embedReport("run-x", "not a report", null)).toContain("could not be read")
  })
})
