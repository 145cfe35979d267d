/**
 * The page's shell: opening the view an address names, the Runs list's way into a run, "Replay again",
 * the controller's state and heartbeat, stopping the controller and saying plainly when it is gone, and
 * boot. It reaches the views it does not own through `ShellHost`.
 */
import type { RunSummary } from "../domain/contracts/index.js"
import { type BatchViewHost, batchView, pollBatch } from "./batch.js"
import { type BatchFormHost, wireBatchForm } from "./batchForm.js"
import { callTool, failureText, messageOf, post, wasTokenRefused } from "./client.js"
import { byId, controlById, notice } from "./dom.js"
import { hostSlot } from "./hostSlot.js"
import { type Address, currentAddress, onAddressChange, showAddress } from "./router.js"
import { loadRunsView as loadRunsList, type RunsListHost, setRunsFilters, wireRunsView } from "./runsList.js"
import { app, draft, HEARTBEAT_MS, loadDraft, saveDraft, showStep, STEPS } from "./state.js"

/** What the shell needs from the views it does not own. */
export interface ShellHost {
  readonly runsHost: RunsListHost
  readonly batchHost: BatchViewHost
  readonly batchFormHost: BatchFormHost
  readonly renderThreads: () => void
  readonly loadThreads: (append: boolean) => void
  readonly inspect: (threadId: string) => void
  readonly openResults: (runId: string, focus: boolean) => Promise<void> | void
  readonly pollRuns: () => Promise<void> | void
  readonly renderRecent: () => void
  readonly tickPhaseCounters: () => void
  /** The newest completed run of the page's runs, if any. */
  readonly latestCompleted: () => string | null | undefined
}

const slot = hostSlot<ShellHost>("The page has not booted yet.")
const theHost = slot.get

export const loadRunsView = () => loadRunsList(theHost().runsHost)

/** A run's address: its Results once it completed, else its Run view; one the controller does not know is said. */
async function openRunAddress(id: string) {
  const shell = theHost()
  app.runFocus = "runs"
  let status: string
  try {
    status = (await callTool("get_run", { run_id: id })).run.status
  } catch (error) {
    notice(`Could not open the run ${id}: ${messageOf(error)}`)
    showStep("runs")
    void loadRunsView()
    return
  }
  if (!draft.run_ids.includes(id)) draft.run_ids = [id]
  saveDraft()
  app.addressHow = "replace"
  if (status === "completed") {
    void shell.pollRuns()
    await shell.openResults(id, false)
  } else {
    draft.results_run = null
    showStep("run")
    void shell.pollRuns()
  }
}

/** Opens the view an address names (on loading the page, and on Back and Forward); the address bar stays. */
export async function openAddress(address: Address) {
  const shell = theHost()
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
        shell.renderThreads()
        showStep("configure")
        shell.inspect(id)
        return
      }
      case "run":
        return await openRunAddress(address.runId)
      case "batch":
        app.runFocus = "batch"
        if (batchView.id !== address.batchId) {
          batchView.id = address.batchId
          batchView.summary = null
          batchView.grid = null
        }
        showStep("run")
        void pollBatch(shell.batchHost)
        return
      case "runs":
        setRunsFilters(address.filters)
        showStep("runs")
        void loadRunsView()
        return
      default:
        showStep("thread")
    }
  } finally {
    app.addressHow = "push"
  }
}

/** A run's address followed from a link of the page (a grid's cell): a new history entry, then its view. */
export function openRunLink(id: string) {
  showAddress({ view: "run", runId: id }, "push")
  void openAddress({ view: "run", runId: id })
}

/** Opens a run of the list: its Results when a report exists, its Run view otherwise, with the runs started beside it. */
export function openFromRunsView(run: RunSummary, siblings: ReadonlyArray<string>) {
  const shell = theHost()
  app.runFocus = "runs"
  draft.run_ids = siblings.length ? [...siblings] : [run.run_id]
  draft.results_run = null
  saveDraft()
  void shell.pollRuns()
  if (run.report_ready) void shell.openResults(run.run_id, true)
  else showStep("run", true)
}

/** Configure of a finished, failed or cancelled run's thread, with its configuration (or its models) pre-filled. */
export function replayAgain(run: { readonly run_id: string; readonly thread_id?: string | undefined; readonly model?: string | null | undefined; readonly models?: ReadonlyArray<string> | null | undefined }) {
  const threadId = run.thread_id
  if (threadId === undefined) return
  const saved = (draft.run_configs ?? {})[run.run_id]
  draft.thread_id = threadId
  draft.config = saved ? { ...saved } : null
  const models = Array.isArray(run.models) && run.models.length ? run.models : [run.model]
  app.pendingModels = saved ? null : models.filter((model): model is string => typeof model === "string" && model !== "")
  app.prepared = null
  saveDraft()
  showStep("configure", true)
  theHost().inspect(threadId)
}

export async function refreshState() {
  try {
    const result = await callTool("get_state")
    app.state = result.state
    const diagnostics = app.state.diagnostics.map((d) => (typeof d === "string" ? d : JSON.stringify(d)))
    byId("controller-status").textContent = `Ready · version ${app.state.plugin_version}${diagnostics.length ? ` · ${diagnostics.join(" ")}` : ""}`
    byId("controller-session").textContent = app.state.controller_session_id
    byId("controller-run-root").textContent = app.state.run_root
    theHost().renderRecent()
    return app.state
  } catch (error) {
    if (error instanceof TypeError) showControllerGone()
    else byId("controller-status").textContent = `Unavailable: ${messageOf(error)}`
    return null
  }
}

let unreachable = false
const heartbeat = () =>
  post("/api/heartbeat", {}).then(
    () => {
      if (unreachable) {
        unreachable = false
        void refreshState()
      }
    },
    () => {
      unreachable = true
      if (!wasTokenRefused()) showControllerGone()
    }
  )

const GONE_TEXT = () => `The controller at ${location.origin}/ is not running any more. Start it again with “npm start” or “codex-replay open” in a terminal, then open the address it prints.`

function showControllerGone() {
  byId("controller-status").textContent = "Controller stopped"
  byId("stop-controller").hidden = true
  notice(GONE_TEXT())
}

async function stopController() {
  const button = byId("stop-controller")
  if (button instanceof HTMLButtonElement) button.disabled = true
  try {
    const response = await fetch("/api/stop", { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" })
    const payload: unknown = await response.json().catch(() => ({}))
    if (response.status === 409) {
      notice(`The controller was not stopped: ${failureText(payload, response)}`)
      return
    }
    if (!response.ok) throw new Error(failureText(payload, response))
    unreachable = true
    if (app.pollTimer !== null) clearTimeout(app.pollTimer)
    byId("controller-status").textContent = "Controller stopped"
    button.hidden = true
    notice(`The controller was stopped. ${GONE_TEXT().replace(/^The controller at \S+ is not running any more\. /, "")}`)
  } catch (error) {
    if (error instanceof TypeError) showControllerGone()
    else notice(`The controller was not stopped: ${messageOf(error)}`)
  } finally {
    if (button instanceof HTMLButtonElement) button.disabled = false
  }
}

function wire(shell: ShellHost) {
  for (const name of STEPS) {
    byId(`tab-${name}`).addEventListener("click", () => {
      const latest = name === "results" ? draft.results_run || shell.latestCompleted() : null
      if (latest) void shell.openResults(latest, true)
      else showStep(name, true)
      if (name === "runs") void loadRunsView()
    })
  }
  for (const radio of document.querySelectorAll<HTMLInputElement>('input[name="source"]')) {
    radio.addEventListener("change", () => {
      draft.source = radio.value
      saveDraft()
      shell.loadThreads(false)
    })
  }
  let searchTimer: ReturnType<typeof setTimeout> | undefined
  const search = controlById("thread-search", HTMLInputElement)
  search.addEventListener("input", () => {
    draft.query = search.value
    saveDraft()
    clearTimeout(searchTimer)
    searchTimer = setTimeout(() => shell.loadThreads(false), 250)
  })
  byId("load-more").addEventListener("click", () => shell.loadThreads(true))
  const sort = controlById("thread-sort", HTMLSelectElement)
  sort.addEventListener("change", () => {
    draft.sort = sort.value
    saveDraft()
    shell.loadThreads(false)
  })
  byId("stop-controller").addEventListener("click", () => void stopController())
  wireBatchForm(shell.batchFormHost)
  wireRunsView(shell.runsHost)
  setInterval(shell.tickPhaseCounters, 1000)
}

export async function boot(shell: ShellHost) {
  slot.set(shell)
  wire(shell)
  void heartbeat()
  setInterval(heartbeat, HEARTBEAT_MS)
  const state = await refreshState()
  if (!state) return
  app.session = state.controller_session_id
  loadDraft()
  const sample = controlById("source-sample", HTMLInputElement)
  const imported = controlById("source-imported", HTMLInputElement)
  sample.checked = draft.source === "sample"
  imported.checked = draft.source !== "sample"
  controlById("thread-search", HTMLInputElement).value = draft.query || ""
  controlById("thread-sort", HTMLSelectElement).value = draft.sort === "cost" ? "cost" : "date"
  // The source is chosen once the draft is read: a choice made earlier would be undone by it (and by the
  // step shown below, in the same turn, before any other event).
  sample.disabled = false
  imported.disabled = false
  shell.loadThreads(false)
  // Resume: runs of this draft, and any run of this controller that is still active.
  const active = state.recent_runs.filter((run) => run.status === "running").map((run) => run.run_id)
  const resume = active.filter((id) => !draft.run_ids.includes(id))
  if (resume.length) draft.run_ids = draft.run_ids.concat(resume)
  if (draft.thread_id && currentAddress().view !== "thread") shell.inspect(draft.thread_id)
  if (state.batch && currentAddress().view !== "batch") {
    batchView.id = state.batch.batch_id
    batchView.summary = state.batch
    void pollBatch(shell.batchHost)
  }
  onAddressChange((address) => void openAddress(address))
  const address = currentAddress()
  app.addressHow = "replace"
  if (address.view !== "home") {
    if (draft.run_ids.length) void shell.pollRuns()
    await openAddress(address)
  } else if (active.length) {
    showStep("run")
    draft.results_run = null
    await shell.pollRuns()
  } else if (draft.step === "results" && draft.results_run) {
    if (draft.run_ids.length) await shell.pollRuns()
    void shell.openResults(draft.results_run, false)
  } else {
    showStep(draft.step || "thread")
    if (draft.run_ids.length) void shell.pollRuns()
  }
  app.addressHow = "push"
}
