import { describe, expect, it } from "@effect/vitest"
import { colourFor, renderTable, tokens, usd, widthOf } from "../../src/cli/table.js"

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
})
