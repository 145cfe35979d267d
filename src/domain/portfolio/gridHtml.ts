/**
 * The grid as HTML (no script): the statistics above it, filters for losses, splits and verdicts not
 * like-for-like as CSS-only radio buttons (they work in a saved file under the report's
 * Content-Security-Policy), and one table of threads × models whose cells say their verdict in words and
 * in colour and link to the run. The page and `portfolio.html` render the same function.
 */
import type { Grid, GridRow, GridRun } from "../contracts/grid.js"
import { caveatLabels } from "../report/caveats.js"
import { escapeHtml } from "../report/format.js"

export const GRID_CSS = `
.grid-statistics{margin:8px 0 12px;padding-left:18px}
.grid-filters{border:1px solid var(--line);border-radius:6px;margin:8px 0;padding:6px 10px}.grid-filter{display:inline-block;margin-right:14px;white-space:nowrap}
.grid-scroll{overflow-x:auto;container-type:inline-size}.grid-table caption{max-width:100cqi;text-align:left}.grid-table td{min-width:150px}.grid-table .grid-run{display:block;padding:4px 6px;margin:2px 0;border-left:6px solid var(--line);border-radius:3px;background:var(--panel);color:var(--ink)}
.grid-run.tone-win{border-left-color:var(--codex);background:#e8f0fd}.grid-run.tone-loss{border-left-color:var(--claude);background:#fbeee2}
.grid-run.tone-tie{border-left-color:#8a96a3}.grid-run.tone-none{border-left-color:#6b21a8;background:#f5edfc}
.grid-run.tone-failed{border-left-color:var(--bad);background:var(--del-bg)}.grid-run.tone-hidden{border-left-color:#8a96a3;font-style:italic}
.grid-run .grid-note{display:block;font-size:12px;color:var(--muted)}.grid-empty{color:var(--muted)}
.grid-view:has(.grid-filter-loss:checked) tbody tr:not(.row-loss),.grid-view:has(.grid-filter-split:checked) tbody tr:not(.row-split),
.grid-view:has(.grid-filter-nlfl:checked) tbody tr:not(.row-nlfl){display:none}
@media print{.grid-filters{display:none}.grid-run{-webkit-print-color-adjust:exact;print-color-adjust:exact}}
`

export interface GridHtmlOptions {
  /** Distinguishes the ids of this grid's controls from any other grid's on the same page. */
  readonly idPrefix: string
  /** Where a run's cell links to (`run.address` in the page, the embedded report in a saved file); null: no link. */
  readonly runHref: (run: GridRun) => string | null
  /** Besides the cell's own link: the run's address in a controller (a saved file's "open in the controller"). */
  readonly controllerHref?: ((run: GridRun) => string | null) | undefined
}

const runBlock = (run: GridRun, options: GridHtmlOptions) => {
  const notes = [
    ...(run.caveats.length === 0 ? [] : [caveatLabels(run.caveats)]),
    ...(run.checks === null ? [] : [run.checks])
  ].map((note) => `<span class="grid-note">${escapeHtml(note)}</span>`).join("")
  const href = options.runHref(run)
  const text = escapeHtml(run.text)
  const main = href === null ? `<span>${text}</span>` : `<a href="${escapeHtml(href)}">${text}</a>`
  const controller = options.controllerHref?.(run) ?? null
  const open = controller === null ? "" : `<span class="grid-note"><a href="${escapeHtml(controller)}">open in the controller</a></span>`
  return `<span class="grid-run tone-${run.tone}">${main}${notes}${open}</span>`
}

const rowClasses = (row: GridRow) =>
  [row.loss ? "row-loss" : "", row.split ? "row-split" : "", row.not_like_for_like ? "row-nlfl" : ""].filter((name) => name !== "").join(" ")

const threadCell = (row: GridRow) => {
  const id = row.thread_id === null ? "—" : row.thread_id
  return row.title === null
    ? `<th scope="row"><code>${escapeHtml(id)}</code></th>`
    : `<th scope="row">${escapeHtml(row.title)}<br><code class="muted">${escapeHtml(id)}</code></th>`
}

const gridRow = (row: GridRow, options: GridHtmlOptions) => {
  const classes = rowClasses(row)
  const cells = row.cells.map((cell) =>
    `<td>${cell.runs.length === 0 ? `<span class="grid-empty">Not replayed</span>` : cell.runs.map((run) => runBlock(run, options)).join("")}</td>`
  ).join("")
  return `<tr${classes === "" ? "" : ` class="${classes}"`}>${threadCell(row)}${cells}</tr>`
}

const filters = (grid: Grid, prefix: string) => {
  const choice = (key: string, label: string, count: number | null, checked = false) => {
    const id = `${prefix}-filter-${key}`
    return `<span class="grid-filter"><input type="radio" name="${prefix}-filter" id="${id}" class="grid-filter-${key}"${checked ? " checked" : ""}><label for="${id}">${
      escapeHtml(count === null ? label : `${label} (${count})`)
    }</label></span>`
  }
  return `<fieldset class="grid-filters"><legend>Show threads</legend>${choice("all", "All", grid.rows.length, true)}${choice("loss", "With a loss", grid.filters.loss)}${
    choice("split", "Judges split", grid.filters.split)
  }${choice("nlfl", "Not like-for-like", grid.filters.not_like_for_like)}</fieldset>`
}

/** The statistics above the grid, the filters and the grid itself, as one `<div class="grid-view">`. */
export const renderGridHtml = (grid: Grid, options: GridHtmlOptions): string => {
  const statistics = `<ul class="grid-statistics">${grid.statistics.map((figures) => `<li>${escapeHtml(figures.sentence)}</li>`).join("")}</ul>`
  const head = `<thead><tr><th scope="col">Thread</th>${grid.models.map((model) => `<th scope="col">${escapeHtml(model)}</th>`).join("")}</tr></thead>`
  const table = `<div class="grid-scroll"><table class="grid-table"><caption class="hint">Each cell: the verdict of Codex (that model) against Claude on that thread, its caveats and its check outcome</caption>${head}<tbody>${
    grid.rows.map((row) => gridRow(row, options)).join("")
  }</tbody></table></div>`
  return `<div class="grid-view" id="${escapeHtml(options.idPrefix)}">${statistics}${filters(grid, escapeHtml(options.idPrefix))}${table}</div>`
}
