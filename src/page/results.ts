/**
 * The Results view of one run: the blind gate first (blindVote.ts), then its verdict, its repeats, every
 * model of its start beside Claude (that thread only), and the report's sections (resultsSections.ts).
 */
import { DIMENSIONS } from "../domain/review/dimensions.js"
import { AUTHOR_LABELS } from "../domain/report/report.js"
import { messageOf, postRaw } from "./client.js"
import { callTool } from "./client.js"
import { byId, h, labelScrollRegions, notice } from "./dom.js"
import { renderDiff } from "./diffView.js"
import { formatDate, formatDuration } from "./format.js"
import { renderMarkdown } from "./markdown.js"
import { pageHost, section, read } from "./pageHost.js"
import { blindGate, isRevealed, markRevealed, yourVoteSection } from "./blindVote.js"
import {
  candidateOf,
  type CandidateView,
  caveatsList,
  checksSection,
  comparabilitySection,
  compareLower,
  costNote,
  costText,
  cutNotes,
  evaluationSection,
  judgesSplitBadge,
  mark,
  notLikeForLikeBadge,
  possibleLeakCallout,
  reasonsSection,
  repeatsResults,
  secondJudgeSection,
  spendSection,
  taskSourceSection,
  tokenSection
} from "./resultsSections.js"
import { repeatsOfRun } from "./runView.js"
import { byModel, loadReports, sideBySideTable, startSiblings } from "./sideBySide.js"
import { reportVerdictText } from "./verdicts.js"


/** The newest completed run this page knows of: its own runs first, then the controller's. */
export function latestCompleted(): string | null {
  const { app, draft } = pageHost()
  const own = draft.run_ids.find((id) => app.runs[id]?.status === "completed")
  if (own !== undefined) return own
  return app.state?.recent_runs.find((run) => run.status === "completed")?.run_id ?? null
}

export async function openResults(id: string, focus?: boolean): Promise<void> {
  const { app, draft } = pageHost()
  draft.results_run = id
  pageHost().showStep("results", focus !== false)
  // Before who is who: the offer to judge the run blind, unless it was revealed already. The report holds the
  // verdict, so it is fetched only once the gate has passed.
  if (app.reports[id] === undefined && !isRevealed(id)) byId("results-body").replaceChildren(h("p", { className: "muted", role: "status", text: "Loading the results…" }))
  if (draft.results_run === id && (await blindGate(id)) && draft.results_run === id) await showRevealed(id)
}

/** The report of a run whose verdict may be shown (fetched now if this page has not yet), then its results. */
export async function showRevealed(id: string): Promise<void> {
  const { app, draft } = pageHost()
  const body = byId("results-body")
  if (draft.run_ids.length > 1 && draft.run_ids.includes(id)) await loadReports(startSiblings(id, draft.run_ids))
  if (app.reports[id] === undefined) {
    body.replaceChildren(h("p", { className: "muted", role: "status", text: "Loading the report…" }))
    try {
      const result = await callTool("get_report", { run_id: id })
      if ("report" in result) app.reports[id] = result.report
    } catch (error) {
      if (draft.results_run === id) body.replaceChildren(h("p", { className: "error", text: `Could not load the report: ${messageOf(error)}` }))
      return
    }
  }
  if (draft.results_run === id) renderResults(id)
}

export async function download(id: string, format: "json" | "html") {
  try {
    const response = await postRaw("/api/download", { run_id: id, format })
    const match = /filename="([^"]+)"/.exec(response.headers.get("Content-Disposition") ?? "")
    pageHost().saveBlob(await response.blob(), match?.[1] ?? `codex-replay-${id}-report.${format}`)
  } catch (error) {
    notice(`Download failed: ${messageOf(error)}`)
  }
}

const filesText = (candidate: CandidateView) =>
  (candidate.changed_files ?? []).map((f) => `${f.path} (+${f.additions ?? 0}/−${f.deletions ?? 0})`).join(", ") || "none"

const summarySection = (codex: CandidateView, claude: CandidateView, note: HTMLElement | null) => {
  const elapsed = [compareLower(codex.elapsed_ms, claude.elapsed_ms), compareLower(claude.elapsed_ms, codex.elapsed_ms)] as const
  const cost = [compareLower(codex.cost?.usd, claude.cost?.usd), compareLower(claude.cost?.usd, codex.cost?.usd)] as const
  const cell = (text: string, comparison: Parameters<typeof mark>[0]) => h("td", {}, text, " ", mark(comparison))
  return section("Summary", h("div", { className: "table-scroll" }, h("table", { className: "summary-table" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, h("span", { className: "visually-hidden", text: "Measure" })), h("th", { scope: "col", text: AUTHOR_LABELS.codex }), h("th", { scope: "col", text: AUTHOR_LABELS.claude }))),
    h("tbody", {},
      h("tr", {}, h("th", { scope: "row", text: "Model" }), h("td", { className: "mono", text: codex.model ?? "—" }), h("td", { className: "mono", text: claude.model ?? "—" })),
      h("tr", { className: "elapsed-row" }, h("th", { scope: "row", text: "Elapsed time" }), cell(formatDuration(codex.elapsed_ms), elapsed[0]), cell(formatDuration(claude.elapsed_ms), elapsed[1])),
      h("tr", { className: "cost-row" }, h("th", { scope: "row", text: "Cost" }), cell(costText(codex.cost), cost[0]), cell(costText(claude.cost), cost[1])),
      h("tr", {}, h("th", { scope: "row", text: "Changed files" }), h("td", { text: filesText(codex) }), h("td", { text: filesText(claude) }))))),
  h("p", { className: "hint", text: "Lower elapsed time and cost are better." }), note)
}

/** Which run's details each model of the start shows: one button per run, repeats named. */
const runSwitch = (id: string, runs: ReadonlyArray<string>) => {
  const { app } = pageHost()
  return h("div", { className: "run-switch", role: "group", "aria-label": "Details per model" }, runs.map((runId) => {
    const run = app.runs[runId]
    const model = candidateOf(app.reports[runId] ?? {}, "codex").model ?? run?.model ?? runId
    const repeat = run?.repeat === undefined ? "" : ` (repeat ${run.repeat.index})`
    return h("button", { type: "button", className: runId === id ? "primary small" : "secondary small", "aria-pressed": runId === id ? "true" : "false", text: `${model}${repeat}`, onClick: () => void openResults(runId, false) })
  }))
}

export function renderResults(id: string) {
  const { app, draft } = pageHost()
  const report = app.reports[id]
  const body = byId("results-body")
  body.replaceChildren()
  if (report === undefined) return
  const codex = candidateOf(report, "codex")
  const claude = candidateOf(report, "claude")
  const completedRuns = byModel(startSiblings(id, draft.run_ids.filter((runId) => app.reports[runId] !== undefined || app.runs[runId]?.status === "completed")))
  if (completedRuns.length > 1) {
    // The table shows every model's verdict: each of its runs is revealed too.
    for (const runId of completedRuns) if (!isRevealed(runId)) void markRevealed(runId, null)
    body.append(sideBySideTable(completedRuns, (runId) => void openResults(runId, false)) ?? "", runSwitch(id, completedRuns))
  }
  body.append(h("div", { className: `verdict verdict-${report.winner ?? "inconclusive"}` },
    h("p", { className: "verdict-headline" }, h("span", { id: "verdict", text: reportVerdictText(report) }), " ", notLikeForLikeBadge(report), " ", judgesSplitBadge(report)),
    possibleLeakCallout(report),
    caveatsList(report, "verdict-caveats"),
    h("p", { className: "muted mono", text: `${report.run_id ?? id} · ${report.thread_id ?? ""} · ${formatDate(report.generated_at)}` })))
  const repeats = repeatsResults(repeatsOfRun.get(id) ?? report.repeats)
  if (repeats !== null) body.append(repeats)
  const yours = yourVoteSection(id, report, DIMENSIONS)
  if (yours !== null) body.append(yours)
  body.append(h("div", { className: "actions" },
    h("button", { type: "button", className: "secondary", id: "download-json", text: "Download JSON", onClick: () => void download(id, "json") }),
    h("button", { type: "button", className: "secondary", id: "download-html", text: "Download HTML", onClick: () => void download(id, "html") })))
  body.append(summarySection(codex, claude, costNote(report)))
  for (const shown of [spendSection(report), comparabilitySection(report), checksSection(report)]) if (shown !== null) body.append(shown)
  body.append(section("Evaluation", evaluationSection(report.evaluation)))
  const secondJudge = secondJudgeSection(report)
  if (secondJudge !== null) body.append(secondJudge)
  const reasons = reasonsSection(report)
  if (reasons !== null) body.append(reasons)
  const tokens = tokenSection(codex, claude)
  if (tokens !== null) body.append(tokens)
  body.append(section("Original request", h("pre", { className: "response prose", tabindex: "0", "aria-label": "Original request", text: report.original_request ?? "" })))
  const source = taskSourceSection(report)
  if (source !== null) body.append(source)
  body.append(section("Final responses", h("div", { className: "side-by-side" },
    h("div", {}, h("h4", { text: "Codex final response" }), cutNotes(codex, ["final_response"], "codex"), renderMarkdown(codex.final_response)),
    h("div", {}, h("h4", { text: "Claude final response" }), cutNotes(claude, ["final_response"], "claude"), renderMarkdown(claude.final_response),
      !claude.final_response && claude.last_substantive_reply
        ? [h("h4", { text: "Last substantive reply (the last turn has no final response)" }), h("pre", { className: "response", tabindex: "0", "aria-label": "Claude's last substantive reply", id: "claude-last-substantive", text: claude.last_substantive_reply })]
        : null))))
  body.append(section("Patches", h("div", { className: "side-by-side patches" },
    h("div", {}, h("h4", { text: "Codex patch" }), cutNotes(codex, ["patch", "file", "changed_files"], "codex"), renderDiff(codex.patch, "Codex patch")),
    h("div", {}, h("h4", { text: "Claude patch" }), cutNotes(claude, ["patch", "file", "changed_files"], "claude"), renderDiff(claude.patch, "Claude patch")))))
  const note = read(report.about_review, "note")
  if (typeof note === "string" && note !== "") body.append(section("About this review", h("p", { className: "about", text: note })))
  labelScrollRegions(body)
}
