/**
 * The Runs view: every run of the run root, newest first, filtered and paged (`list_runs`), with the
 * selection of completed runs a portfolio compares. Its address is `/runs?query=&status=&winner=`.
 */
import type { RunList, RunSummary, ToolPayloadInput } from "../domain/contracts/index.js"
import { callTool, messageOf } from "./client.js"
import { byId, controlById, type Child, h, labelScrollRegions } from "./dom.js"
import { formatDate, formatTokenCount } from "./format.js"
import type { RunsFilters } from "./router.js"
import { rememberTitles, threadCell } from "./titles.js"

export const RUNS_PAGE = 50

/** What the Runs view needs from the rest of the page. */
export interface RunsListHost {
  /** A completed run whose verdict the page may not show yet. */
  readonly stillBlind: (run: RunSummary) => boolean
  /** The cell offered in place of a verdict not revealed yet. */
  readonly notRevealedCell: (run: RunSummary, open: () => void) => HTMLElement
  /** The verdict cell's words of a run whose verdict may be shown. */
  readonly verdictText: (run: RunSummary) => string
  /** The checks' sentence under a verdict. */
  readonly checksNote: (checks: string | null | undefined) => Child
  readonly statusBadge: (status: string) => HTMLElement
  /** Opens a run of the list with the runs started beside it (its start group, among those listed). */
  readonly openRun: (run: RunSummary, siblings: ReadonlyArray<string>) => void
  /** The filters changed: the address follows them. */
  readonly filtersChanged: () => void
  /** Compares the selected runs (a portfolio). */
  readonly compare: (runIds: ReadonlyArray<string>) => Promise<void>
}

const state: { offset: number; result: RunList | null; token: number; readonly selected: Set<string> } = {
  offset: 0,
  result: null,
  token: 0,
  selected: new Set()
}

const query = () => controlById("runs-query", HTMLInputElement)
const status = () => controlById("runs-status", HTMLSelectElement)
const winner = () => controlById("runs-winner", HTMLSelectElement)
const button = (id: string) => {
  const element = byId(id)
  if (!(element instanceof HTMLButtonElement)) throw new Error(`#${id} is not a button.`)
  return element
}

/** The filters as the controls hold them. */
export const runsFilters = (): RunsFilters => ({ query: query().value.trim(), status: status().value, winner: winner().value })

/** Sets the controls to an address's filters, from the first page. */
export const setRunsFilters = (filters: RunsFilters) => {
  query().value = filters.query
  status().value = filters.status
  winner().value = filters.winner
  state.offset = 0
}

/** The runs selected for a portfolio, on any page or filter. */
export const selectedRuns = (): ReadonlyArray<string> => [...state.selected]

/** Who supervises a run, in words (the Runs view and the Run view). */
export const supervisionText = (run: { readonly supervision: RunSummary["supervision"] }) => {
  const s = run.supervision
  if (s.read_only) return `Running in controller ${s.controller_session_id}${s.controller_url ? ` (${s.controller_url})` : ""}; read-only here.`
  return s.this_controller ? "This controller" : "Earlier controller"
}

export function renderPortfolioActions() {
  const count = state.selected.size
  const compare = button("portfolio-compare")
  compare.disabled = count === 0
  compare.textContent = count === 0 ? "Compare selected" : `Compare ${count} selected run${count === 1 ? "" : "s"}`
  button("portfolio-clear").disabled = count === 0
}

/** A completed run can be ticked for the portfolio; the selection outlives pages and filters. */
const compareBox = (run: RunSummary) => {
  if (run.status !== "completed") return h("span", { className: "muted", text: "—" })
  return h("input", {
    type: "checkbox",
    className: "compare-run",
    checked: state.selected.has(run.run_id),
    "aria-label": `Compare ${run.model ?? ""} ${run.run_id}`,
    onChange: (event) => {
      if (event.target instanceof HTMLInputElement && event.target.checked) state.selected.add(run.run_id)
      else state.selected.delete(run.run_id)
      renderPortfolioActions()
    }
  })
}

const siblingsOf = (run: RunSummary) =>
  (state.result?.runs ?? []).filter((other) => run.start_group !== null && other.start_group === run.start_group).map((other) => other.run_id)

/** The tokens of the run's calls, input (with the cache) and output; `—` in runs recorded before tokens were. */
const tokensText = (run: RunSummary) =>
  run.tokens === undefined ? "—" : `${formatTokenCount(run.tokens.input)} in · ${formatTokenCount(run.tokens.output)} out`

const runsRow = (host: RunsListHost, run: RunSummary, verdictCell: HTMLElement) => {
  const label = run.report_ready ? "Open results" : "Open run"
  return h("tr", { "data-run-id": run.run_id },
    h("td", {}, compareBox(run)),
    h("td", {}, h("time", { datetime: run.started_at, text: formatDate(run.started_at) })),
    threadCell(run.thread_id ?? "—", run.thread_title ?? null),
    h("td", { className: "mono", text: run.model ?? "—" }),
    h("td", { className: "num", text: tokensText(run) }),
    h("td", {}, host.statusBadge(run.status), run.status === "running" ? ` ${run.phase_label || ""}` : ""),
    verdictCell,
    h("td", { className: "muted", text: supervisionText(run) }),
    h("td", {}, h("button", {
      type: "button",
      className: "secondary small",
      text: label,
      "aria-label": `${label}: ${run.model ?? ""} ${run.run_id}`,
      onClick: () => host.openRun(run, siblingsOf(run))
    })))
}

export function renderRunsView(host: RunsListHost) {
  const result = state.result ?? { runs: [], total: 0, offset: 0, limit: RUNS_PAGE, has_more: false, run_root: "", diagnostics: [] }
  const body = byId("runs-rows")
  const summary = byId("runs-summary")
  body.replaceChildren()
  summary.textContent = result.total === 0
    ? `No runs match in ${result.run_root || "the run root"}.`
    : `Runs ${result.offset + 1}–${result.offset + result.runs.length} of ${result.total}, newest first.`
  if (result.diagnostics.length > 0) {
    summary.textContent += ` ${result.diagnostics.length} run(s) left out, their state is damaged: ${result.diagnostics.join(" ")}`
  }
  for (const run of result.runs) {
    const open = () => host.openRun(run, siblingsOf(run))
    const cell = host.stillBlind(run) ? host.notRevealedCell(run, open) : h("td", {}, host.verdictText(run), host.checksNote(run.checks))
    body.append(runsRow(host, run, cell))
  }
  button("runs-prev").disabled = result.offset === 0
  button("runs-next").disabled = !result.has_more
  labelScrollRegions(byId("step-runs"))
  renderPortfolioActions()
}

export async function loadRunsView(host: RunsListHost) {
  const token = ++state.token
  const filters = runsFilters()
  const args: { -readonly [K in keyof ToolPayloadInput<"list_runs">]: ToolPayloadInput<"list_runs">[K] } = { offset: state.offset, limit: RUNS_PAGE }
  if (filters.query) args.query = filters.query
  if (filters.status) args.status = filters.status
  if (filters.winner) args.winner = filters.winner
  byId("runs-summary").textContent = "Loading runs…"
  try {
    const result = await callTool("list_runs", args)
    if (token !== state.token) return
    state.result = result
    rememberTitles(result.runs.map((run) => [run.thread_id, run.thread_title] as const))
    renderRunsView(host)
  } catch (error) {
    if (token === state.token) byId("runs-summary").textContent = `Could not list runs: ${messageOf(error)}`
  }
}

export function wireRunsView(host: RunsListHost) {
  let timer: ReturnType<typeof setTimeout> | undefined
  const reload = () => {
    host.filtersChanged()
    state.offset = 0
    clearTimeout(timer)
    timer = setTimeout(() => void loadRunsView(host), 200)
  }
  query().addEventListener("input", reload)
  status().addEventListener("change", reload)
  winner().addEventListener("change", reload)
  byId("runs-prev").addEventListener("click", () => {
    state.offset = Math.max(0, state.offset - RUNS_PAGE)
    void loadRunsView(host)
  })
  byId("runs-next").addEventListener("click", () => {
    state.offset += RUNS_PAGE
    void loadRunsView(host)
  })
  byId("portfolio-compare").addEventListener("click", () => void host.compare(selectedRuns()))
  byId("portfolio-clear").addEventListener("click", () => {
    state.selected.clear()
    for (const box of document.querySelectorAll<HTMLInputElement>(".compare-run")) box.checked = false
    renderPortfolioActions()
  })
}
