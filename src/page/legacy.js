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
import { setPageHost } from "./pageHost.js"
import { pollRuns, renderRecent, renderRuns, statusBadge, tickPhaseCounters } from "./runView.js"
import { latestCompleted, openResults } from "./results.js"
import { notRevealedCell, stillBlind } from "./blindVote.js"
import { caveatLabels, caveatsVerdict, notLeak, tallyCounts, VERDICTS, visibleText, winnerText } from "./verdicts.js"
import { remediationText } from "./remediation.js"
  const AUTHORS = AUTHOR_LABELS

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

  // The Run and Results views (runView.ts, results.ts, blindVote.ts) reach the page's state through this host.
  setPageHost({
    app,
    get draft() {
      return draft
    },
    showStep,
    saveDraft,
    refreshState,
    replayAgain,
    saveBlob,
    maxModels: MAX_MODELS
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
