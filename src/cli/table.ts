/**
 * The command line's tables (`threads`, `runs`, `batch`): a header, aligned columns, a totals row under a
 * rule, and the terminal's width respected by wrapping the columns that may wrap (titles, verdicts) and
 * then leaving out the columns that may go. Colour only on a terminal and without `NO_COLOR`.
 */
import Table from "cli-table3"
import { formatInteger } from "../domain/report/format.js"

export interface Column {
  readonly header: string
  readonly align?: "left" | "right"
  /** May be narrowed, its text wrapped, to fit the width. */
  readonly wraps?: boolean
  /** May be left out when the table cannot fit otherwise; the higher first. */
  readonly dropOrder?: number
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

/** A wrapping column is never narrowed below this (padding included), nor below its header. */
const MIN_WRAPPED = 12

/** Dollars always with two decimals ($0.23, $1,234.50); below a cent "<$0.01"; unknown "-". */
export const usd = (value: number | null | undefined): string => {
  if (value === null || value === undefined || !Number.isFinite(value)) return "-"
  if (value > 0 && value < 0.005) return "<$0.01"
  return `$${value.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`
}

/** A token count with thousands separators; unknown "-". */
export const tokens = (value: number | null | undefined): string =>
  value === null || value === undefined || !Number.isFinite(value) ? "-" : formatInteger(value)

/** What a table reads of the stream it is written to. */
export interface Screen {
  readonly isTTY?: boolean
  readonly columns?: number
}

/** The width of the terminal a stream writes to: its columns, else `COLUMNS`, else none (a pipe or a file). */
export const widthOf = (stream: Screen, env: NodeJS.ProcessEnv = process.env): number | undefined => {
  if (stream.isTTY === true && typeof stream.columns === "number" && stream.columns > 0) return stream.columns
  const columns = Number(env.COLUMNS)
  return Number.isInteger(columns) && columns > 0 ? columns : undefined
}

/** Colour only on a terminal, and never when `NO_COLOR` is set to anything (no-color.org). */
export const colourFor = (stream: Screen, env: NodeJS.ProcessEnv = process.env) =>
  stream.isTTY === true && (env.NO_COLOR === undefined || env.NO_COLOR === "")

/** How a table looks on this stream. */
export const lookOf = (stream: Screen, env: NodeJS.ProcessEnv = process.env): TableLook => ({
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

/** Widths that fit `width` by narrowing the wrapping columns, the widest first; undefined when they cannot. */
const fitted = (columns: ReadonlyArray<Column>, natural: ReadonlyArray<number>, width: number) => {
  const widths = [...natural]
  const floor = columns.map((column, index) =>
    column.wraps === true ? Math.min(natural[index]!, Math.max(MIN_WRAPPED, column.header.length + 2)) : natural[index]!
  )
  // The drawn line: the columns plus one border each and the last.
  let excess = widths.reduce((sum, each) => sum + each, 0) + widths.length + 1 - width
  while (excess > 0) {
    let widest = -1
    for (const [index, each] of widths.entries()) {
      if (each > floor[index]! && (widest === -1 || each > widths[widest]!)) widest = index
    }
    if (widest === -1) return undefined
    widths[widest]!--
    excess--
  }
  return widths
}

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
 * droppable columns left out, the highest `dropOrder` first, until it fits (or nothing more can go).
 */
export const renderTable = (spec: TableSpec, look: TableLook): string => {
  let columns = spec.columns.map((column, index) => ({ column, index }))
  const pick = (row: ReadonlyArray<string>) => columns.map(({ index }) => row[index] ?? "")
  const totals = spec.totals
  for (;;) {
    const rows = [...spec.rows, ...(totals === undefined ? [] : [totals])].map(pick)
    const natural = draw(columns.map(({ column }) => column), rows)
    const widths = drawnWidths(natural)
    const tooWide = look.width !== undefined && widths.reduce((sum, each) => sum + each, 0) + widths.length + 1 > look.width
    const fit = !tooWide || look.width === undefined ? widths : fitted(columns.map(({ column }) => column), widths, look.width)
    const droppable = columns.filter(({ column }) => column.dropOrder !== undefined)
    if (fit === undefined && droppable.length > 0) {
      const next = droppable.reduce((high, each) => (each.column.dropOrder! > high.column.dropOrder! ? each : high))
      columns = columns.filter((each) => each !== next)
      continue
    }
    const shown = columns.map(({ column }) => column)
    const text = draw(shown, rows, fit ?? widths)
    const paint = (drawn: string) => (look.colour ? painted(drawn) : drawn)
    if (totals === undefined || spec.rows.length === 0) return paint(text)
    // The totals row may wrap too: its height is what it adds to the table.
    const height = text.split("\n").length - draw(shown, rows.slice(0, -1), fit ?? widths).split("\n").length
    return paint(withTotalsRule(text, height))
  }
}
