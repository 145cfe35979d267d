// The page's views not yet typed, as they were in one script; its module scope is the old script's closure.
// Codex Replay browser controller (SPEC §11). Plain DOM: every node is built with createElement and
// textContent, so thread, candidate and report text can never become markup.
import { $, fromReportHtml, h, labelScrollRegions, notice, scrollTable } from "./dom.js"
import { clockText, formatDate, formatDuration, formatTime, integer, percent, percentText } from "./format.js"
import { renderMarkdown } from "./markdown.js"
import { renderDiff } from "./diffView.js"
import { loadRunsView as loadRunsList, renderPortfolioActions, runsFilters, selectedRuns, setRunsFilters, supervisionText, wireRunsView } from "./runsList.js"
import { callTool, failureText, post, postRaw, wasTokenRefused } from "./client.js"
import { currentAddress, onAddressChange, showAddress } from "./router.js"
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
  const HEARTBEAT_MS = 15000
  const POLL_MS = 1000
  const MAX_MODELS = 4
  const DRAFT_PREFIX = "codex-replay.controller-draft.v1:"
  const STEPS = ["thread", "configure", "run", "results", "runs"]
  const AUTHORS = AUTHOR_LABELS

  // ------------------------------------------------------------------------------------------
  // State and draft (localStorage, versioned, scoped to the controller session)

  const app = {
    session: null,
    state: null,
    step: "thread",
    threads: [],
    listing: null,
    listToken: 0,
    inspect: null,
    inspectError: null,
    synthesizing: false,
    inferring: false,
    inferNote: "",
    prepared: null, // transient: never stored
    preparing: false,
    starting: false,
    runs: {}, // run_id -> run state
    reports: {}, // run_id -> report
    pollTimer: null,
    /** How showing a view updates the address: a new entry, or the same one while an address is being opened. */
    addressHow: "push",
    /** Which the Run view's address names when it shows both: the batch, or the runs. */
    runFocus: "runs",
    /** The part of the thread an address names, until its inspection answers. */
    pendingRange: null
  }
  let draft = { source: "imported", query: "", sort: "date", thread_id: null, config: null, step: "thread", run_ids: [], results_run: null }

  const draftKey = () => DRAFT_PREFIX + app.session
  function saveDraft() {
    if (!app.session) return
    draft.step = app.step
    try {
      localStorage.setItem(draftKey(), JSON.stringify(draft))
    } catch {
      // storage full or disabled: the page still works without a draft
    }
  }
  function loadDraft() {
    try {
      const raw = localStorage.getItem(draftKey())
      if (!raw) return
      const parsed = JSON.parse(raw)
      if (parsed && typeof parsed === "object") draft = { ...draft, ...parsed }
      if (!Array.isArray(draft.run_ids)) draft.run_ids = []
    } catch {
      // a corrupt draft is ignored
    }
  }

  // ------------------------------------------------------------------------------------------
  // Steps

  function showStep(step, focus) {
    if (!STEPS.includes(step)) step = "thread"
    app.step = step
    for (const name of STEPS) {
      $(`step-${name}`).hidden = name !== step
      const tab = $(`tab-${name}`)
      if (name === step) tab.setAttribute("aria-current", "step")
      else tab.removeAttribute("aria-current")
    }
    saveDraft()
    syncAddress(app.addressHow)
    if (focus) {
      const heading = document.querySelector(`#step-${step} h2`)
      if (heading) {
        heading.setAttribute("tabindex", "-1")
        heading.focus()
      }
    }
  }

  // ------------------------------------------------------------------------------------------
  // Addresses: the view shown is in the address bar (a new entry per view), and an address opens its view

  /** The address of the view shown now. */
  function addressOfView() {
    const home = { view: "home" }
    switch (app.step) {
      case "configure": {
        if (!draft.thread_id) return home
        const c = draft.config && draft.config.thread_id === draft.thread_id ? draft.config : null
        const range = c && c.range_start && c.range_end ? { start: c.range_start, end: c.range_end } : null
        return { view: "thread", threadId: draft.thread_id, range }
      }
      case "run":
        if (batch.id && (app.runFocus === "batch" || !draft.run_ids.length)) return { view: "batch", batchId: batch.id }
        return draft.run_ids.length ? { view: "run", runId: draft.run_ids[0] } : home
      case "results":
        return draft.results_run ? { view: "run", runId: draft.results_run } : home
      case "runs":
        return { view: "runs", filters: runsFilters() }
      default:
        return home
    }
  }

  function syncAddress(how) {
    showAddress(addressOfView(), how || "push")
  }

  /** Opens the view an address names (on loading the page, and on Back and Forward); the address bar stays. */
  async function openAddress(address) {
    app.addressHow = "replace"
    try {
      switch (address.view) {
        case "thread": {
          const id = address.threadId
          if (draft.thread_id !== id) {
            draft.thread_id = id
            draft.config = null
            app.prepared = null
          }
          const c = draft.config && draft.config.thread_id === id ? draft.config : null
          const start = address.range ? address.range.start : null
          const end = address.range ? address.range.end : null
          if (c && ((c.range_start || null) !== start || (c.range_end || null) !== end)) {
            draft.config = null
            app.prepared = null
          }
          app.pendingRange = address.range ? { thread_id: id, range_start: start, range_end: end } : null
          renderThreads()
          showStep("configure")
          inspect(id)
          return
        }
        case "run":
          return openRunAddress(address.runId)
        case "batch":
          app.runFocus = "batch"
          if (batch.id !== address.batchId) {
            batch.id = address.batchId
            batch.summary = null
          }
          showStep("run")
          pollBatch()
          return
        case "runs":
          setRunsFilters(address.filters)
          showStep("runs")
          loadRunsView()
          return
        default:
          showStep("thread")
      }
    } finally {
      app.addressHow = "push"
    }
  }

  /** A run's address: its Results once it completed, else its Run view; one the controller does not know is said. */
  async function openRunAddress(id) {
    app.runFocus = "runs"
    let run
    try {
      run = (await callTool("get_run", { run_id: id })).run
    } catch (error) {
      notice(`Could not open the run ${id}: ${error.message}`)
      showStep("runs")
      loadRunsView()
      return
    }
    if (!draft.run_ids.includes(id)) draft.run_ids = [id]
    saveDraft()
    app.addressHow = "replace"
    if (run.status === "completed") {
      pollRuns()
      await openResults(id, false)
    } else {
      draft.results_run = null
      showStep("run")
      pollRuns()
    }
  }

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

  /** Hands a file to the browser's downloads. */
  function saveBlob(blob, fileName) {
    const url = URL.createObjectURL(blob)
    const link = h("a", { href: url, download: fileName, className: "visually-hidden" })
    document.body.append(link)
    link.click()
    link.remove()
    setTimeout(() => URL.revokeObjectURL(url), 10000)
  }


  /** A checks rate in words, with its 95% Wilson interval. */
  const checkRateText = (figure) =>
    !figure || figure.of === 0 || !figure.interval ? "none to count" : `${figure.count.count} of ${figure.of} (${percentText(figure.rate)}, 95% interval ${percentText(figure.interval.lower)}–${percentText(figure.interval.upper)})`

  /** The checks beside the judge: only the runs whose report has checks are counted. */
  function portfolioChecksText(model) {
    const checks = model.checks
    const runs = model.runs.length
    return `${model.model}: checks ran in ${checks.runs_with_checks.count} of ${runs} run${runs === 1 ? "" : "s"} (only those counted here): Codex keeps every check Claude's result passed ${checkRateText(checks.keeps_claude_passes)}; strictly better on checks ${checkRateText(checks.better)}; strictly worse ${checkRateText(checks.worse)}.`
  }

  function portfolioModelLine(model) {
    const overall = model.overall
    const interval = overall.win_rate_interval ? ` (95% interval ${percentText(overall.win_rate_interval.lower)}–${percentText(overall.win_rate_interval.upper)})` : ""
    const p = overall.sign_test_p === null ? "no decisive verdict" : `sign test p = ${overall.sign_test_p.toFixed(3)}${overall.significant ? ", significant at 5%" : ", not significant at 5%"}`
    const leaks = model.possible_leaks && model.possible_leaks.count > 0 ? ` Possible leaks: ${model.possible_leaks.count} (matches Claude's result; not counted).` : ""
    const splits = model.second_judge ? ` Judges split: ${model.second_judge.split.count} of ${model.second_judge.judged.count} run${model.second_judge.judged.count === 1 ? "" : "s"} judged by Claude too.` : ""
    const uncounted = overall.not_counted && overall.not_counted.count > 0 ? ` (${overall.not_counted.count} without a verdict: not counted)` : ""
    return `${model.model}: Codex won ${overall.wins.count}, tied ${overall.ties.count}, lost ${overall.losses.count}${uncounted}; win rate ${percentText(overall.win_rate)}${interval}; ${p}.${leaks}${splits}`
  }

  /** Judge–user agreement on the overall winner over the runs the user voted on blind. */
  function portfolioAgreementText(model) {
    const a = model.user_agreement
    const kappa = a.kappa === null ? "undefined (you and the judge gave one and the same answer every time)" : (Math.abs(a.kappa) < 0.005 ? 0 : a.kappa).toFixed(2)
    const left = a.no_verdict ? a.no_verdict.count : 0
    if (a.n === 0) return `${model.model}: nothing to compare: the judge reached no verdict on the ${left} run(s) you voted on, n = 0.`
    const leftOut = left > 0 ? `; ${left} voted run(s) left out: the judge reached no verdict on ${left === 1 ? "it" : "them"}` : ""
    return `${model.model}: you and the judge agree on the overall winner in ${a.agreeing} of ${a.n} run(s) you voted on (${percentText(a.share)}); Cohen's kappa ${kappa}, n = ${a.n}${leftOut}.`
  }

  async function comparePortfolio() {
    const status = $("portfolio-status")
    const runIds = selectedRuns()
    $("portfolio-compare").disabled = true
    status.replaceChildren(h("p", { className: "muted", text: `Counting ${runIds.length} run${runIds.length === 1 ? "" : "s"}…` }))
    try {
      const result = await callTool("make_portfolio", { run_ids: runIds, include_html: true })
      saveBlob(new Blob([result.html], { type: "text/html" }), result.html_file_name)
      status.replaceChildren(
        h("p", { id: "portfolio-summary", text: `Portfolio of ${result.portfolio.run_ids.length} run${result.portfolio.run_ids.length === 1 ? "" : "s"} downloaded as ${result.html_file_name}.` }),
        h("ul", { id: "portfolio-models" }, result.portfolio.models.map((model) => h("li", { text: portfolioModelLine(model) }))),
        h("ul", { id: "portfolio-checks", "aria-label": "Checks beside the judge" }, result.portfolio.models.filter((model) => model.checks).map((model) => h("li", { text: portfolioChecksText(model) }))),
        h("ul", { id: "portfolio-agreement", "aria-label": "You and the judge" }, result.portfolio.models.filter((model) => model.user_agreement).map((model) => h("li", { text: portfolioAgreementText(model) }))),
        portfolioCostLine(result.portfolio),
        h("p", { className: "muted" }, "Saved in the run root: ", h("code", { text: result.portfolio_html }), " (its links open each run's report).")
      )
    } catch (error) {
      status.replaceChildren(h("p", { className: "callout callout-bad", id: "portfolio-error", text: `Could not compare: ${error.message}` }))
    } finally {
      renderPortfolioActions()
    }
  }

  /** Opens a run of the list: its Results when a report exists, its Run view otherwise, with the runs started beside it. */
  function openFromRunsView(run, siblings) {
    app.runFocus = "runs"
    draft.run_ids = siblings.length ? siblings : [run.run_id]
    draft.results_run = null
    saveDraft()
    if (run.report_ready) {
      pollRuns()
      openResults(run.run_id, true)
    } else {
      showStep("run", true)
      pollRuns()
    }
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
    compare: () => comparePortfolio()
  }
  const loadRunsView = () => loadRunsList(runsHost)


  // ------------------------------------------------------------------------------------------
  // Replay again: a finished, failed or cancelled run's configuration, pre-filled

  const MAX_REMEMBERED_CONFIGS = 24
  function rememberConfig(runIds) {
    const kept = Object.entries(draft.run_configs || {}).slice(-MAX_REMEMBERED_CONFIGS)
    draft.run_configs = Object.fromEntries(kept.concat(runIds.map((id) => [id, draft.config])))
  }

  function replayAgain(run) {
    const saved = (draft.run_configs || {})[run.run_id]
    draft.thread_id = run.thread_id
    draft.config = saved ? { ...saved } : null
    app.pendingModels = saved ? null : (Array.isArray(run.models) && run.models.length ? run.models : [run.model]).filter(Boolean)
    app.prepared = null
    saveDraft()
    showStep("configure", true)
    inspect(run.thread_id)
  }

  /** After an inspection, the models of the run being replayed again (when its configuration was not kept). */
  function applyPendingModels() {
    if (!app.pendingModels || !draft.config) return
    const offered = ((app.inspect && app.inspect.models) || []).map((model) => model.id)
    const models = app.pendingModels.filter((model) => offered.includes(model))
    if (models.length) draft.config.models = models
    app.pendingModels = null
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

  /** " · evaluation $0.090" of a batch's cost so far. */
  function batchEvaluationCost(cost) {
    if (typeof cost.evaluation !== "number") return ""
    return ` · evaluation ${formatUsd(cost.evaluation)}${cost.evaluation_unpriced_runs ? ` (+${cost.evaluation_unpriced_runs} not priced)` : ""}`
  }

  /** What every run of a portfolio together cost: Codex's implementations, Claude once per thread, the evaluation apart. */
  function portfolioCostLine(portfolio) {
    const cost = portfolio.cost_usd
    if (!cost) return null
    const total = (totals) => (totals && typeof totals.total === "number" ? formatUsd(totals.total) : "not known")
    return h("p", { id: "portfolio-cost", text: `All runs: Codex implementations ${total(cost.codex)} · Claude ${total(cost.claude)}, counted once per thread (${cost.threads} thread${cost.threads === 1 ? "" : "s"}) · evaluation (what it cost to know) ${total(cost.evaluation)}` })
  }

  /** Under the every-model table: the Codex runs summed, Claude's cost once (one thread), the evaluation apart. */
  function everyModelCostLine(reports) {
    const sum = (values) => values.reduce((total, value) => total + value, 0)
    const codex = reports.map(([, report]) => report.candidates.codex.cost && report.candidates.codex.cost.usd).filter((usd) => typeof usd === "number")
    const evaluation = reports.map(([, report]) => report.spend ? report.spend.evaluation.usd : null).filter((usd) => typeof usd === "number")
    const claude = reports[0][1].candidates.claude.cost
    return h("p", { className: "hint", id: "every-model-cost", text: `All ${reports.length} Codex implementations: ${formatUsd(sum(codex))}${codex.length < reports.length ? ` (${reports.length - codex.length} not priced)` : ""} · Claude, counted once for the thread: ${costText(claude)} · evaluation (what it cost to know): ${evaluation.length ? formatUsd(sum(evaluation)) : "not recorded"}` })
  }






  // ------------------------------------------------------------------------------------------
  // Batches: a batch mode in the Thread step, and the batch view in the Run step

  const MAX_BATCH_THREADS = 100
  const batch = { on: false, selected: new Set(), models: null, reviewer: "", pickCount: 10, pickSort: "date", busy: false, prepared: null, configurations: null, unconfigured: [], id: null, summary: null, timer: null, confirmCancel: false }

  const offeredModels = () => (app.state && app.state.models) || []

  function batchThreadPick(thread, index, meta) {
    const id = thread.imported_thread_id
    return h("label", { className: "thread-pick", "data-thread-id": id },
      h("input", { type: "checkbox", className: "batch-thread", value: id, checked: batch.selected.has(id), onChange: (event) => {
        if (event.target.checked) batch.selected.add(id)
        else batch.selected.delete(id)
        batch.prepared = null
        renderBatchPanel()
      } }),
      h("span", { className: "thread-num", text: `#${index + 1}` }),
      h("span", { className: "thread-text" }, h("span", { className: "thread-title", text: thread.title || id }), h("span", { className: "thread-meta", text: meta })))
  }

  function setBatchMode(on) {
    batch.on = on
    $("batch-panel").hidden = !on
    renderThreads()
    renderBatchPanel()
  }

  /** Selects the N most recent or most expensive threads of the current source. */
  async function pickThreads() {
    const count = Math.max(1, Math.min(MAX_BATCH_THREADS, Math.floor(Number(batch.pickCount) || 0)))
    try {
      const result = await callTool("list_threads", { source: draft.source, sort: batch.pickSort, limit: count })
      batch.selected = new Set((result.threads || []).map((thread) => thread.imported_thread_id))
      batch.prepared = null
      renderThreads()
      renderBatchPanel()
    } catch (error) {
      notice(`Could not list threads: ${error.message}`)
    }
  }

  /** A thread's configuration as `codex-replay batch` builds it: the inspection's defaults, approved with the batch. */
  function batchEntry(result, models) {
    const c = defaultConfig(result)
    const nonGit = c.beginning_kind === "non_git"
    const preexisting = ((result.file_selection || {}).preexisting_files) || []
    const entry = {
      thread_id: c.thread_id,
      source_path: c.source_path,
      message_uuid: c.message_uuid,
      request: c.request,
      repo: c.repo || null,
      beginning_kind: c.beginning_kind,
      ending_kind: c.ending_kind,
      baseline_commit: c.beginning_kind === "git" ? c.baseline_commit || null : null,
      ending_commit: c.ending_kind === "git" ? c.ending_commit || null : null,
      models,
      timeout_seconds: c.timeout_seconds
    }
    if (nonGit) {
      entry.created_by_claude = c.files.filter((file) => file.selected && file.kind === "created").map((file) => file.path)
      entry.confirm_empty_beginning = preexisting.length === 0
      entry.confirm_file_selection = Boolean(result.workspace && result.workspace.requires_confirmation)
    } else entry.confirm_repository_selection = Boolean(c.repo)
    return entry
  }

  async function inspectForBatch(ids, models) {
    const entries = []
    const unconfigured = []
    const queue = ids.slice()
    const worker = async () => {
      for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
        try {
          const result = await callTool("inspect_thread", { thread_id: id })
          const blockers = result.blockers || []
          if (blockers.length || !((result.thread || {}).request || "").trim()) unconfigured.push({ thread_id: id, reasons: blockers.length ? blockers : ["The thread has no request to replay."] })
          else entries.push(batchEntry(result, models))
        } catch (error) {
          unconfigured.push({ thread_id: id, reasons: [error.message] })
        }
      }
    }
    await Promise.all([worker(), worker(), worker(), worker()])
    const order = (entry) => ids.indexOf(entry.thread_id)
    return { entries: entries.sort((a, b) => order(a) - order(b)), unconfigured }
  }

  const batchPayload = () => {
    const secondJudge = secondJudgeValue(batch.second_judge, batch.second_judge_model)
    return { configurations: batch.configurations, reviewer_model: batch.reviewer || null, ...(secondJudge ? { second_judge: secondJudge } : {}) }
  }

  async function prepareBatchFromPage() {
    batch.busy = true
    renderBatchPanel()
    notice("")
    try {
      const { entries, unconfigured } = await inspectForBatch([...batch.selected], batch.models.slice())
      batch.unconfigured = unconfigured
      batch.configurations = entries
      batch.prepared = entries.length ? await callTool("prepare_run", batchPayload()) : { ready: false, blocked: [] }
    } catch (error) {
      notice(`Prepare failed: ${error.message}`)
    } finally {
      batch.busy = false
      renderBatchPanel()
      const next = $("batch-start") || $("batch-edit") || $("batch-prepare")
      if (next) next.focus()
    }
  }

  async function startBatchFromPage() {
    const prepared = batch.prepared
    if (!prepared || !prepared.prepare_token) return
    batch.busy = true
    renderBatchPanel()
    try {
      const result = await callTool("start_run", { ...batchPayload(), approved: true, prepare_token: prepared.prepare_token })
      batch.id = result.batch_id
      batch.summary = result.batch
      batch.prepared = null
      app.runFocus = "batch"
      showStep("run", true)
      pollBatch()
    } catch (error) {
      notice(`Start failed: ${error.message}`)
    } finally {
      batch.busy = false
      renderBatchPanel()
    }
  }

  function renderBatchPanel() {
    const body = $("batch-panel-body")
    if (!body || !batch.on) return
    if (batch.models === null) batch.models = offeredModels().filter((model) => model.default).map((model) => model.id).slice(0, MAX_MODELS)
    body.replaceChildren()
    const count = batch.selected.size
    const reasons = []
    if (count === 0) reasons.push("Select at least one thread.")
    if (count > MAX_BATCH_THREADS) reasons.push(`Select at most ${MAX_BATCH_THREADS} threads.`)
    if (batch.models.length === 0) reasons.push("Choose at least one Codex model.")
    body.append(
      h("p", { id: "batch-count", role: "status", text: `${count} thread${count === 1 ? "" : "s"} selected.` }),
      h("div", { className: "actions" },
        h("button", { type: "button", className: "secondary", id: "batch-select-shown", text: "Select all shown", onClick: () => {
          for (const thread of app.threads) batch.selected.add(thread.imported_thread_id)
          batch.prepared = null
          renderThreads()
          renderBatchPanel()
        } }), " ",
        h("button", { type: "button", className: "secondary", id: "batch-clear", text: "Clear selection", disabled: count === 0, onClick: () => {
          batch.selected.clear()
          batch.prepared = null
          renderThreads()
          renderBatchPanel()
        } })),
      h("div", { className: "batch-pick", role: "group", "aria-label": "Select the N most recent or most expensive threads" },
        h("label", {}, "Select the ", h("input", { type: "number", id: "batch-pick-count", min: "1", max: String(MAX_BATCH_THREADS), step: "1", value: String(batch.pickCount), onInput: (event) => { batch.pickCount = event.target.value } })),
        h("label", {}, h("span", { className: "visually-hidden", text: "Order" }), h("select", { id: "batch-pick-sort", onChange: (event) => { batch.pickSort = event.target.value } },
          h("option", { value: "date", text: "most recent", selected: batch.pickSort === "date" }),
          h("option", { value: "cost", text: "most expensive", selected: batch.pickSort === "cost" }))),
        h("span", { text: "threads" }),
        h("button", { type: "button", className: "secondary", id: "batch-pick", text: "Select", onClick: pickThreads })),
      h("fieldset", { className: "models" }, h("legend", { text: `Codex models for every thread (1 to ${MAX_MODELS})` }),
        offeredModels().map((model, index) => h("label", { className: "check" },
          h("input", { type: "checkbox", id: `batch-model-${index}`, value: model.id, checked: batch.models.includes(model.id), onChange: (event) => {
            const chosen = new Set(batch.models)
            if (event.target.checked) chosen.add(model.id)
            else chosen.delete(model.id)
            batch.models = offeredModels().map((m) => m.id).filter((id) => chosen.has(id)).slice(0, MAX_MODELS)
            batch.prepared = null
            renderBatchPanel()
          } }), ` ${model.id}`))),
      h("label", {}, "Reviewer for every replay ",
        h("select", { id: "batch-reviewer", onChange: (event) => { batch.reviewer = event.target.value; batch.prepared = null } },
          h("option", { value: "", text: reviewerChoiceText(offeredModels(), batch.models) }),
          offeredModels().map((model) => h("option", { value: model.id, text: model.id, selected: batch.reviewer === model.id })))),
      secondJudgeChoice(batch, (value) => { Object.assign(batch, value); batch.prepared = null }))
    if (!batch.prepared) {
      body.append(h("div", { className: "actions" },
        h("button", { type: "button", className: "primary", id: "batch-prepare", text: batch.busy ? "Preparing…" : "Prepare batch", disabled: reasons.length > 0 || batch.busy, onClick: prepareBatchFromPage })),
        h("p", { className: reasons.length ? "reason" : "hint", role: "status", text: reasons.length ? `Cannot prepare yet: ${reasons.join(" ")}` : "Each thread is configured as it was recorded and prepared on its own; blocked threads are listed and left out." }))
      return
    }
    const prepared = batch.prepared
    const blocked = batch.unconfigured.concat(prepared.blocked || [])
    body.append(h("div", { className: "approval", role: "group", "aria-labelledby": "batch-approval-title" },
      h("h3", { id: "batch-approval-title", text: prepared.ready ? "Approve the batch" : "The batch is blocked" }),
      prepared.ready ? h("p", { className: "approval-prompt", id: "batch-approval-prompt", text: prepared.approval_prompt }) : null,
      prepared.ready ? estimateLine(prepared.estimate, "batch-cost-estimate") : null,
      preparedReviewerLine(prepared, "batch-approval-reviewer"),
      blocked.length ? h("div", {}, h("p", { text: `Blocked and left out (${blocked.length}):` }),
        h("ul", { id: "batch-blocked", className: "plain error" }, blocked.map((entry) => h("li", { "data-thread-id": entry.thread_id, text: `${entry.thread_id}: ${entry.reasons.join(" ")}` })))) : null,
      h("div", { className: "actions" },
        prepared.ready ? h("button", { type: "button", className: "primary", id: "batch-start", text: batch.busy ? "Starting…" : "Approve and start batch", disabled: batch.busy, onClick: startBatchFromPage }) : null, " ",
        h("button", { type: "button", className: "secondary", id: "batch-edit", text: "Back to selection", disabled: batch.busy, onClick: () => { batch.prepared = null; renderBatchPanel() } }))))
  }

  async function pollBatch() {
    clearTimeout(batch.timer)
    if (!batch.id) return
    try {
      batch.summary = (await callTool("get_batch", { batch_id: batch.id })).batch
    } catch (error) {
      notice(`Could not read the batch: ${error.message}`)
    }
    renderBatchView()
    const summary = batch.summary
    if (summary && summary.status === "running") batch.timer = setTimeout(pollBatch, POLL_MS)
    // The batch's runs are this controller's: the recent runs list shows them as they start and end.
    refreshState()
  }

  function openBatchRun(item) {
    if (item.status === "completed") return openResults(item.run_id, true)
    if (!draft.run_ids.includes(item.run_id)) draft.run_ids = [item.run_id].concat(draft.run_ids).slice(0, MAX_MODELS * 2)
    saveDraft()
    pollRuns()
    const card = document.querySelector(`[data-run-id="${CSS.escape(item.run_id)}"]`)
    if (card) card.scrollIntoView()
  }

  async function cancelWholeBatch() {
    batch.confirmCancel = false
    try {
      batch.summary = (await callTool("cancel_batch", { batch_id: batch.id })).batch
    } catch (error) {
      notice(`Cancel failed: ${error.message}`)
    }
    pollBatch()
  }

  function batchCancelControls(summary) {
    if (summary.status !== "running") return null
    if (batch.confirmCancel) {
      return h("div", { className: "confirm", role: "group", "aria-label": "Confirm cancelling the batch" },
        h("span", { text: "Cancel the whole batch? Its replays in progress stop and nothing more starts." }), " ",
        h("button", { type: "button", className: "danger", id: "batch-confirm-cancel", text: "Yes, cancel the batch", onClick: cancelWholeBatch }), " ",
        h("button", { type: "button", className: "secondary", id: "batch-keep", text: "Keep running", onClick: () => { batch.confirmCancel = false; renderBatchView(); $("batch-cancel").focus() } }))
    }
    return h("button", { type: "button", className: "danger", id: "batch-cancel", text: "Cancel batch", onClick: () => { batch.confirmCancel = true; renderBatchView(); $("batch-confirm-cancel").focus() } })
  }

  function batchProgressText(summary) {
    const c = summary.counts
    const left = summary.estimate_remaining_ms === null ? "estimate after the first replay ends" : `about ${formatDuration(summary.estimate_remaining_ms)} left`
    return `${statusWord(summary.status)}: ${c.completed + c.failed + c.cancelled} of ${summary.total} replays done (${c.completed} completed, ${c.failed} failed, ${c.cancelled} cancelled), ${c.running} running, ${c.pending} pending · ${formatDuration(summary.elapsed_ms)} elapsed${summary.status === "running" ? ` · ${left}` : ""}.${summary.status_note ? ` ${summary.status_note}` : ""}`
  }

  // What the view shows but its clocks: a poll that changes only those updates one line, so the buttons
  // under the pointer or the keyboard stay the same elements (as renderRuns does for the run cards).
  let batchSignature = ""
  function renderBatchView() {
    const summary = batch.summary
    $("batch-card").hidden = !summary
    if (!summary) return
    const body = $("batch-body")
    const { elapsed_ms: _elapsed, estimate_remaining_ms: _left, ...shown } = summary
    const signature = JSON.stringify([shown, batch.confirmCancel])
    if (signature === batchSignature && body.childElementCount > 0) {
      $("batch-progress").textContent = batchProgressText(summary)
      return
    }
    batchSignature = signature
    const focused = document.activeElement && body.contains(document.activeElement) ? document.activeElement.id : null
    body.replaceChildren(
      h("p", { className: "mono muted", text: summary.batch_id }),
      h("p", { id: "batch-progress", role: "status", text: batchProgressText(summary) }),
      h("p", { id: "batch-cost", text: `Cost so far: Codex ${formatUsd(summary.cost_usd.codex)}${summary.cost_usd.unpriced_runs ? ` (+${summary.cost_usd.unpriced_runs} not priced)` : ""} · Claude ${formatUsd(summary.cost_usd.claude)} (once per thread)${batchEvaluationCost(summary.cost_usd)} · reviewer ${summary.reviewer_model}` }),
      summary.blocked.length ? h("p", { className: "hint", text: `Left out as blocked: ${summary.blocked.map((entry) => entry.thread_id).join(", ")}` }) : null,
      h("div", { className: "actions" }, batchCancelControls(summary)),
      summary.portfolio ? h("p", { id: "batch-portfolio", text: `Portfolio verdict written: ${summary.portfolio.portfolio_html}` }) : null,
      h("div", { className: "table-scroll", "aria-label": "Batch replays (scrolls sideways)" },
        h("table", { className: "batch-table", id: "batch-table" },
          h("thead", {}, h("tr", {}, ["Thread", "Model", "Status", "Phase", "Verdict", "Open"].map((label) => h("th", { scope: "col", text: label })))),
          h("tbody", {}, summary.items.map((item) => h("tr", { "data-thread-id": item.thread_id, "data-model": item.model },
            h("td", { className: "mono", text: item.thread_id }),
            h("td", { text: item.model }),
            h("td", {}, statusBadge(item.status)),
            h("td", { text: item.error || item.phase || "—" }),
            stillBlind(item) ? notRevealedCell(item, () => openBatchRun(item)) : h("td", {}, item.winner ? caveatsVerdict(item.caveats) || winnerText(item.winner) : "—", caveatLabels(item.caveats) ? ` · ${caveatLabels(item.caveats)}` : "", typeof item.checks === "string" ? [h("br"), h("span", { className: "checks-sentence-small", text: visibleText(item.checks) })] : null),
            h("td", {}, item.run_id && item.status !== "pending"
              ? h("button", { type: "button", className: "secondary small", "data-batch-run": item.run_id, text: item.status === "completed" ? "Results" : "Run", onClick: () => openBatchRun(item) })
              : null)))))))
    labelScrollRegions(body)
    if (focused && document.getElementById(focused)) document.getElementById(focused).focus()
  }

  const statusWord = (status) => ({ running: "Running", finished: "Finished", cancelled: "Cancelled" })[status] || status

  // ------------------------------------------------------------------------------------------
  // Boot

  async function refreshState() {
    try {
      const result = await callTool("get_state")
      app.state = result.state
      const diagnostics = (app.state.diagnostics || []).map((d) => (typeof d === "string" ? d : d.message || JSON.stringify(d)))
      $("controller-status").textContent = `Ready · version ${app.state.plugin_version}${diagnostics.length ? ` · ${diagnostics.join(" ")}` : ""}`
      $("controller-session").textContent = app.state.controller_session_id
      $("controller-run-root").textContent = app.state.run_root
      renderRecent()
      return app.state
    } catch (error) {
      if (error instanceof TypeError) showControllerGone()
      else $("controller-status").textContent = `Unavailable: ${error.message}`
      return null
    }
  }

  let unreachable = false
  const heartbeat = () =>
    post("/api/heartbeat", {}).then(
      () => {
        if (unreachable) {
          unreachable = false
          refreshState()
        }
      },
      () => {
        unreachable = true
        if (!wasTokenRefused()) showControllerGone()
      }
    )

  // ------------------------------------------------------------------------------------------
  // The controller itself: stopping it, and saying plainly when it is gone

  const GONE_TEXT = () => `The controller at ${location.origin}/ is not running any more. Start it again with “npm start” or “codex-replay open” in a terminal, then open the address it prints.`

  function showControllerGone() {
    $("controller-status").textContent = "Controller stopped"
    $("stop-controller").hidden = true
    notice(GONE_TEXT())
  }

  async function stopController() {
    const button = $("stop-controller")
    button.disabled = true
    try {
      const response = await fetch("/api/stop", { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" })
      const payload = await response.json().catch(() => ({}))
      if (response.status === 409) {
        notice(`The controller was not stopped: ${failureText(payload, response)}`)
        return
      }
      if (!response.ok) throw new Error(failureText(payload, response))
      unreachable = true
      clearTimeout(app.pollTimer)
      $("controller-status").textContent = "Controller stopped"
      button.hidden = true
      notice(`The controller was stopped. ${GONE_TEXT().replace(/^The controller at \S+ is not running any more\. /, "")}`)
    } catch (error) {
      if (error instanceof TypeError) showControllerGone()
      else notice(`The controller was not stopped: ${error.message}`)
    } finally {
      button.disabled = false
    }
  }

  function wire() {
    for (const name of STEPS) $(`tab-${name}`).addEventListener("click", () => {
      const latest = name === "results" ? draft.results_run || latestCompleted() : null
      if (latest) openResults(latest, true)
      else showStep(name, true)
      if (name === "runs") loadRunsView()
    })
    for (const radio of document.querySelectorAll('input[name="source"]')) {
      radio.addEventListener("change", (event) => {
        draft.source = event.target.value
        saveDraft()
        loadThreads(false)
      })
    }
    $("thread-search").addEventListener("input", (event) => {
      draft.query = event.target.value
      saveDraft()
      clearTimeout(searchTimer)
      searchTimer = setTimeout(() => loadThreads(false), 250)
    })
    $("load-more").addEventListener("click", () => loadThreads(true))
    $("thread-sort").addEventListener("change", (event) => {
      draft.sort = event.target.value
      saveDraft()
      loadThreads(false)
    })
    $("stop-controller").addEventListener("click", stopController)
    $("batch-mode").addEventListener("change", (event) => setBatchMode(event.target.checked))
    wireRunsView(runsHost)
    setInterval(tickPhaseCounters, 1000)
  }

  async function boot() {
    wire()
    heartbeat()
    setInterval(heartbeat, HEARTBEAT_MS)
    const state = await refreshState()
    if (!state) return
    app.session = state.controller_session_id
    loadDraft()
    $("source-sample").checked = draft.source === "sample"
    $("source-imported").checked = draft.source !== "sample"
    $("thread-search").value = draft.query || ""
    $("thread-sort").value = draft.sort === "cost" ? "cost" : "date"
    // The source is chosen once the draft is read: a choice made earlier would be undone by it (and by the
    // step shown below, in the same turn, before any other event).
    $("source-sample").disabled = false
    $("source-imported").disabled = false
    loadThreads(false)
    // Resume: runs of this draft, and any run of this controller that is still active.
    const active = (state.recent_runs || []).filter((run) => run.status === "running").map((run) => run.run_id)
    const resume = active.filter((id) => !draft.run_ids.includes(id))
    if (resume.length) draft.run_ids = draft.run_ids.concat(resume)
    if (draft.thread_id && currentAddress().view !== "thread") inspect(draft.thread_id)
    if (state.batch) {
      batch.id = state.batch.batch_id
      batch.summary = state.batch
      pollBatch()
    }
    onAddressChange(openAddress)
    const address = currentAddress()
    app.addressHow = "replace"
    if (address.view !== "home") {
      if (draft.run_ids.length) pollRuns()
      await openAddress(address)
    } else if (active.length) {
      showStep("run")
      draft.results_run = null
      await pollRuns()
    } else if (draft.step === "results" && draft.results_run) {
      if (draft.run_ids.length) await pollRuns()
      openResults(draft.results_run, false)
    } else {
      showStep(draft.step || "thread")
      if (draft.run_ids.length) pollRuns()
    }
    app.addressHow = "push"
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

  boot()
