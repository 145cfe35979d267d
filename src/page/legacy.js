// The page's views not yet typed, as they were in one script; its module scope is the old script's closure.
// Codex Replay browser controller (SPEC §11). Plain DOM: every node is built with createElement and
// textContent, so thread, candidate and report text can never become markup.
import { $, fromReportHtml, h, labelScrollRegions, nextId, notice, scrollTable } from "./dom.js"
import { clockText, formatDate, formatDuration, formatTime, formatTokenCount, integer, percent, percentText, totalTokens } from "./format.js"
import { renderMarkdown } from "./markdown.js"
import { renderDiff } from "./diffView.js"
import { supervisionText } from "./runsList.js"
import { app, applyPendingModels, draft, PAGE_SIZE, POLL_MS, PROGRESS_MS, rememberConfig, saveDraft, showStep, syncAddress } from "./state.js"
import { boot, openFromRunsView, openRunLink, refreshState, replayAgain } from "./shell.js"
import { batchView, pollBatch } from "./batch.js"
import { batchForm as batch, batchThreadPick, MAX_MODELS } from "./batchForm.js"
import { saveBlob } from "./download.js"
import { comparePortfolio } from "./portfolioPanel.js"
import { callTool, postRaw } from "./client.js"
import { DIMENSIONS } from "../domain/review/dimensions.js"
import { AUTHOR_LABELS } from "../domain/report/report.js"
import { TOKEN_ROWS, totalInput } from "../domain/report/tokens.js"
import { formatUsd } from "../domain/report/format.js"
import { visible } from "../domain/report/visible.js"
import { spendLineText as sharedSpendLineText } from "../domain/spend.js"
import { renderEvaluationTable } from "../domain/report/evaluationTable.js"
import { CHECK_CHANGE_LABELS, CHECK_STATUS_LABELS } from "../domain/checks/outcomes.js"
import { installConfigureHost } from "./configureHost.js"
import { loadThreads, renderThreads } from "./threads.js"
import { defaultConfig, inspect } from "./configure.js"
import { list, secondJudgeChoice, secondJudgeValue, section } from "./configureSections.js"
import { estimateLine, preparedReviewerLine, reviewerChoiceText } from "./prepare.js"
import { caveatLabels as sharedCaveatLabels, caveatsBesideVerdict, tallyCounts as sharedTallyCounts, verdictWords } from "../domain/report/caveats.js"
  const AUTHORS = AUTHOR_LABELS

  // ------------------------------------------------------------------------------------------
  // Thread step

  let searchTimer = null
  /** "split" beside the verdict when the two judges disagree on the winner. */
  function judgesSplitBadge(report) {
    const judge = report.evaluation && report.evaluation.second_judge
    // A verdict that already reads "Split" needs no badge saying it again.
    if (!judge || judge.agreement !== "split" || /^split/i.test(reportVerdictText(report))) return null
    return h("span", { className: "badge badge-warn", id: "judges-split", text: "split" })
  }

  /** The second judge's verdict and its agreement with the first; null when the run asked for none. */
  function secondJudgeSection(report) {
    const judge = report.evaluation && report.evaluation.second_judge
    if (!judge) return null
    const words = { codex: "Codex", claude: "Claude", tie: "a tie", inconclusive: "no verdict" }
    const missing = (judge.evaluation && judge.evaluation.missing_orders) || []
    const agreement = judge.agreement === "split" ? "split: the two judges disagree on the overall winner" : judge.agreement === "agreed" ? "the two judges agree" : "agreement unknown"
    const text = judge.status === "unavailable"
      ? `Did not run: ${judge.reason || "Claude Code could not be started"}.`
      : `Claude${judge.model ? ` (${judge.model})` : ""}: ${words[judge.winner] || judge.winner}${missing.length ? ` (no ballot for the ${missing.join(" and ")} order${missing.length === 1 ? "" : "s"})` : ""}; ${agreement}.`
    const calls = judge.calls || []
    const reviewer = report.about_review && report.about_review.reviewer_model
    const firstWords = ordersDisagreed(report) ? "no verdict (its two orders disagreed)" : words[report.winner] || report.winner
    return section("Second judge (Claude)", h("p", { id: "first-judge-verdict", text: `First judge (Codex${reviewer ? `, ${reviewer}` : ""}): ${firstWords}.` }),
      h("p", { id: "second-judge-verdict", text: text }),
      calls.length ? h("p", { className: "hint", id: "second-judge-cost", text: `${calls.length} call${calls.length === 1 ? "" : "s"} to Claude, ${formatUsd(judge.cost_usd || 0)} as Claude Code reported it.` }) : null,
      judge.evaluation ? evaluationSection(judge.evaluation) : null)
  }

  // Run step

  const isActive = (run) => run && run.status === "running"

  async function pollRuns() {
    clearTimeout(app.pollTimer)
    const ids = draft.run_ids || []
    await Promise.all(ids.map(async (id) => {
      try {
        const result = await callTool("get_run", { run_id: id })
        if (result.run) app.runs[id] = result.run
      } catch (error) {
        app.runs[id] = { ...(app.runs[id] || {}), run_id: id, status: app.runs[id] ? app.runs[id].status : "unknown", load_error: error.message }
      }
    }))
    renderRuns()
    const active = ids.some((id) => isActive(app.runs[id]))
    if (active) app.pollTimer = setTimeout(pollRuns, POLL_MS)
    else if (ids.length) {
      refreshState()
      const done = ids.find((id) => app.runs[id] && app.runs[id].status === "completed")
      if (done && app.step === "run" && !draft.results_run) openResults(done)
    }
  }

  function statusBadge(status) {
    return h("span", { className: `badge status status-${status || "unknown"}`, text: status || "unknown" })
  }

  let runsSignature = ""
  function renderRuns() {
    const body = $("run-body")
    const ids = draft.run_ids || []
    const signature = JSON.stringify(ids.map((id) => {
      const run = app.runs[id] || {}
      return [id, run.status, run.updated_at, (run.run_log || "").length, run.load_error || "", app.confirmCancel === id]
    }))
    if (signature === runsSignature && body.childElementCount > 0) return
    runsSignature = signature
    const active = document.activeElement
    const focusKey = active && body.contains(active) ? active.getAttribute("data-focus-key") : null
    const closed = new Set([...body.querySelectorAll("details[data-key]")].filter((d) => !d.open).map((d) => d.getAttribute("data-key")))
    const opened = new Set([...body.querySelectorAll("details[data-key]")].filter((d) => d.open).map((d) => d.getAttribute("data-key")))
    // Follow the end of a log unless the reader scrolled up in it.
    const scrolled = new Map([...body.querySelectorAll("pre.run-log")]
      .filter((log) => log.scrollTop + log.clientHeight < log.scrollHeight - 8)
      .map((log) => [log.id, log.scrollTop]))
    body.replaceChildren()
    const restore = () => {
      for (const details of body.querySelectorAll("details[data-key]")) {
        if (closed.has(details.getAttribute("data-key"))) details.open = false
        if (opened.has(details.getAttribute("data-key"))) details.open = true
      }
      if (focusKey) {
        const again = body.querySelector(`[data-focus-key="${CSS.escape(focusKey)}"]`)
        if (again) again.focus()
      }
    }
    if (!ids.length) {
      body.append(h("p", { className: "muted", text: "No run started from this page yet." }))
      return
    }
    for (const id of ids) {
      const run = app.runs[id] || { run_id: id }
      const logId = `log-${id}`
      const card = h("article", { className: "run", "data-run-id": id, "aria-label": `Run ${id}` },
        h("div", { className: "run-head" },
          h("div", {}, h("p", { className: "run-model", text: run.model || "…" }), h("p", { className: "muted mono", text: id })),
          h("div", { className: "run-head-right" }, statusBadge(run.status),
            cancelControls(run, id),
            run.status === "completed" ? h("button", { type: "button", className: "primary", text: "View results", "data-results": id, "data-focus-key": `results:${id}`, onClick: () => openResults(id, true) }) : null,
            ["completed", "failed", "cancelled"].includes(run.status) && run.thread_id ? h("button", { type: "button", className: "secondary", text: "Replay again", "data-replay-again": id, "data-focus-key": `again:${id}`, onClick: () => replayAgain(run) }) : null)),
        reviewOrderText(run) ? h("p", { className: "review-order", role: "status", text: reviewOrderText(run) }) : null,
        run.load_error ? h("p", { className: "error", text: run.load_error }) : null,
        run.error ? h("p", { className: "error", text: run.error }) : null,
        run.failure_diagnostic ? h("p", { className: "hint mono", text: Object.entries(run.failure_diagnostic).filter(([, v]) => v !== null && typeof v !== "object").map(([k, v]) => `${k}: ${v}`).join(" · ") }) : null,
        h("ol", { className: "phases", "aria-label": "Phases" }, (run.phases || []).map((phase) => h("li", { className: `phase phase-${phase.status}` },
          h("span", { className: "phase-dot", "aria-hidden": "true" }), h("span", { className: "phase-label", text: phase.label || phase.id }), h("span", { className: "phase-status", text: phase.status }), " ", phaseCounter(run, phase, phaseTimes(run))))),
        trajectorySection(run),
        h("details", { className: "events", open: true, "data-key": `events:${id}` }, h("summary", { "data-focus-key": `events:${id}`, text: `Events (${(run.events || []).length})` }),
          h("ol", { className: "event-list" }, (run.events || []).slice(-30).map((event) => h("li", {},
            h("time", { className: "mono muted", datetime: event.at, text: formatTime(event.at) }), " ", h("span", { className: "badge", text: event.phase }), " ", event.summary || event.status || "")))),
        h("details", { className: "log", "data-key": `log:${id}` }, h("summary", { "data-focus-key": `log:${id}`, text: "Raw run log" }),
          h("pre", { className: "run-log", id: logId, tabindex: "0", "data-focus-key": `logpre:${id}`, "aria-label": "Run log", text: run.run_log || "(empty)" })))

      body.append(card)
      const log = document.getElementById(logId)
      if (log) log.scrollTop = scrolled.has(logId) ? scrolled.get(logId) : log.scrollHeight
    }
    restore()
    syncRecentRuns()
  }

  /** The Recent runs list follows the run cards in the same render (get_state catches up later). */
  function syncRecentRuns() {
    if (!app.state) return
    const recent = app.state.recent_runs || []
    const known = new Set(recent.map((run) => run.run_id))
    const fresh = (draft.run_ids || []).filter((id) => !known.has(id) && app.runs[id] && app.runs[id].status && app.runs[id].supervision && app.runs[id].supervision.this_controller)
      .map((id) => app.runs[id])
    const merged = fresh.concat(recent).map((run) => (app.runs[run.run_id] && app.runs[run.run_id].status ? { ...run, status: app.runs[run.run_id].status } : run))
    app.state = { ...app.state, recent_runs: merged }
    renderRecent()
  }

  async function cancel(id) {
    try {
      const result = await callTool("cancel_run", { run_id: id })
      if (result.run) app.runs[id] = { ...app.runs[id], ...result.run }
    } catch (error) {
      notice(`Cancel failed: ${error.message}`)
    }
    pollRuns()
  }

  function renderRecent() {
    const listElement = $("recent-runs")
    listElement.replaceChildren()
    const runs = (app.state && app.state.recent_runs) || []
    if (!runs.length) {
      listElement.append(h("li", { className: "muted", text: "No runs yet." }))
      return
    }
    for (const run of runs) {
      listElement.append(h("li", {},
        h("span", { className: "mono", text: `${run.run_id}` }),
        h("span", { className: "muted", text: [run.model, run.thread_id].filter(Boolean).join(" · ") }),
        statusBadge(run.status),
        h("button", { type: "button", className: "secondary small", text: "Open", onClick: () => {
          if (!draft.run_ids.includes(run.run_id)) draft.run_ids = [run.run_id].concat(draft.run_ids).slice(0, MAX_MODELS * 2)
          saveDraft()
          if (run.status === "completed") openResults(run.run_id, true)
          else { showStep("run", true); pollRuns() }
        } })))
    }
  }

  // ------------------------------------------------------------------------------------------
  // Results step

  /** The newest completed run this page knows of: its own runs first, then the controller's. */
  function latestCompleted() {
    const own = (draft.run_ids || []).find((id) => app.runs[id] && app.runs[id].status === "completed")
    if (own) return own
    const recent = ((app.state && app.state.recent_runs) || []).find((run) => run.status === "completed")
    return recent ? recent.run_id : null
  }

  async function openResults(id, focus) {
    draft.results_run = id
    showStep("results", focus !== false)
    // Before who is who: the offer to judge the run blind, unless it was revealed already. The report holds the
    // verdict, so it is fetched only once the gate has passed.
    if (!app.reports[id] && !(blind[id] && blind[id].revealed)) $("results-body").replaceChildren(h("p", { className: "muted", role: "status", text: "Loading the results…" }))
    if (draft.results_run === id && (await blindGate(id)) && draft.results_run === id) await showRevealed(id)
  }

  /** The report of a run whose verdict may be shown (fetched now if this page has not yet), then its results. */
  async function showRevealed(id) {
    const body = $("results-body")
    if ((draft.run_ids || []).length > 1 && draft.run_ids.includes(id)) await loadReports(draft.run_ids)
    if (!app.reports[id]) {
      body.replaceChildren(h("p", { className: "muted", role: "status", text: "Loading the report…" }))
      try {
        const result = await callTool("get_report", { run_id: id })
        app.reports[id] = result.report
      } catch (error) {
        if (draft.results_run === id) body.replaceChildren(h("p", { className: "error", text: `Could not load the report: ${error.message}` }))
        return
      }
    }
    if (draft.results_run === id) renderResults(id)
  }

  const winnerText = (winner) => ({ codex: AUTHORS.codex, claude: AUTHORS.claude, tie: "Tie", not_applicable: "N/A", inconclusive: "Inconclusive" })[winner] || "No ballot"
  const verdictText = (winner) => (winner === "codex" ? "Codex replay wins" : winner === "claude" ? "Historical Claude wins" : winner === "tie" ? "Tie" : "Inconclusive")
  /** A tie because the two review orders disagreed on every dimension is no verdict, and reads as such. */
  const ordersDisagreed = (report) => {
    const evaluation = report && report.evaluation
    const comparable = evaluation && Array.isArray(evaluation.comparable_dimensions) ? evaluation.comparable_dimensions : []
    return report.winner === "tie" && comparable.length > 0 &&
      comparable.every((id) => evaluation.dimensions && evaluation.dimensions[id] && evaluation.dimensions[id].order_dependent === true)
  }
  const reportVerdictText = (report) => {
    const replacing = caveatsVerdict(report.caveats)
    if (replacing) return replacing
    return ordersDisagreed(report) ? "Inconclusive (the two orders disagreed)" : verdictText(report.winner)
  }

  // ------------------------------------------------------------------------------------------
  // Caveats: what the controller derived for a verdict (src/domain/report/caveats.ts), shown in its words.

  /** The words said instead of a winner (no verdict, orders that disagreed, judges that split), or null: the reports' words, capitalised. */
  const caveatsVerdict = (caveats) => {
    const all = caveats || []
    if (caveatsBesideVerdict(all).length === all.length) return null
    const words = verdictWords(null, all)
    return words.charAt(0).toUpperCase() + words.slice(1)
  }
  /** The labels of the caveats left to name beside the verdict's words. */
  const caveatLabels = (caveats) => sharedCaveatLabels(caveatsBesideVerdict(caveats || []))
  /** A possible leak has its own badge and words wherever a verdict is shown. */
  const notLeak = (caveats) => (caveats || []).filter((caveat) => caveat.kind !== "possible_leak")
  const tallyCounts = (winner, caveats) => sharedTallyCounts(winner, caveats || [])
  /** The verdict's caveats as a list under it: each label and why. */
  function caveatsList(caveats, id) {
    const shown = (caveats || []).filter((caveat) => caveat.kind !== "possible_leak")
    if (!shown.length) return null
    return h("ul", { className: "caveats", id, "aria-label": "Caveats" }, shown.map((caveat) =>
      h("li", { "data-kind": caveat.kind }, h("strong", { text: caveat.label }), caveat.detail ? `: ${caveat.detail}` : "")))
  }
  function compareLower(value, other) {
    if (typeof value !== "number" || typeof other !== "number" || !Number.isFinite(value) || !Number.isFinite(other)) return "unknown"
    return value < other ? "better" : value > other ? "worse" : "same"
  }
  function mark(comparison) {
    if (comparison === "better") return h("span", { className: "mark mark-better", text: "▲ better" })
    if (comparison === "worse") return h("span", { className: "mark mark-worse", text: "▼ worse" })
    return null
  }



  /** The evaluation as report.html shows it (the same renderer), its wide tables in the page's scrolling regions. */
  function evaluationSection(evaluation) {
    const shown = fromReportHtml(renderEvaluationTable(evaluation)).firstElementChild
    for (const table of shown.querySelectorAll("table")) {
      const region = h("div", { className: "table-scroll" })
      table.replaceWith(region)
      region.append(table)
    }
    return shown
  }


  /** The reviewer, "self-review" when it judged its own replay, and both orders' reasons with identities revealed. */
  function reasonsSection(report) {
    const about = report.about_review || {}
    const wrap = h("div", { className: "reasons", id: "review-reasons" },
      h("p", {}, h("strong", { text: "Reviewer: " }), h("span", { className: "mono", id: "reviewer-model", text: about.reviewer_model || "Unknown" }),
        about.self_review ? h("span", { className: "badge badge-warn", id: "self-review", text: "self-review" }) : null))
    const reasons = report.review_reasons
    const dimensions = reasons ? DIMENSIONS.filter((d) => (reasons[d.id] || []).length > 0) : []
    if (!dimensions.length) {
      wrap.append(h("p", { className: "muted", text: "The ballots gave no reasons." }))
      return wrap
    }
    wrap.append(h("dl", { className: "facts" }, dimensions.flatMap((d) => [
      h("dt", { text: d.label }),
      h("dd", {}, h("ul", {}, reasons[d.id].map((entry) => h("li", {}, h("span", { className: "muted", text: `${entry.order === "AB" ? "A/B" : "B/A"} order: ` }), entry.reason))))
    ])))
    return wrap
  }

  function tokenSection(codex, claude) {
    const rows = TOKEN_ROWS.map(({ id, label, description }, index) => {
      const tipId = `token-tip-${index}`
      const value = (candidate) => (candidate.tokens ? (id === "total_input" ? candidate.tokens.total_input ?? totalInput(candidate.tokens) : candidate.tokens[id]) : null)
      return h("tr", {},
        h("th", { scope: "row" }, h("span", { className: "token-label", tabindex: "0", "aria-describedby": tipId }, label, h("span", { className: "token-tooltip", role: "tooltip", id: tipId, text: description }))),
        h("td", { className: "num", text: integer(value(codex)) }), h("td", { className: "num", text: integer(value(claude)) }))
    })
    return h("div", { className: "table-scroll" }, h("table", { className: "token-table" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col", text: "Tokens" }), h("th", { scope: "col", text: AUTHORS.codex }), h("th", { scope: "col", text: AUTHORS.claude }))),
      h("tbody", {}, rows)))
  }

  function costText(cost) {
    if (cost && typeof cost.usd === "number") return formatUsd(cost.usd)
    return cost && cost.reason ? `Not available: ${cost.reason}` : "Not available"
  }

  /** What the Codex cost is: the API equivalent, not what a ChatGPT plan bills. */
  function costNote(report) {
    const codex = report.candidates.codex
    const basis = codex.cost && typeof codex.cost.usd === "number" && codex.cost.basis ? ` Codex priced from: ${codex.cost.basis}.` : ""
    return report.cost_note ? h("p", { className: "hint", id: "cost-note", text: `${report.cost_note}${basis}` }) : null
  }

  /** "not like-for-like" next to the winner when a verdict was reached under a comparability concern. */
  function notLikeForLikeBadge(report) {
    const comparability = report.comparability
    if (!comparability || comparability.like_for_like || report.winner === "inconclusive") return null
    return h("span", { className: "badge badge-warn", id: "not-like-for-like", text: "not like-for-like" })
  }

  /** A Codex patch that is (nearly) Claude's: said under the verdict, which a portfolio does not count. */
  function possibleLeakCallout(report) {
    const integrity = report.integrity
    if (!integrity || integrity.matches_claude !== true) return null
    return h("div", { className: "callout", id: "possible-leak", role: "alert" }, h("strong", { text: "matches Claude's result: possible leak" }), h("p", { text: integrity.note || "" }))
  }

  /** The comparability panel: beginning state, capability gaps, self-review, Claude's final response. */
  function comparabilitySection(report) {
    const comparability = report.comparability
    if (!comparability) return null
    const gaps = (comparability.capability_gaps || []).map((gap) => `${gap.title} (${gap.status === "partial" ? "partial" : "not available"})`).join("; ") || "None"
    const reviewer = !comparability.reviewer_model ? "Not recorded" : comparability.self_review ? `Self-review: ${comparability.reviewer_model} reviewed its own replay` : `${comparability.reviewer_model} (not the implementing model)`
    const rows = [
      ["Beginning state", comparability.beginning_label],
      ["Capability gaps", gaps],
      ["Reviewer", reviewer],
      ["Claude's final response", comparability.claude_final_response_missing ? "Missing" : "Present"],
      ["Output cut at a ceiling", (comparability.output_truncated || []).join(" ") || "None"]
    ]
    return section("Comparability",
      comparability.like_for_like
        ? h("p", { className: "hint", id: "comparability-summary", text: "Like-for-like: same starting state, no capability gap, an independent reviewer and Claude's final response." })
        : h("div", { className: "callout", id: "comparability-summary" }, h("strong", { text: "Not like-for-like" }), list(comparability.concerns || [])),
      h("dl", { className: "facts", id: "comparability-facts" }, rows.flatMap(([key, value]) => [h("dt", { text: key }), h("dd", { text: value })])))
  }

  /** A side's cuts of the given kinds (output past its ceiling) and, for the patch, its binary files: visible notes. */
  function cutNotes(candidate, kinds, side) {
    const notes = (candidate.output_cuts || []).filter((cut) => kinds.includes(cut.kind)).map((cut) => cut.note)
    const binaries = kinds.includes("patch")
      ? (candidate.changed_files || []).filter((file) => file.binary).map((file) => `${file.path}: Binary file, ${Number(file.bytes || 0).toLocaleString("en-US")} bytes, not shown`)
      : []
    if (!notes.length && !binaries.length) return null
    return h("div", { className: "callout cut-notes", id: `${side}-${kinds[0]}-notes`, role: "note" }, list([...notes, ...binaries]))
  }

  async function download(id, format) {
    try {
      const response = await postRaw("/api/download", { run_id: id, format })
      const disposition = response.headers.get("Content-Disposition") || ""
      const match = /filename="([^"]+)"/.exec(disposition)
      saveBlob(await response.blob(), match ? match[1] : `codex-replay-${id}-report.${format}`)
    } catch (error) {
      notice(`Download failed: ${error.message}`)
    }
  }

  function renderResults(id) {
    const report = app.reports[id]
    const body = $("results-body")
    body.replaceChildren()
    if (!report) return
    const codex = report.candidates.codex
    const claude = report.candidates.claude
    const completedRuns = (draft.run_ids || []).filter((runId) => app.reports[runId] || (app.runs[runId] && app.runs[runId].status === "completed"))
    if (completedRuns.length > 1) {
      // The table shows every model's verdict: each of its runs is revealed too.
      for (const runId of completedRuns) if (!(blind[runId] && blind[runId].revealed)) markRevealed(runId, null)
      body.append(sideBySideTable(completedRuns) || "")
      body.append(h("div", { className: "run-switch", role: "group", "aria-label": "Details per model" }, completedRuns.map((runId) =>
        h("button", { type: "button", className: runId === id ? "primary small" : "secondary small", "aria-pressed": runId === id ? "true" : "false", text: (app.reports[runId] && app.reports[runId].candidates.codex.model) || (app.runs[runId] && app.runs[runId].model) || runId, onClick: () => openResults(runId, false) }))))
    }
    body.append(h("div", { className: `verdict verdict-${report.winner}` },
      h("p", { className: "verdict-headline" }, h("span", { id: "verdict", text: reportVerdictText(report) }), " ", notLikeForLikeBadge(report), " ", judgesSplitBadge(report)),
      possibleLeakCallout(report),
      caveatsList(report.caveats, "verdict-caveats"),
      h("p", { className: "muted mono", text: `${report.run_id} · ${report.thread_id} · ${formatDate(report.generated_at)}` })))
    const yours = yourVoteSection(id, report)
    if (yours) body.append(yours)
    body.append(h("div", { className: "actions" },
      h("button", { type: "button", className: "secondary", id: "download-json", text: "Download JSON", onClick: () => download(id, "json") }),
      h("button", { type: "button", className: "secondary", id: "download-html", text: "Download HTML", onClick: () => download(id, "html") })))

    const elapsed = [compareLower(codex.elapsed_ms, claude.elapsed_ms), compareLower(claude.elapsed_ms, codex.elapsed_ms)]
    const cost = [compareLower(codex.cost && codex.cost.usd, claude.cost && claude.cost.usd), compareLower(claude.cost && claude.cost.usd, codex.cost && codex.cost.usd)]
    const cell = (text, comparison) => h("td", {}, text, " ", mark(comparison))
    body.append(section("Summary", h("div", { className: "table-scroll" }, h("table", { className: "summary-table" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, h("span", { className: "visually-hidden", text: "Measure" })), h("th", { scope: "col", text: AUTHORS.codex }), h("th", { scope: "col", text: AUTHORS.claude }))),
      h("tbody", {},
        h("tr", {}, h("th", { scope: "row", text: "Model" }), h("td", { className: "mono", text: codex.model || "—" }), h("td", { className: "mono", text: claude.model || "—" })),
        h("tr", { className: "elapsed-row" }, h("th", { scope: "row", text: "Elapsed time" }), cell(formatDuration(codex.elapsed_ms), elapsed[0]), cell(formatDuration(claude.elapsed_ms), elapsed[1])),
        h("tr", { className: "cost-row" }, h("th", { scope: "row", text: "Cost" }), cell(costText(codex.cost), cost[0]), cell(costText(claude.cost), cost[1])),
        h("tr", {}, h("th", { scope: "row", text: "Changed files" }), h("td", { text: (codex.changed_files || []).map((f) => `${f.path} (+${f.additions}/−${f.deletions})`).join(", ") || "none" }), h("td", { text: (claude.changed_files || []).map((f) => `${f.path} (+${f.additions}/−${f.deletions})`).join(", ") || "none" }))))),
      h("p", { className: "hint", text: "Lower elapsed time and cost are better." }), costNote(report)))
    const spend = spendSection(report.spend)
    if (spend) body.append(spend)
    const comparability = comparabilitySection(report)
    if (comparability) body.append(comparability)
    const checks = checksSection(report.checks)
    if (checks) body.append(checks)
    body.append(section("Evaluation", evaluationSection(report.evaluation)))
    const secondJudge = secondJudgeSection(report)
    if (secondJudge) body.append(secondJudge)
    body.append(section("Reviewer's reasons", reasonsSection(report)))
    body.append(section("Token breakdown", tokenSection(codex, claude), h("p", { className: "hint", text: "Hover or focus a label for its meaning." })))
    body.append(section("Original request", h("pre", { className: "response", tabindex: "0", "aria-label": "Original request", text: report.original_request || "" })))
    body.append(section("Final responses", h("div", { className: "side-by-side" },
      h("div", {}, h("h4", { text: "Codex final response" }), cutNotes(codex, ["final_response"], "codex"), renderMarkdown(codex.final_response)),
      h("div", {}, h("h4", { text: "Claude final response" }), cutNotes(claude, ["final_response"], "claude"), renderMarkdown(claude.final_response),
        !claude.final_response && claude.last_substantive_reply
          ? [h("h4", { text: "Last substantive reply (the last turn has no final response)" }), h("pre", { className: "response", tabindex: "0", "aria-label": "Claude's last substantive reply", id: "claude-last-substantive", text: claude.last_substantive_reply })]
          : null))))
    body.append(section("Patches", h("div", { className: "side-by-side" },
      h("div", {}, h("h4", { text: "Codex patch" }), cutNotes(codex, ["patch", "file", "changed_files"], "codex"), renderDiff(codex.patch, "Codex patch")),
      h("div", {}, h("h4", { text: "Claude patch" }), cutNotes(claude, ["patch", "file", "changed_files"], "claude"), renderDiff(claude.patch, "Claude patch")))))
    if (report.about_review && report.about_review.note) body.append(section("About this review", h("p", { className: "about", text: report.about_review.note })))
    labelScrollRegions(body)
  }

  // ------------------------------------------------------------------------------------------
  // Your own blind vote: the two candidates the reviewer saw, without their authors, before the reveal

  const VOTE_CHOICES = [["first", "First"], ["second", "Second"], ["tie", "Tie"]]
  const VOTED = { codex: AUTHORS.codex, claude: AUTHORS.claude, tie: "Tie" }
  /** run_id -> { offered, shown } while the run is still blind, { revealed, vote, note } once its verdict may be shown. */
  const blind = {}

  /** Whether the run's verdict may be shown; when not, the offer to judge it first is on the page. */
  async function blindGate(id) {
    const known = blind[id]
    if (known && known.revealed) return true
    if (!known) {
      let status
      try {
        status = await callTool("vote_status", { run_id: id })
      } catch (error) {
        // No answer about the vote is no reveal: the verdict stays hidden until the question is answered.
        if (draft.results_run === id) renderBlindStatusError(id, error)
        return false
      }
      if (!status.blind) {
        // Already voted, already revealed, or nothing recorded to judge: the verdict is shown, with why.
        await markRevealed(id, status.reason)
        return true
      }
      blind[id] = { offered: true }
    }
    if (draft.results_run === id) renderBlindOffer(id)
    return false
  }

  /** Why the page cannot tell whether the run may still be judged blind, and a way to ask again. */
  function renderBlindStatusError(id, error) {
    $("results-body").replaceChildren(h("div", { className: "blind-vote", id: "blind-status-error" },
      h("p", { className: "error", role: "alert", text: `Could not tell whether you can still judge run ${id} blind: ${error.message}` }),
      h("p", { className: "hint", text: "Its verdict stays hidden until this is known, so that a blind vote is not lost." }),
      h("div", { className: "actions" }, h("button", { type: "button", className: "primary", id: "blind-status-retry", text: "Retry", onClick: () => openResults(id, false) }))))
    const retry = $("blind-status-retry")
    if (retry) retry.focus()
  }

  /** Tells the controller the user is about to see who is who (reveal_run); a blind vote on the run ends here. */
  async function markRevealed(id, refusal) {
    try {
      const result = await callTool("reveal_run", { run_id: id })
      blind[id] = { revealed: true, vote: result.vote, note: result.vote ? null : refusal || null }
    } catch {
      blind[id] = { revealed: true, vote: null, note: refusal || null }
    }
  }

  async function skipAndReveal(id) {
    await markRevealed(id, null)
    if (draft.results_run === id) await showRevealed(id)
  }

  const blindActions = (id, ...buttons) => h("div", { className: "actions" }, ...buttons,
    h("button", { type: "button", className: "secondary", id: "skip-reveal", text: "Skip and reveal", onClick: () => skipAndReveal(id) }))

  function renderBlindOffer(id) {
    $("results-body").replaceChildren(h("div", { className: "blind-vote", id: "blind-offer" },
      h("h3", { text: "Judge it yourself before the reveal?" }),
      h("p", { text: "The replay is complete. Before you see who wrote which result, you can judge the two candidates the reviewer saw: their diffs, final answers and check outcomes, without their authors, in a random order. Your vote is stored with the run and shown beside the judge's verdict." }),
      h("p", { className: "hint", text: "Once you have seen the verdict, a blind vote on this run is no longer possible." }),
      h("p", { className: "error", id: "blind-error", role: "alert", hidden: true }),
      blindActions(id, h("button", { type: "button", className: "primary", id: "judge-yourself", text: "Judge it yourself", onClick: () => judgeYourself(id) }))))
    const first = $("judge-yourself")
    if (first) first.focus()
  }

  /** A fresh blind presentation (a new random order each time), then the ballot. */
  async function judgeYourself(id) {
    try {
      blind[id] = { offered: true, shown: await callTool("blind_candidates", { run_id: id }) }
    } catch (error) {
      const message = $("blind-error")
      if (message) {
        message.hidden = false
        message.textContent = error.message
      }
      return
    }
    if (draft.results_run === id) renderBlindBallot(id)
  }

  function blindCandidateColumn(candidate) {
    const title = candidate.label === "first" ? "First candidate" : "Second candidate"
    const checks = candidate.checks || []
    return h("div", { className: "blind-candidate", "data-label": candidate.label },
      h("h4", { text: title }),
      h("p", { className: "muted", text: `Changed files: ${(candidate.changed_files || []).map((f) => `${f.path} (+${f.additions}/−${f.deletions})`).join(", ") || "none"}` }),
      h("h5", { text: "Final answer" }), renderMarkdown(candidate.final_response),
      checks.length === 0 ? null : [h("h5", { text: "Check outcomes" }), h("ul", { className: "blind-checks" }, checks.map((check) =>
        h("li", {}, h("code", { text: visibleText(check.command || "") }), `: ${check.outcome || "—"}${check.exit_code === null || check.exit_code === undefined ? "" : ` (exit ${check.exit_code})`}${check.change_from_start ? `, ${check.change_from_start}` : ""}`)))],
      h("h5", { text: "Diff" }), renderDiff(candidate.patch, `${title} diff`))
  }

  function voteChoice(name, legend) {
    return h("fieldset", { className: "vote-choice", "data-vote": name }, h("legend", { text: legend }),
      VOTE_CHOICES.map(([value, label]) => h("label", {}, h("input", { type: "radio", name: `vote-${name}`, value }), ` ${label}`)))
  }

  function renderBlindBallot(id) {
    const shown = blind[id] && blind[id].shown
    if (!shown) return
    const error = h("p", { className: "error", id: "vote-error", role: "alert", hidden: true })
    const form = h("form", { className: "vote-form", id: "vote-form" },
      h("p", { className: "hint", text: "For each dimension and overall: which candidate is better, or a tie." }),
      shown.dimensions.map((dimension) => voteChoice(dimension.id, dimension.label)),
      voteChoice("overall", "Overall"),
      error,
      blindActions(id, h("button", { type: "submit", className: "primary", id: "submit-vote", text: "Submit my vote" })))
    form.addEventListener("submit", (event) => {
      event.preventDefault()
      submitBlindVote(id, form, error)
    })
    $("results-body").replaceChildren(h("div", { className: "blind-vote", id: "blind-ballot" },
      h("h3", { text: "Judge it yourself" }),
      section("Task", h("pre", { className: "response", tabindex: "0", "aria-label": "Task", text: shown.task })),
      h("div", { className: "side-by-side blind-candidates" }, shown.candidates.map(blindCandidateColumn)),
      form))
    labelScrollRegions($("results-body"))
  }

  async function submitBlindVote(id, form, error) {
    const shown = blind[id].shown
    const choice = (name) => {
      const checked = form.querySelector(`input[name="vote-${name}"]:checked`)
      return checked ? checked.value : null
    }
    const dimensions = Object.fromEntries(shown.dimensions.map((dimension) => [dimension.id, choice(dimension.id)]))
    const overall = choice("overall")
    if (overall === null || Object.values(dimensions).includes(null)) {
      error.hidden = false
      error.textContent = "Choose first, second or tie for every dimension and overall."
      return
    }
    const submit = $("submit-vote")
    submit.disabled = true
    try {
      await callTool("submit_vote", { run_id: id, ballot_token: shown.ballot_token, dimensions, overall })
    } catch (failure) {
      submit.disabled = false
      error.hidden = false
      error.textContent = failure.message
      return
    }
    await markRevealed(id, null)
    if (draft.results_run === id) await showRevealed(id)
  }

  /** The user's vote beside the judge's verdict, or why there is none; nothing for a run the user skipped. */
  function yourVoteSection(id, report) {
    const state = blind[id]
    if (!state) return null
    if (!state.vote) return state.note ? h("p", { className: "muted", id: "blind-note", text: state.note }) : null
    const vote = state.vote
    const dimensions = (report.evaluation && report.evaluation.dimensions) || {}
    // A judge that reached no verdict has nothing to agree with (docs/verdicts.md); a tie is a tie only when the winner says so.
    const noVerdict = report.winner === "inconclusive" || (report.caveats || []).some((caveat) => caveat.kind === "no_verdict")
    const agreement = noVerdict ? "The judge reached no verdict, so there is nothing to agree on." : report.winner === vote.overall ? "You agree on the winner." : "You and the judge disagree on the winner."
    return section("Your blind vote beside the judge's",
      h("p", { id: "vote-agreement", text: `You voted ${VOTED[vote.overall] || vote.overall} overall; the judge: ${reportVerdictText(report)}. ${agreement}` }),
      h("div", { className: "table-scroll" }, h("table", { className: "vote-table", id: "vote-table" },
        h("thead", {}, h("tr", {}, h("th", { scope: "col", text: "Dimension" }), h("th", { scope: "col", text: "The judge" }), h("th", { scope: "col", text: "You" }))),
        h("tbody", {},
          DIMENSIONS.map((dimension) => h("tr", {}, h("th", { scope: "row", text: dimension.label }),
            h("td", { text: winnerText(dimensions[dimension.id] && dimensions[dimension.id].winner) }),
            h("td", { text: VOTED[vote.dimensions[dimension.id]] || "—" }))),
          h("tr", {}, h("th", { scope: "row", text: "Overall" }), h("td", { text: reportVerdictText(report) }), h("td", { text: VOTED[vote.overall] || "—" }))))))
  }

  // ------------------------------------------------------------------------------------------
  // Checks: the approved checks on the start, Claude's result and Codex's result, side by side

  const CHECK_STATUS = CHECK_STATUS_LABELS
  const CHECK_CHANGE = CHECK_CHANGE_LABELS

  /** A command as it is, with control, bidirectional and zero-width characters written as escapes. */
  const visibleText = (text) => visible(String(text))

  const commandNode = (command) => [h("code", { text: visibleText(command.command) }), command.directory && command.directory !== "." ? h("span", { className: "muted", text: ` (in ${visibleText(command.directory)})` }) : null]

  /** One side's outcome: status, exit code, change; one that could not run gives its reason and is not counted. */
  function checkOutcomeCell(side) {
    const exit = side.exit_code === null || side.exit_code === undefined ? "" : ` (exit ${side.exit_code})`
    const change = `${CHECK_CHANGE[side.change] || side.change}${side.status === "could_not_run" ? " — not counted" : ""}`
    return h("td", { className: `check-outcome check-${side.status} change-${side.change}` },
      h("span", { className: "check-status", text: `${CHECK_STATUS[side.status] || side.status}${exit}` }),
      h("br"), h("span", { className: "check-change", text: change }),
      side.reason ? [h("br"), h("span", { className: "check-reason", text: side.reason })] : null)
  }

  function checkStateDetails(title, state) {
    const outcomes = [...((state && state.setup) || []), ...((state && state.checks) || [])]
    return h("details", { className: "check-state" }, h("summary", { text: `${title}: output of each command` }),
      h("ul", { className: "check-outcomes" }, outcomes.map((outcome) => h("li", {}, commandNode(outcome),
        `: ${CHECK_STATUS[outcome.status] || outcome.status}${outcome.exit_code === null ? "" : ` (exit ${outcome.exit_code})`}${outcome.reason ? ` — ${outcome.reason}` : ""}`,
        h("pre", { className: "response check-excerpt", tabindex: "0", "aria-label": `${title}: output of ${visibleText(outcome.command)}`, text: outcome.excerpt || "(no output)" })))))
  }

  /** The Checks section of a report, or null for one without checks (none approved, or written before they ran). */
  function checksSection(checks) {
    if (!checks || !Array.isArray(checks.rows)) return null
    const setup = (checks.setup || []).map((command) => visibleText(command.command)).join(", ") || "none"
    const table = checks.rows.length === 0 ? null : h("div", { className: "table-scroll" }, h("table", { className: "checks-table", id: "checks-table" },
      h("thead", {}, h("tr", {}, ["Command", "At the start", "Claude's result", "Codex's result"].map((title) => h("th", { scope: "col", text: title })))),
      h("tbody", {}, checks.rows.map((row) => h("tr", {},
        h("th", { scope: "row" }, commandNode(row)),
        h("td", { className: `check-outcome check-${row.start}`, text: CHECK_STATUS[row.start] || row.start }),
        checkOutcomeCell(row.claude),
        checkOutcomeCell(row.codex))))))
    return section("Checks",
      h("p", { className: "checks-sentence", id: "checks-sentence", text: visibleText(checks.sentence) }),
      table,
      h("p", { className: "hint", text: `Each command ran on a fresh copy of each state, without network, within ${checks.time_limit_seconds} s; set-up first: ${setup}. A check that could not run is shown with its reason and counted against neither side.` }),
      checkStateDetails("At the start", checks.start),
      checkStateDetails("Claude's result", checks.claude),
      checkStateDetails("Codex's result", checks.codex))
  }


  // ------------------------------------------------------------------------------------------
  // Runs view: every run of the run root, newest first, filtered and paged (list_runs)

  const VERDICTS = { codex: "Codex wins", claude: "Claude wins", tie: "Tie", inconclusive: "Inconclusive" }

  /** A completed run the controller says is still blind, unless this page revealed it since. */
  const stillBlind = (run) => run.blind === true && !(blind[run.run_id] && blind[run.run_id].revealed)

  /**
   * In place of a verdict not revealed yet (its winner, tally, caveats and checks): a way to its Results, where
   * the user judges it blind or reveals it (docs/verdicts.md, "Your own blind vote").
   */
  function notRevealedCell(run, open) {
    return h("td", { className: "not-revealed" }, "Not revealed yet — ",
      h("a", { href: "#", "data-judge-run": run.run_id, "aria-label": `Judge it or reveal it: ${run.model || ""} ${run.run_id}`, text: "judge it or reveal it", onClick: (event) => {
        event.preventDefault()
        open()
      } }))
  }

  /** The Runs view's hooks into the rest of the page (src/page/runsList.ts). */
  const runsHost = {
    stillBlind: (run) => stillBlind(run),
    notRevealedCell: (run, open) => notRevealedCell(run, open),
    verdictText: (run) => {
      if (!run.winner) return "—"
      const leak = run.possible_leak === true ? " · matches Claude's result: possible leak" : ""
      const labels = caveatLabels(notLeak(run.caveats))
      const tally = run.dimensions && tallyCounts(run.winner, run.caveats) ? ` (${run.dimensions.won} won, ${run.dimensions.tied} tied, ${run.dimensions.lost} lost)` : ""
      return `${caveatsVerdict(run.caveats) || VERDICTS[run.winner] || run.winner}${tally}${leak}${labels ? ` · ${labels}` : ""}`
    },
    checksNote: (checks) => (typeof checks === "string" ? [h("br"), h("span", { className: "checks-sentence-small", text: visibleText(checks) })] : null),
    statusBadge: (status) => statusBadge(status),
    openRun: (run, siblings) => openFromRunsView(run, siblings),
    filtersChanged: () => syncAddress("replace"),
    compare: (runIds) => comparePortfolio(runIds, openRunLink)
  }

  /** The batch view's hooks into the rest of the page (src/page/batch.ts). */
  const batchHost = {
    statusBadge: (status) => statusBadge(status),
    stillBlind: (run) => stillBlind(run),
    notRevealedCell: (run, open) => notRevealedCell(run, open),
    openResults: (id, focus) => openResults(id, focus),
    followRun: (id) => {
      if (!draft.run_ids.includes(id)) draft.run_ids = [id].concat(draft.run_ids).slice(0, MAX_MODELS * 2)
      saveDraft()
      pollRuns()
    },
    openRunAddress: (id) => openRunLink(id),
    refreshState: () => refreshState()
  }

  /** The batch form's hooks into the rest of the page (src/page/batchForm.ts). */
  const batchFormHost = {
    threads: () => app.threads,
    source: () => draft.source,
    offeredModels: () => (app.state && app.state.models) || [],
    renderThreads: () => renderThreads(),
    defaultConfig: (result) => defaultConfig(result),
    reviewerChoiceText: (offered, models) => reviewerChoiceText(offered, models),
    secondJudgeChoice: (choice, update) => secondJudgeChoice(choice, update),
    secondJudgeValue: (on, model) => secondJudgeValue(on, model),
    preparedReviewerLine: (prepared, id) => preparedReviewerLine(prepared, id),
    estimateLine: (estimate, id) => estimateLine(estimate, id),
    started: (batchId, summary) => {
      batchView.id = batchId
      batchView.summary = summary
      batchView.grid = null
      app.runFocus = "batch"
      showStep("run", true)
      pollBatch(batchHost)
    }
  }


  /** A capability gap's remediation, as a sentence instead of its internal identifier. */
  const REMEDIATIONS = {
    enable_web_search: "turn on web search for Codex (in ~/.codex/config.toml) so it can look things up as Claude did.",
    configure_mcp_server: "configure the same MCP servers for Codex that Claude used in this thread.",
    describe_images_in_request: "describe in the task prompt the images Claude was shown.",
    copy_claude_md_to_agents_md: "copy the project's CLAUDE.md instructions into an AGENTS.md file that Codex reads."
  }
  const remediationText = (action) => REMEDIATIONS[action] || String(action).replace(/_/g, " ") + "."

  // ------------------------------------------------------------------------------------------
  // Run view: phase counters, a readable trajectory, review order, cancel confirmation


  /** When each phase started and ended, from the run's events. */
  function phaseTimes(run) {
    const order = (run.phases || []).map((phase) => phase.id)
    const starts = {}
    for (const event of run.events || []) if (!(event.phase in starts)) starts[event.phase] = Date.parse(event.at)
    const times = {}
    order.forEach((id, index) => {
      if (!(id in starts)) return
      const next = order.slice(index + 1).find((later) => later in starts)
      const end = next ? starts[next] : run.completed_at ? Date.parse(run.completed_at) : null
      times[id] = { start: starts[id], end }
    })
    return times
  }

  function phaseCounter(run, phase, times) {
    const time = times[phase.id]
    if (!time || phase.status === "waiting") return null
    const running = phase.status === "running" && isActive(run)
    return h("span", {
      className: "phase-elapsed mono",
      "data-since": running ? String(time.start) : undefined,
      text: clockText((running ? Date.now() : time.end || Date.now()) - time.start)
    })
  }

  /** Ticks the counters of running phases between polls. */
  function tickPhaseCounters() {
    for (const counter of document.querySelectorAll("[data-since]")) counter.textContent = clockText(Date.now() - Number(counter.getAttribute("data-since")))
  }

  function reviewOrderText(run) {
    if (run.phase !== "reviewing" || !isActive(run)) return null
    const log = run.run_log || ""
    const started = (log.match(/review:codex:(ab|ba)\] started|review:codex:(ab|ba) started/g) || []).length
    return started ? `Blind review: order ${Math.min(started, 2)} of 2` : "Blind review: starting"
  }

  /** Codex's messages, commands with exit codes and file changes, out of the implementation's JSON lines. */
  function trajectoryOf(runLog) {
    const steps = []
    for (const line of (runLog || "").split("\n")) {
      const at = line.indexOf("[implementation:stdout] ")
      if (at < 0) continue
      let event
      try {
        event = JSON.parse(line.slice(at + "[implementation:stdout] ".length))
      } catch {
        continue
      }
      const item = event && event.type === "item.completed" ? event.item : null
      if (!item) continue
      if (item.type === "agent_message" && item.text) steps.push({ kind: "message", text: item.text })
      else if (item.type === "command_execution") steps.push({ kind: "command", text: item.command || "", exit: item.exit_code })
      else if (item.type === "file_change") for (const change of item.changes || []) steps.push({ kind: "file", text: `${change.kind || "update"} ${change.path || ""}` })
      else if (item.type === "reasoning" && item.text) steps.push({ kind: "reasoning", text: item.text })
    }
    return steps
  }

  function trajectorySection(run) {
    const steps = trajectoryOf(run.run_log)
    const list = h("ol", { className: "trajectory" }, steps.slice(-200).map((step) => {
      if (step.kind === "command") {
        const ok = step.exit === 0
        return h("li", { className: "step-command" }, h("span", { className: "badge", text: "command" }), " ", h("code", { text: step.text }), " ",
          h("span", { className: ok ? "exit-ok" : "exit-bad", text: step.exit === undefined || step.exit === null ? "running" : `exit ${step.exit}` }))
      }
      if (step.kind === "file") return h("li", { className: "step-file" }, h("span", { className: "badge", text: "file" }), " ", h("code", { text: step.text }))
      return h("li", { className: `step-${step.kind}` }, h("span", { className: "badge", text: step.kind === "message" ? "Codex" : "thinking" }), " ", h("span", { text: step.text }))
    }))
    return h("details", { className: "trajectory-box", open: true, "data-key": `trajectory:${run.run_id}` },
      h("summary", { "data-focus-key": `trajectory:${run.run_id}`, text: `What Codex did (${steps.length} step${steps.length === 1 ? "" : "s"})` }),
      steps.length ? list : h("p", { className: "muted", text: "Nothing yet." }))
  }

  function cancelControls(run, id) {
    if (run.supervision && run.supervision.read_only) return h("p", { className: "hint", text: supervisionText(run) })
    if (!isActive(run)) return null
    if (app.confirmCancel === id) {
      return h("div", { className: "confirm", role: "group", "aria-label": "Confirm cancellation" },
        h("span", { text: "Cancel this run? Codex stops and no report is written." }), " ",
        h("button", { type: "button", className: "danger", text: "Yes, cancel the run", "data-confirm-cancel": id, "data-focus-key": `confirm:${id}`, onClick: () => {
          app.confirmCancel = null
          cancel(id)
        } }), " ",
        h("button", { type: "button", className: "secondary", text: "Keep running", "data-focus-key": `keep:${id}`, onClick: () => {
          app.confirmCancel = null
          runsSignature = ""
          renderRuns()
          const again = document.querySelector(`[data-cancel="${CSS.escape(id)}"]`)
          if (again) again.focus()
        } }))
    }
    return h("button", { type: "button", className: "danger", text: "Cancel", "data-cancel": id, "data-focus-key": `cancel:${id}`, onClick: () => {
      app.confirmCancel = id
      runsSignature = ""
      renderRuns()
      const confirm = document.querySelector(`[data-confirm-cancel="${CSS.escape(id)}"]`)
      if (confirm) confirm.focus()
    } })
  }

  // ------------------------------------------------------------------------------------------
  // Results: several models side by side, diffs as diffs, final responses as safe Markdown

  const DIMENSION_SHORT = { reliability: "Reliability", code_quality: "Code quality", request_fulfillment: "Request", change_scope: "Scope", safe_operations: "Safety", accurate_reporting: "Reporting" }

  async function loadReports(ids) {
    await Promise.all(ids.filter((id) => !app.reports[id]).map(async (id) => {
      try {
        app.reports[id] = (await callTool("get_report", { run_id: id })).report
      } catch {
        // shown as missing in the table
      }
    }))
  }

  /** A report candidate's tokens (ordinary input, cache read and write, output) in one figure. */
  function candidateTokens(candidate) {
    const t = candidate && candidate.tokens
    if (!t) return null
    return (t.ordinary_input || 0) + (t.cache_read || 0) + (t.cache_write || 0) + (t.output || 0)
  }

  function sideBySideTable(ids) {
    const reports = ids.map((id) => [id, app.reports[id]]).filter(([, report]) => report)
    if (reports.length < 2) return null
    const claude = reports[0][1].candidates.claude
    const dimensionCell = (report, id) => {
      const result = report.evaluation && report.evaluation.dimensions && report.evaluation.dimensions[id]
      const winner = result ? result.winner : null
      return h("td", { className: `outcome outcome-${winner || "none"}`, text: winner === "codex" ? "won" : winner === "claude" ? "lost" : winner === "tie" ? "tie" : winner ? "N/A" : "—" })
    }
    // Passed of those that ran (a check that could not run counts for neither side); Claude's is shared by the start's models.
    const tallyText = (report, side) => {
      const checks = report.checks
      if (!checks || !checks.tally || !checks.tally[side]) return "—"
      const tally = checks.tally[side]
      return tally.ran === 0 ? "could not run" : `${tally.passed} of ${tally.ran}`
    }
    const EDGE = { codex: "better than Claude", claude: "worse than Claude", same: "same as Claude", mixed: "mixed" }
    const withChecks = reports.find(([, report]) => report.checks)
    const rows = reports.map(([id, report]) => {
      const codex = report.candidates.codex
      const edge = report.checks && report.checks.edge ? EDGE[report.checks.edge] : null
      return h("tr", { "data-run-id": id },
        h("th", { scope: "row", className: "mono", text: codex.model || id }),
        h("td", {}, h("strong", { text: caveatsVerdict(report.caveats) || (ordersDisagreed(report) ? "Inconclusive (orders disagreed)" : VERDICTS[report.winner] || report.winner || "—") }),
          caveatLabels(notLeak(report.caveats)) ? [" ", h("span", { className: "muted caveat-labels", text: caveatLabels(notLeak(report.caveats)) })] : null,
          report.integrity && report.integrity.matches_claude === true ? [" ", h("span", { className: "badge badge-warn", text: "possible leak" })] : null,
          report.evaluation && report.evaluation.second_judge && report.evaluation.second_judge.agreement === "split" && caveatsVerdict(report.caveats) !== "Split" ? [" ", h("span", { className: "badge badge-warn", text: "split" })] : null),
        DIMENSIONS.map((d) => dimensionCell(report, d.id)),
        h("td", { className: "checks-cell" }, tallyText(report, "codex"), edge ? [h("br"), h("span", { className: "muted", text: edge })] : null),
        h("td", { className: "num", text: formatDuration(codex.elapsed_ms) }),
        h("td", { className: "num", text: integer(candidateTokens(codex)) }),
        h("td", { className: "num", text: costText(codex.cost) }),
        h("td", { className: "num evaluation-cost", text: report.spend ? spendLineText(report.spend.evaluation) : "—" }),
        h("td", {}, h("button", { type: "button", className: "secondary small", text: "Details", "aria-label": `Details of ${codex.model || id}`, onClick: () => openResults(id, false) })))
    })
    rows.push(h("tr", { className: "claude-row" },
      h("th", { scope: "row", text: `Historical Claude (${claude.model || "—"})` }), h("td", { text: "—" }), DIMENSIONS.map(() => h("td", { text: "—" })),
      h("td", { className: "checks-cell", text: withChecks ? tallyText(withChecks[1], "claude") : "—" }),
      h("td", { className: "num", text: formatDuration(claude.elapsed_ms) }), h("td", { className: "num", text: integer(candidateTokens(claude)) }),
      h("td", { className: "num", text: costText(claude.cost) }), h("td", { text: "—" }), h("td", { text: "—" })))
    return section("Every model beside Claude", scrollTable("Every model beside Claude", h("table", { className: "side-table" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col", text: "Model" }), h("th", { scope: "col", text: "Verdict" }),
        DIMENSIONS.map((d) => h("th", { scope: "col", text: DIMENSION_SHORT[d.id] || d.label })),
        h("th", { scope: "col", text: "Checks" }),
        h("th", { scope: "col", text: "Time" }), h("th", { scope: "col", text: "Tokens" }), h("th", { scope: "col", text: "Cost" }), h("th", { scope: "col", text: "Evaluation cost" }), h("th", { scope: "col", text: "Details" }))),
      h("tbody", {}, rows))),
    everyModelCostLine(reports),
    h("p", { className: "hint", text: "Dimensions from Codex's side: won, tie or lost against the historical Claude result, agreed in both review orders. Checks: passed of those that ran on that result (one that could not run counts for neither side)." }))
  }

  // ----- What it cost: the ledger of a run's calls, the estimate before approval, Claude once per thread

  /** A sum of calls: "$0.120", "$0.120 + 1 call not priced", "not priced (2 calls)" or "nothing". */
  const spendLineText = (line) => (line ? sharedSpendLineText(line) : "nothing")

  /** "What it cost to know": the implementation beside the evaluation's own cost, and every call. */
  function spendSection(spend) {
    if (!spend) return null
    const names = { implementation: "Implementation", review: "Review", review_asked_again: "Review asked again", reconstruction: "Request reconstruction", second_judge: "Second judge" }
    const rows = (spend.calls || []).map((call) => h("tr", {},
      h("td", { text: names[call.purpose] || call.purpose }), h("td", { className: "mono", text: call.label }), h("td", { className: "mono", text: call.model }),
      h("td", { className: "num", text: call.cost_usd === null ? `not priced${call.unpriced_reason ? `: ${call.unpriced_reason}` : ""}` : formatUsd(call.cost_usd) })))
    return section("What it cost to know",
      h("p", { id: "spend-summary", text: `Codex implementation: ${spendLineText(spend.implementation)} (compared with Claude above). Evaluation: ${spendLineText(spend.evaluation)} in ${spend.evaluation.calls} call${spend.evaluation.calls === 1 ? "" : "s"}. Whole run: ${spendLineText(spend.total)}.` }),
      h("div", { className: "table-scroll" }, h("table", { className: "spend-calls" },
        h("thead", {}, h("tr", {}, ["Call", "Label", "Model", "Cost"].map((name) => h("th", { scope: "col", text: name })))),
        h("tbody", {}, rows))))
  }


  /** Under the every-model table: the Codex runs summed, Claude's cost once (one thread), the evaluation apart. */
  function everyModelCostLine(reports) {
    const sum = (values) => values.reduce((total, value) => total + value, 0)
    const codex = reports.map(([, report]) => report.candidates.codex.cost && report.candidates.codex.cost.usd).filter((usd) => typeof usd === "number")
    const evaluation = reports.map(([, report]) => report.spend ? report.spend.evaluation.usd : null).filter((usd) => typeof usd === "number")
    const claude = reports[0][1].candidates.claude.cost
    return h("p", { className: "hint", id: "every-model-cost", text: `All ${reports.length} Codex implementations: ${formatUsd(sum(codex))}${codex.length < reports.length ? ` (${reports.length - codex.length} not priced)` : ""} · Claude, counted once for the thread: ${costText(claude)} · evaluation (what it cost to know): ${evaluation.length ? formatUsd(sum(evaluation)) : "not recorded"}` })
  }






  // The Thread and Configure steps reach the page's state and the other views through this host.
  installConfigureHost({
    app,
    get draft() {
      return draft
    },
    saveDraft,
    showStep,
    syncAddress,
    batchOn: () => batch.on,
    batchThreadPick,
    applyPendingModels,
    remediationText,
    rememberConfig,
    renderRuns,
    pollRuns,
    refreshState
  })

  boot({
    runsHost,
    batchHost,
    batchFormHost,
    renderThreads: () => renderThreads(),
    loadThreads: (append) => loadThreads(append),
    inspect: (id) => inspect(id),
    openResults: (id, focus) => openResults(id, focus),
    pollRuns: () => pollRuns(),
    renderRecent: () => renderRecent(),
    tickPhaseCounters: () => tickPhaseCounters(),
    latestCompleted: () => latestCompleted()
  })
