/**
 * The command line's tables (`threads`, `runs`, `batch`): a header, aligned columns, a totals row under a
 * rule, and the terminal's width respected by wrapping the columns that may wrap (titles, verdicts), then
 * leaving out the columns that may go, then narrowing every column (a word too long cut with "…").
 * Colour only on a terminal and without `NO_COLOR`.
 */
import Table from "cli-table3"
import type { Environment } from "../domain/cacheRoot.js"
import { formatInteger } from "../domain/report/format.js"

export interface Column {
  readonly header: string
  readonly align?: "left" | "right"
  /** May be narrowed, its text wrapped, to fit the width. */
  readonly wraps?: boolean
  /** May be left out when the table cannot fit otherwise; the higher first. */
  readonly dropOrder?: number
  /** Never narrowed nor cut: an id the user copies into the next command. */
  readonly whole?: boolean
}

export interface TableSpec {
  readonly columns: ReadonlyArray<Column>
  readonly rows: ReadonlyArray<ReadonlyArray<string>>
  /** The totals row, shown under a rule. */
  readonly totals?: ReadonlyArray<string>
}

export interface TableLook {
  /** The widest a line may be; undefined: as wide as the content. */
  readonly width: number | undefined
  readonly colour: boolean
}

/** A wrapping column is not narrowed below this (padding included), nor below its header, while a column can go. */
const MIN_WRAPPED = 12
/** When no column can go: the narrowest a wrapping column gets (padding included), nor below its header… */
const MIN_SQUEEZED = 8
/** …and the narrowest another column gets: one character and "…", with the padding. */
const MIN_CUT = 4

/** Dollars always with two decimals ($0.23, $1,234.50); below a cent "<$0.01"; unknown "-". */
export const usd = (value: number | null | undefined): string => {
  if (value === null || value === undefined || !Number.isFinite(value)) return "-"
  if (value > 0 && value < 0.005) return "<$0.01"
  return `$${value.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`
}

/** A token count with thousands separators; unknown "-". */
export const tokens = (value: number | null | undefined): string =>
  value === null || value === undefined || !Number.isFinite(value) ? "-" : formatInteger(value)

/** A totals cell: the sum of the known values, formatted; "-" when none is known. */
export const knownSum = (values: ReadonlyArray<number | null | undefined>, format: (value: number) => string) => {
  const known = values.filter((value): value is number => typeof value === "number" && Number.isFinite(value))
  return known.length === 0 ? "-" : format(known.reduce((total, value) => total + value, 0))
}

/** A replay's tokens and costs, as `runs` and `batch` show them; a value not known is undefined or `null`. */
export interface SpendCells {
  readonly input?: number | null | undefined
  readonly output?: number | null | undefined
  /** Codex's implementation. */
  readonly codex?: number | null | undefined
  /** What it cost to know: reviews, asked-again reviews, reconstruction, second judge. */
  readonly evaluation?: number | null | undefined
}

/**
 * A replay's columns as `runs` and `batch` show them: run, thread, model, status, verdict, then `SpendCells`.
 * When the width is short the tokens go first, then the evaluation's cost, then the model.
 */
export const REPLAY_COLUMNS: ReadonlyArray<Column> = [
  { header: "Run", whole: true },
  { header: "Thread", wraps: true },
  { header: "Model", dropOrder: 3 },
  { header: "Status" },
  { header: "Verdict", wraps: true },
  { header: "Input", align: "right", dropOrder: 1 },
  { header: "Output", align: "right", dropOrder: 1 },
  { header: "Codex", align: "right" },
  { header: "Evaluation", align: "right", dropOrder: 2 }
]

export const spendCells = (spend: SpendCells) => [tokens(spend.input), tokens(spend.output), usd(spend.codex), usd(spend.evaluation)]

/** The totals of the spend columns (`spendCells`): each the sum of the known values. */
export const spendTotals = (all: ReadonlyArray<SpendCells>) => [
  knownSum(all.map((spend) => spend.input), tokens),
  knownSum(all.map((spend) => spend.output), tokens),
  knownSum(all.map((spend) => spend.codex), usd),
  knownSum(all.map((spend) => spend.evaluation), usd)
]

/** What a table reads of the stream it is written to. */
export interface Screen {
  readonly isTTY?: boolean
  readonly columns?: number
}

/** The width of the terminal a stream writes to: its columns, else `COLUMNS`, else none (a pipe or a file). */
export const widthOf = (stream: Screen, env: Environment): number | undefined => {
  if (stream.isTTY === true && typeof stream.columns === "number" && stream.columns > 0) return stream.columns
  const columns = Number(env.COLUMNS)
  return Number.isInteger(columns) && columns > 0 ? columns : undefined
}

/** Colour only on a terminal, and never when `NO_COLOR` is set to anything (no-color.org). */
export const colourFor = (stream: Screen, env: Environment) =>
  stream.isTTY === true && (env.NO_COLOR === undefined || env.NO_COLOR === "")

/** How a table looks on this stream. */
export const lookOf = (stream: Screen, env: Environment): TableLook => ({
  width: widthOf(stream, env),
  colour: colourFor(stream, env)
})

const draw = (
  columns: ReadonlyArray<Column>,
  rows: ReadonlyArray<ReadonlyArray<string>>,
  widths?: ReadonlyArray<number>
) => {
  const table = new Table({
    head: columns.map((column) => column.header),
    colAligns: columns.map((column) => column.align ?? "left"),
    style: { head: [], border: [], compact: true },
    ...(widths === undefined ? {} : { colWidths: [...widths], wordWrap: true, wrapOnWordBoundary: true })
  })
  for (const row of rows) table.push([...row])
  return table.toString()
}

/** Each column's drawn width (its padding included), read off the top border. */
const drawnWidths = (text: string) => (text.split("\n")[0] ?? "").slice(1, -1).split("┬").map((part) => part.length)

const GREY = (text: string) => `\u001b[90m${text}\u001b[39m`
const CYAN = (text: string) => `\u001b[36m${text}\u001b[39m`
const BORDERS = /[─│┌┐└┘├┤┬┴┼]+/g

/**
 * The drawn table with grey borders and a cyan header. Painted here, not by the table library, whose colours
 * follow its own guess at the terminal: whether to colour is `colourFor`'s decision alone.
 */
const painted = (text: string) => {
  const lines = text.split("\n")
  const headerEnd = lines.findIndex((line, index) => index > 0 && line.startsWith("├"))
  return lines.map((line, index) => {
    if (index === 0 || headerEnd === -1 || index >= headerEnd) return line.replace(BORDERS, GREY)
    return line.split("│").map((cell) => (cell.trim() === "" ? cell : cell.replace(/\S(.*\S)?/, CYAN))).join(GREY("│"))
  }).join("\n")
}

/** The drawn line's width: the columns plus one border each and the last. */
const lineWidth = (widths: ReadonlyArray<number>) => widths.reduce((sum, each) => sum + each, 0) + widths.length + 1

/** `widths` narrowed, the widest first, each down to its floor, until the line fits `width` or none can narrow more. */
const narrowed = (widths: ReadonlyArray<number>, floors: ReadonlyArray<number>, width: number) => {
  const result = [...widths]
  for (let excess = lineWidth(result) - width; excess > 0; excess--) {
    let widest = -1
    for (const [index, each] of result.entries()) {
      if (each > floors[index]! && (widest === -1 || each > result[widest]!)) widest = index
    }
    if (widest === -1) break
    result[widest]!--
  }
  return result
}

/** The floors of the wrapping columns (never below `least` nor their header); the others' are `others`. */
const floorsOf = (columns: ReadonlyArray<Column>, widths: ReadonlyArray<number>, least: number, others: (width: number) => number) =>
  columns.map((column, index) =>
    column.wraps === true
      ? Math.min(widths[index]!, Math.max(least, column.header.length + 2))
      : column.whole === true
      ? widths[index]!
      : others(widths[index]!)
  )

/** The table with a rule above its last `height` lines of rows (the totals row, wrapped or not). */
const withTotalsRule = (text: string, height: number) => {
  const lines = text.split("\n")
  const top = lines[0] ?? ""
  const rule = top.replace("┌", "├").replace("┐", "┤").replaceAll("┬", "┼")
  const at = lines.length - 1 - height
  return [...lines.slice(0, at), rule, ...lines.slice(at)].join("\n")
}

/**
 * The table as text: as wide as its content when that fits; else its wrapping columns narrowed, then its
 * droppable columns left out, the highest `dropOrder` first, until it fits. When nothing more can go, every
 * column is narrowed, the widest first (the wrapping ones down to `MIN_SQUEEZED`, the others down to
 * `MIN_CUT`, an id never): text wraps at its spaces and a word longer than its column is cut with "…". Only a width too
 * narrow for those floors gets a wider table.
 */
export const renderTable = (spec: TableSpec, look: TableLook): string => {
  let columns = spec.columns.map((column, index) => ({ column, index }))
  const pick = (row: ReadonlyArray<string>) => columns.map(({ index }) => row[index] ?? "")
  const totals = spec.totals
  for (;;) {
    const rows = [...spec.rows, ...(totals === undefined ? [] : [totals])].map(pick)
    const shown = columns.map(({ column }) => column)
    const natural = drawnWidths(draw(shown, rows))
    const limit = look.width ?? lineWidth(natural)
    const wrapped = narrowed(natural, floorsOf(shown, natural, MIN_WRAPPED, (width) => width), limit)
    const droppable = columns.filter(({ column }) => column.dropOrder !== undefined)
    if (lineWidth(wrapped) > limit && droppable.length > 0) {
      const next = droppable.reduce((high, each) => (each.column.dropOrder! > high.column.dropOrder! ? each : high))
      columns = columns.filter((each) => each !== next)
      continue
    }
    const fit = narrowed(wrapped, floorsOf(shown, wrapped, MIN_SQUEEZED, (width) => Math.min(width, MIN_CUT)), limit)
    const text = draw(shown, rows, fit)
    const paint = (drawn: string) => (look.colour ? painted(drawn) : drawn)
    if (totals === undefined || spec.rows.length === 0) return paint(text)
    // The totals row may wrap too: its height is what it adds to the table.
    const height = text.split("\n").length - draw(shown, rows.slice(0, -1), fit).split("\n").length
    return paint(withTotalsRule(text, height))
  }
}
