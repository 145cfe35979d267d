import { describe, expect, it } from "@effect/vitest"
import { runsTable } from "../../src/cli/runs.js"
import { colourFor, renderTable, tokens, usd, widthOf } from "../../src/cli/table.js"
import type { RunSummary } from "../../src/programs/runs/history.js"
import { runSummaryOf } from "./runSummary.js"

const COLUMNS = [
  { header: "#", align: "right" as const },
  { header: "Title", wraps: true },
  { header: "Project", wraps: true, dropOrder: 1 },
  { header: "Tokens", align: "right" as const },
  { header: "Cost", align: "right" as const }
]
const ROWS = [
  ["#1", "Fix the flaky login test that fails on Mondays only", "/home/marco/projects/spotter", tokens(1234567), usd(12.234)],
  ["#2", "Add a CSV export", "/home/marco/projects/ledger", tokens(52), usd(0.004)]
]
const TOTALS = ["Total", "", "", tokens(1234619), usd(12.238)]

describe("the command line's tables", () => {
  it("prints dollars with two decimals, a sub-cent amount as <$0.01 and an unknown one as -", () => {
    expect([usd(12.234), usd(0.227), usd(0), usd(0.004), usd(0.005), usd(1234.5), usd(null)]).toEqual([
      "$12.23", "$0.23", "$0.00", "<$0.01", "$0.01", "$1,234.50", "-"
    ])
    expect([tokens(1234567), tokens(undefined)]).toEqual(["1,234,567", "-"])
  })

  it("draws a header, aligned columns and a totals row under a rule, without colour when asked", () => {
    const text = renderTable({ columns: COLUMNS, rows: ROWS, totals: TOTALS }, { width: undefined, colour: false })
    const lines = text.split("\n")
    expect(text).not.toContain("\u001b[")
    expect(lines[1]).toMatch(/^│ +# │ Title +│ Project +│ +Tokens │ +Cost │$/)
    // Every line is as wide as the others: the columns are aligned.
    expect(new Set(lines.map((line) => line.length)).size).toBe(1)
    expect(lines.at(-3)).toMatch(/^├─+┼/)
    expect(lines.at(-2)).toMatch(/^│ Total │ +│ +│ +1,234,619 │ +\$12\.24 │$/)
    // Numbers are right-aligned: the cost column ends at the same place on every row.
    expect(lines.find((line) => line.includes("<$0.01"))).toMatch(/ <\$0\.01 │$/)
  })

  it("fits the width by wrapping the titles, then leaves out a droppable column", () => {
    const wide = renderTable({ columns: COLUMNS, rows: ROWS, totals: TOTALS }, { width: 200, colour: false })
    const natural = wide.split("\n")[0]!.length
    expect(natural).toBeLessThan(200)
    const narrower = renderTable({ columns: COLUMNS, rows: ROWS, totals: TOTALS }, { width: natural - 10, colour: false })
    expect(Math.max(...narrower.split("\n").map((line) => line.length))).toBeLessThanOrEqual(natural - 10)
    expect(narrower).toContain("Project")
    const narrow = renderTable({ columns: COLUMNS, rows: ROWS, totals: TOTALS }, { width: 50, colour: false })
    expect(Math.max(...narrow.split("\n").map((line) => line.length))).toBeLessThanOrEqual(50)
    expect(narrow).not.toContain("Project")
    expect(narrow).toContain("Fix the")
    expect(narrow).toContain("$12.23")
  })

  it("colours the header and borders only when asked, whatever the process's own terminal", () => {
    // The decision is `colourFor`'s alone: a test process without a terminal (CI) still gets colour when asked.
    const coloured = renderTable({ columns: COLUMNS, rows: ROWS, totals: TOTALS }, { width: 60, colour: true })
    const plain = renderTable({ columns: COLUMNS, rows: ROWS, totals: TOTALS }, { width: 60, colour: false })
    expect(coloured).toContain("\u001b[36mTitle\u001b[39m")
    expect(coloured).toContain("\u001b[90m│\u001b[39m")
    // eslint-disable-next-line no-control-regex
    expect(coloured.replace(/\u001b\[[0-9;]*m/g, "")).toBe(plain)
    // Rows are not painted: only their borders are.
    expect(coloured).not.toContain("\u001b[36mAdd a CSV export")
  })

  it("colours only a terminal without NO_COLOR, and reads the width of a terminal, else COLUMNS, else none", () => {
    const terminal = { isTTY: true, columns: 91 }
    const pipe = { isTTY: false }
    expect([colourFor(terminal, {}), colourFor(terminal, { NO_COLOR: "1" }), colourFor(pipe, {})]).toEqual([true, false, false])
    expect([widthOf(terminal, { COLUMNS: "50" }), widthOf(pipe, { COLUMNS: "50" }), widthOf(pipe, {}), widthOf(pipe, { COLUMNS: "wide" })]).toEqual([
      91, 50, undefined, undefined
    ])
  })

  it("draws the rule above the whole totals row when it wraps", () => {
    const columns = [{ header: "Run" }, { header: "Verdict", wraps: true }]
    const text = renderTable({
      columns,
      rows: [["run-a", "Codex wins"]],
      totals: ["Total", "Codex wins 1 · Claude wins 0 · neither 0"]
    }, { width: 30, colour: false })
    const lines = text.split("\n")
    const rule = lines.findIndex((line, index) => index > 2 && line.startsWith("├"))
    expect(lines[rule + 1]).toMatch(/^│ Total │/)
    expect(lines.slice(rule + 1, -1).length).toBeGreaterThan(1)
    expect(Math.max(...lines.map((line) => line.length))).toBeLessThanOrEqual(30)
  })

  it.each([80, 100])("fits %i columns when leaving out columns is not enough: wrapping the titles, cutting a word too long with …", (width) => {
    const columns = [
      { header: "Started" },
      { header: "Run" },
      { header: "Thread", wraps: true },
      { header: "Status" },
      { header: "Verdict", wraps: true },
      { header: "Cost", align: "right" as const },
      { header: "Tokens", align: "right" as const, dropOrder: 1 }
    ]
    const rows = [
      ["2026-11-30 10:00", "run-20261130T100000Z-aaaaaaaaaa", "Fix the flaky login test that fails on Mondays only", "interrupted", "Codex wins (3 won, 2 tied, 1 lost)", usd(0.37), tokens(1234567)],
      ["2026-12-01 12:00", "run-20261201T120000Z-bbbbbbbbbb", "Add a CSV export", "completed", "Claude wins", usd(12.5), tokens(52)]
    ]
    const text = renderTable({ columns, rows, totals: ["Total", "", "", "", "", usd(12.87), tokens(1234619)] }, { width, colour: false })
    const lines = text.split("\n")
    expect(Math.max(...lines.map((line) => line.length))).toBeLessThanOrEqual(width)
    // Aligned: every line as wide as the border.
    expect(new Set(lines.map((line) => line.length)).size).toBe(1)
    expect(text).not.toContain("Tokens")
    // The titles and verdicts wrap whole words; the run id, one word wider than its column, is cut with "…".
    for (const word of ["flaky", "Mondays", "export", "(3", "lost)", "$12.87"]) expect(text).toContain(word)
    expect(text).toMatch(/│ run-2026113\S*… │/)
  })

  it("draws at the narrowest it can when even that is wider than the terminal", () => {
    const text = renderTable({ columns: COLUMNS, rows: ROWS, totals: TOTALS }, { width: 10, colour: false })
    const lines = text.split("\n")
    expect(new Set(lines.map((line) => line.length)).size).toBe(1)
    expect(lines[0]!.length).toBeGreaterThan(10)
    expect(lines[0]!.length).toBeLessThan(40)
  })
})

describe("codex-replay runs's table", () => {
  const run = (id: string, title: string, status: RunSummary["status"], extra: Partial<RunSummary> = {}) =>
    runSummaryOf({ run_id: id, thread_id: "sample-hello-cli", thread_title: title, status, ...extra })
  const RUNS = [
    run("run-20261130T100000Z-aaaaaaaaaa", "Sample: create a greeting script (non-git)", "completed", {
      winner: "codex",
      dimensions: { won: 3, tied: 2, lost: 1 },
      tokens: { input: 120_500, output: 3_200 },
      spend: {
        implementation: { usd: 12.2971, calls: 1, unpriced_calls: 0 },
        evaluation: { usd: 0.004, calls: 2, unpriced_calls: 0 },
        total: { usd: 12.3011, calls: 3, unpriced_calls: 0 }
      }
    }),
    run("run-20261201T120000Z-bbbbbbbbbb", "mix phx.server doesnt seem to start after upgrading elixir", "cancelled")
  ]

  it.each([80, 100])("fits %i columns, every line within the width, the titles wrapped, the run ids whole", (width) => {
    const text = renderTable(runsTable(RUNS, true), { width, colour: false })
    expect(Math.max(...text.split("\n").map((line) => line.length))).toBeLessThanOrEqual(width)
    for (const word of ["Thread", "Verdict", "Codex", "greeting", "upgrading", "cancelled", "$12.30"]) expect(text).toContain(word)
    // `codex-replay report` takes the id as it is printed.
    for (const id of ["run-20261130T100000Z-aaaaaaaaaa", "run-20261201T120000Z-bbbbbbbbbb"]) expect(text).toContain(`│ ${id} │`)
  })
})
