/**
 * The page's wiring: each view's module gets the hooks it needs into the others (its host), then the shell boots.
 */
import { MAX_REPLAY_MODELS } from "../domain/product.js"
import { h } from "./dom.js"
import { app, applyPendingModels, draft, rememberConfig, saveDraft, showStep, syncAddress } from "./state.js"
import { boot, openFromRunsView, openRunLink, refreshState, replayAgain } from "./shell.js"
import { type BatchViewHost, batchView, pollBatch } from "./batch.js"
import { type BatchFormHost, batchForm as batch, batchThreadPick } from "./batchForm.js"
import { saveBlob } from "./download.js"
import { comparePortfolio } from "./portfolioPanel.js"
import type { RunsListHost } from "./runsList.js"
import { installConfigureHost } from "./configureHost.js"
import { loadThreads, renderThreads } from "./threads.js"
import { defaultConfig, inspect } from "./configure.js"
import { secondJudgeChoice, secondJudgeValue } from "./configureSections.js"
import { estimateLine, preparedReviewerLine, reviewerChoiceText } from "./prepare.js"
import { setPageHost } from "./pageHost.js"
import { pollRuns, renderRecent, renderRuns, statusBadge, tickPhaseCounters } from "./runView.js"
import { latestCompleted, openResults } from "./results.js"
import { notRevealedCell, stillBlind } from "./blindVote.js"
import { caveatLabels, notLeak, runVerdictText, tallyCounts, visibleText } from "./verdicts.js"
import { remediationText } from "./remediation.js"

  /** The Runs view's hooks into the rest of the page (src/page/runsList.ts). */
  const runsHost: RunsListHost = {
    stillBlind: (run) => stillBlind(run),
    notRevealedCell: (run, open) => notRevealedCell(run, open),
    verdictText: (run) => {
      if (!run.winner) return "—"
      const leak = run.possible_leak === true ? " · matches Claude's result: possible leak" : ""
      const labels = caveatLabels(notLeak(run.caveats))
      const tally = run.dimensions && tallyCounts(run.winner, run.caveats) ? ` (${run.dimensions.won} won, ${run.dimensions.tied} tied, ${run.dimensions.lost} lost)` : ""
      return `${runVerdictText(run.winner, run.caveats)}${tally}${leak}${labels ? ` · ${labels}` : ""}`
    },
    checksNote: (checks) => (typeof checks === "string" ? [h("br"), h("span", { className: "checks-sentence-small", text: visibleText(checks) })] : null),
    statusBadge: (status) => statusBadge(status),
    openRun: (run, siblings) => openFromRunsView(run, siblings),
    filtersChanged: () => syncAddress("replace"),
    compare: (runIds) => comparePortfolio(runIds, openRunLink)
  }

  /** The batch view's hooks into the rest of the page (src/page/batch.ts). */
  const batchHost: BatchViewHost = {
    statusBadge: (status) => statusBadge(status),
    stillBlind: (run) => stillBlind(run),
    notRevealedCell: (run, open) => notRevealedCell(run, open),
    openResults: (id, focus) => openResults(id, focus),
    followRun: (id) => {
      if (!draft.run_ids.includes(id)) draft.run_ids = [id].concat(draft.run_ids).slice(0, MAX_REPLAY_MODELS * 2)
      saveDraft()
      pollRuns()
    },
    openRunAddress: (id) => openRunLink(id),
    refreshState: () => refreshState()
  }

  /** The batch form's hooks into the rest of the page (src/page/batchForm.ts). */
  const batchFormHost: BatchFormHost = {
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
    maxModels: MAX_REPLAY_MODELS
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
