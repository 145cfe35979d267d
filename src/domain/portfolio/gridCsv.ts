/**
 * The grid as CSV (RFC 4180): one line per run, so that every run of a cell keeps its own verdict.
 * Fields with a comma, a quote or a line break are quoted, quotes doubled; lines end in CRLF.
 */
import type { Grid } from "../contracts/grid.js"
import { caveatLabels } from "../report/caveats.js"

export const GRID_CSV_FILE = "portfolio.csv"

export const GRID_CSV_HEADER = ["thread_id", "title", "model", "run_id", "status", "verdict", "caveats", "checks", "address"] as const

const field = (value: string | null) => {
  const text = value ?? ""
  return /[",\r\n]/.test(text) ? `"${text.replaceAll("\"", "\"\"")}"` : text
}

/** The CSV of a grid; `origin` (a controller's) makes each address absolute. */
export const gridCsv = (grid: Grid, origin: string | null = null): string => {
  const lines = grid.rows.flatMap((row) =>
    row.cells.flatMap((cell) =>
      cell.runs.map((run) => [
        row.thread_id,
        row.title,
        cell.model,
        run.run_id,
        run.status,
        run.text,
        caveatLabels(run.caveats),
        run.checks,
        run.address === null ? null : origin === null ? run.address : `${origin}${run.address}`
      ])
    )
  )
  return [[...GRID_CSV_HEADER], ...lines].map((line) => line.map(field).join(",")).join("\r\n") + "\r\n"
}
