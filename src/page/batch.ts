/**
 * The batch view (`/batches/<id>`): the batch's progress and cost, its threads × models grid (`get_batch`'s
 * `grid`) with the statistics above it and its filters, the CSV of the grid, and every replay one per row.
 */
import type { BatchSummary, Grid } from "../domain/contracts/index.js"
import { gridCsv } from "../domain/portfolio/gridCsv.js"
import { caveatLabels, caveatsBesideVerdict, verdictLine } from "../domain/report/caveats.js"
import { formatUsd } from "../domain/report/format.js"
import { visible } from "../domain/report/visible.js"
import { callTool, messageOf } from "./client.js"
import { $, byId, h, labelScrollRegions, notice } from "./dom.js"
import { downloadFromController, saveBlob } from "./download.js"
import { formatDuration } from "./format.js"
import { gridElement } from "./gridView.js"
import { learnTitles, rememberTitles, threadCell, threadName, titleOf } from "./titles.js"

export const POLL_MS = 1000

type BatchItem = BatchSummary["items"][number]

/** What the batch view needs from the rest of the page. */
export interface BatchViewHost {
  readonly statusBadge: (status: string) => HTMLElement
  /** A completed run whose verdict the page may not show yet. */
  readonly stillBlind: (run: { readonly run_id: string; readonly blind?: boolean | undefined }) => boolean
  /** The cell offered in place of a verdict not revealed yet. */
  readonly notRevealedCell: (run: { readonly run_id: string; readonly model: string | null }, open: () => void) => HTMLElement
  /** Opens a run's Results (a completed run) or its card in the Run view. */
  readonly openResults: (runId: string, focus: boolean) => void
  readonly followRun: (runId: string) => void
  /** Opens a run by its address (`/runs/<id>`), as a link of the grid does. */
  readonly openRunAddress: (runId: string) => void
  /** The controller's state changed: its recent runs are read again. */
  readonly refreshState: () => void
}

/** The batch shown (this controller's current one, or the one an address names). */
export const batchView: { id: string | null; summary: BatchSummary | null; grid: Grid | null; timer: ReturnType<typeof setTimeout> | undefined; confirmCancel: boolean } = {
  id: null,
  summary: null,
  grid: null,
  timer: undefined,
  confirmCancel: false
}

const statusWord = (status: BatchSummary["status"]) => ({ running: "Running", finished: "Finished", cancelled: "Cancelled" })[status]

/** " · evaluation $0.090" of a batch's cost so far. */
const batchEvaluationCost = (cost: BatchSummary["cost_usd"]) =>
  cost.evaluation === undefined ? "" : ` · evaluation ${formatUsd(cost.evaluation)}${cost.evaluation_unpriced_runs ? ` (+${cost.evaluation_unpriced_runs} not priced)` : ""}`

export function batchProgressText(summary: BatchSummary) {
  const c = (status: "completed" | "failed" | "cancelled" | "running" | "pending") => summary.counts[status] ?? 0
  const left = summary.estimate_remaining_ms === null ? "estimate after the first replay ends" : `about ${formatDuration(summary.estimate_remaining_ms)} left`
  const note = summary.status_note ? ` ${summary.status_note}` : ""
  return `${statusWord(summary.status)}: ${c("completed") + c("failed") + c("cancelled")} of ${summary.total} replays done (${c("completed")} completed, ${c("failed")} failed, ${c("cancelled")} cancelled), ${c("running")} running, ${c("pending")} pending · ${formatDuration(summary.elapsed_ms)} elapsed${summary.status === "running" ? ` · ${left}` : ""}.${note}`
}

/** What a row's Phase column says: the phase of a running replay only, never a finished one's last phase. */
const phaseText = (item: BatchItem) => (item.error ? item.error : item.status === "running" && item.phase ? item.phase : "—")

export async function pollBatch(host: BatchViewHost) {
  clearTimeout(batchView.timer)
  if (batchView.id === null) return
  try {
    const answer = await callTool("get_batch", { batch_id: batchView.id })
    batchView.summary = answer.batch
    batchView.grid = answer.grid ?? null
    rememberTitles((answer.grid?.rows ?? []).map((row) => [row.thread_id, row.title] as const))
  } catch (error) {
    notice(`Could not read the batch: ${messageOf(error)}`)
  }
  renderBatchView(host)
  if (batchView.summary?.status === "running") batchView.timer = setTimeout(() => void pollBatch(host), POLL_MS)
  // The batch's runs are this controller's: the recent runs list shows them as they start and end.
  host.refreshState()
}

function openBatchRun(host: BatchViewHost, item: BatchItem) {
  if (item.run_id === null) return
  if (item.status === "completed") return host.openResults(item.run_id, true)
  host.followRun(item.run_id)
  document.querySelector(`[data-run-id="${CSS.escape(item.run_id)}"]`)?.scrollIntoView()
}

async function cancelWholeBatch(host: BatchViewHost) {
  batchView.confirmCancel = false
  if (batchView.id === null) return
  try {
    batchView.summary = (await callTool("cancel_batch", { batch_id: batchView.id })).batch
  } catch (error) {
    notice(`Cancel failed: ${messageOf(error)}`)
  }
  void pollBatch(host)
}

function batchCancelControls(host: BatchViewHost, summary: BatchSummary) {
  if (summary.status !== "running") return null
  if (batchView.confirmCancel) {
    return h("div", { className: "confirm", role: "group", "aria-label": "Confirm cancelling the batch" },
      h("span", { text: "Cancel the whole batch? Its replays in progress stop and nothing more starts." }), " ",
      h("button", { type: "button", className: "danger", id: "batch-confirm-cancel", text: "Yes, cancel the batch", onClick: () => void cancelWholeBatch(host) }), " ",
      h("button", { type: "button", className: "secondary", id: "batch-keep", text: "Keep running", onClick: () => {
        batchView.confirmCancel = false
        renderBatchView(host)
        $("batch-cancel")?.focus()
      } }))
  }
  return h("button", { type: "button", className: "danger", id: "batch-cancel", text: "Cancel batch", onClick: () => {
    batchView.confirmCancel = true
    renderBatchView(host)
    $("batch-confirm-cancel")?.focus()
  } })
}

/** The grid as CSV: the portfolio's own file once the batch has one, else the grid so far. */
function downloadGridCsv(summary: BatchSummary, grid: Grid) {
  if (summary.portfolio !== null) {
    void downloadFromController({ portfolio_id: summary.portfolio.portfolio_id, format: "csv" }, `codex-replay-${summary.portfolio.portfolio_id}.csv`)
    return
  }
  saveBlob(new Blob([gridCsv(grid, location.origin)], { type: "text/csv" }), `codex-replay-${summary.batch_id}.csv`)
}

const verdictCell = (host: BatchViewHost, item: BatchItem) => {
  if (item.run_id !== null && host.stillBlind({ run_id: item.run_id, blind: item.blind })) {
    return host.notRevealedCell({ run_id: item.run_id, model: item.model }, () => openBatchRun(host, item))
  }
  const caveats = item.caveats ?? []
  const labels = caveatLabels(caveatsBesideVerdict(caveats))
  return h("td", {}, item.winner ? verdictLine(item.winner, caveats) : "—", labels ? ` · ${labels}` : "",
    typeof item.checks === "string" ? [h("br"), h("span", { className: "checks-sentence-small", text: visible(item.checks) })] : null)
}

/** A thread by its title (the grid's, as the history names it), its id under it. */
const gridTitle = (threadId: string) => batchView.grid?.rows.find((row) => row.thread_id === threadId)?.title ?? titleOf(threadId)

const itemsTable = (host: BatchViewHost, summary: BatchSummary) =>
  h("div", { className: "table-scroll", "aria-label": "Batch replays (scrolls sideways)" },
    h("table", { className: "batch-table", id: "batch-table" },
      h("thead", {}, h("tr", {}, ["Thread", "Model", "Status", "Phase", "Verdict", "Open"].map((label) => h("th", { scope: "col", text: label })))),
      h("tbody", {}, summary.items.map((item) => h("tr", { "data-thread-id": item.thread_id, "data-model": item.model },
        threadCell(item.thread_id, gridTitle(item.thread_id)),
        h("td", { text: item.model }),
        h("td", {}, host.statusBadge(item.status)),
        h("td", { text: phaseText(item) }),
        verdictCell(host, item),
        h("td", {}, item.run_id !== null && item.status !== "pending"
          ? h("button", { type: "button", className: "secondary small", "data-batch-run": item.run_id, text: item.status === "completed" ? "Results" : "Run", onClick: () => openBatchRun(host, item) })
          : null))))))

const gridSection = (host: BatchViewHost, summary: BatchSummary, grid: Grid) =>
  h("div", { className: "batch-grid", id: "batch-grid-section" },
    h("h3", { text: summary.portfolio === null ? "Threads × models (statistics so far)" : "Threads × models (the portfolio's statistics)" }),
    gridElement(grid, "batch-grid", host.openRunAddress),
    h("div", { className: "actions" },
      h("button", { type: "button", className: "secondary", id: "batch-csv", text: "Download the grid as CSV", onClick: () => downloadGridCsv(summary, grid) }),
      summary.portfolio === null ? null : " ",
      summary.portfolio === null ? null : h("button", { type: "button", className: "secondary", id: "batch-portfolio-html", text: "Download the portfolio page", onClick: () => {
        if (summary.portfolio !== null) void downloadFromController({ portfolio_id: summary.portfolio.portfolio_id, format: "html" }, `codex-replay-${summary.portfolio.portfolio_id}.html`)
      } }),
      summary.portfolio === null ? null : " ",
      summary.portfolio === null ? null : h("a", { id: "batch-portfolio-open", href: `/portfolios/${summary.portfolio.portfolio_id}`, target: "_blank", rel: "noopener", text: "Open the portfolio page" })))

// What the view shows but its clocks: a poll that changes only those updates one line, so the buttons
// under the pointer or the keyboard stay the same elements (as the run cards do).
let batchSignature = ""
export function renderBatchView(host: BatchViewHost) {
  const summary = batchView.summary
  byId("batch-card").hidden = summary === null
  if (summary === null) return
  const body = byId("batch-body")
  const { elapsed_ms: _elapsed, estimate_remaining_ms: _left, ...shown } = summary
  const blocked = summary.blocked.map((entry) => entry.thread_id)
  learnTitles(blocked, () => renderBatchView(host))
  const signature = JSON.stringify([shown, batchView.grid, batchView.confirmCancel, blocked.map((id) => titleOf(id))])
  if (signature === batchSignature && body.childElementCount > 0) {
    byId("batch-progress").textContent = batchProgressText(summary)
    return
  }
  batchSignature = signature
  const active = document.activeElement
  const focused = active !== null && body.contains(active) ? active.id : ""
  const cost = summary.cost_usd
  const parts: ReadonlyArray<HTMLElement | null> = [
    h("p", { className: "mono muted", text: summary.batch_id }),
    h("p", { id: "batch-progress", role: "status", text: batchProgressText(summary) }),
    h("p", { id: "batch-cost", text: `Cost so far: Codex ${formatUsd(cost.codex)}${cost.unpriced_runs ? ` (+${cost.unpriced_runs} not priced)` : ""} · Claude ${formatUsd(cost.claude)} (once per thread)${batchEvaluationCost(cost)} · reviewer ${summary.reviewer_model}` }),
    blocked.length ? h("p", { className: "hint", id: "batch-left-out" }, "Left out as blocked: ", blocked.map((id, index) => [index === 0 ? "" : ", ", threadName(id)])) : null,
    h("div", { className: "actions" }, batchCancelControls(host, summary)),
    summary.portfolio === null ? null : h("p", { id: "batch-portfolio", text: "The batch's portfolio verdict is written: its statistics are above the grid, and its page and CSV can be downloaded below it." }),
    batchView.grid === null ? null : gridSection(host, summary, batchView.grid),
    h("h3", { text: "Every replay" }),
    itemsTable(host, summary)]
  body.replaceChildren(...parts.filter((part): part is HTMLElement => part !== null))
  labelScrollRegions(body)
  if (focused !== "") document.getElementById(focused)?.focus()
}
