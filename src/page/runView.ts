/**
 * The Run view: a card per run this page follows (its phases with their clocks, what Codex did, its events
 * and raw log), polled each second while one runs; the Recent runs list beside it. A failed run says what
 * to do (`failureAdvice`, the command line's words); a finished run shows no phase still running.
 */
import type { RepeatOutcomes } from "../domain/contracts/index.js"
import { failureAdvice } from "../domain/failureAdvice.js"
import { callTool, messageOf } from "./client.js"
import { byId, type Child, h, notice } from "./dom.js"
import { clockText, formatTime } from "./format.js"
import { pageHost, type RunView } from "./pageHost.js"
import { openResults } from "./results.js"
import { supervisionText } from "./runsList.js"
import { learnTitles, threadName } from "./titles.js"

const POLL_MS = 1000
const FINISHED = new Set(["completed", "failed", "cancelled"])

/** The repeats of each followed run's (thread, model) start, as `get_run` answered them last. */
export const repeatsOfRun = new Map<string, RepeatOutcomes>()


export const isActive = (run: RunView | undefined): boolean => run !== undefined && run.status === "running"

export async function pollRuns(): Promise<void> {
  const { app, draft } = pageHost()
  if (app.pollTimer !== null) clearTimeout(app.pollTimer)
  const ids = draft.run_ids
  await Promise.all(ids.map(async (id) => {
    try {
      const result = await callTool("get_run", { run_id: id })
      app.runs[id] = result.run
      if (result.repeats === undefined) repeatsOfRun.delete(id)
      else repeatsOfRun.set(id, result.repeats)
    } catch (error) {
      const known = app.runs[id]
      app.runs[id] = { ...known, run_id: id, load_error: messageOf(error) }
    }
  }))
  renderRuns()
  const active = ids.some((id) => isActive(app.runs[id]))
  if (active) app.pollTimer = setTimeout(() => void pollRuns(), POLL_MS)
  else if (ids.length > 0) {
    void pageHost().refreshState()
    const done = ids.find((id) => app.runs[id]?.status === "completed")
    if (done !== undefined && app.step === "run" && draft.results_run === null) void openResults(done)
  }
}

export const statusBadge = (status: string | null | undefined): HTMLElement =>
  h("span", { className: `badge status status-${status ?? "unknown"}`, text: status ?? "unknown" })

type Times = Record<string, { readonly start: number; readonly end: number | null }>

/** When each phase started and ended, from the run's events. */
export function phaseTimes(run: RunView): Times {
  const order = (run.phases ?? []).map((phase) => phase.id)
  const starts: Record<string, number> = {}
  for (const event of run.events ?? []) if (!(event.phase in starts)) starts[event.phase] = Date.parse(event.at)
  const times: Times = {}
  order.forEach((id, index) => {
    const start = starts[id]
    if (start === undefined) return
    const next = order.slice(index + 1).find((later) => later in starts)
    const nextStart = next === undefined ? undefined : starts[next]
    const end = nextStart ?? (typeof run.completed_at === "string" ? Date.parse(run.completed_at) : null)
    times[id] = { start, end }
  })
  return times
}

/**
 * A phase's status as shown: a finished run has no phase still running or waiting (its state may have
 * stopped mid-phase, e.g. "reporting" when it failed there); that phase reads as where the run ended.
 */
export const shownPhaseStatus = (run: RunView, status: string) => {
  if (!FINISHED.has(run.status ?? "") || (status !== "running" && status !== "waiting" && status !== "pending")) return status
  if (status !== "running") return "skipped"
  return run.status === "completed" ? "complete" : run.status ?? status
}

export function phaseCounter(run: RunView, phase: { readonly id: string; readonly status: string }, times: Times): HTMLElement | null {
  const time = times[phase.id]
  if (time === undefined || phase.status === "waiting") return null
  const running = phase.status === "running" && isActive(run)
  return h("span", {
    className: "phase-elapsed mono",
    "data-since": running ? String(time.start) : undefined,
    text: clockText((running ? Date.now() : time.end ?? Date.now()) - time.start)
  })
}

/** Ticks the counters of running phases between polls. */
export function tickPhaseCounters() {
  for (const counter of document.querySelectorAll("[data-since]")) counter.textContent = clockText(Date.now() - Number(counter.getAttribute("data-since")))
}

export function reviewOrderText(run: RunView): string | null {
  if (run.phase !== "reviewing" || !isActive(run)) return null
  const started = (run.run_log ?? "").match(/review:codex:(ab|ba)\] started|review:codex:(ab|ba) started/g)?.length ?? 0
  return started > 0 ? `Blind review: order ${Math.min(started, 2)} of 2` : "Blind review: starting"
}

interface Step {
  readonly kind: "message" | "command" | "file" | "reasoning"
  readonly text: string
  readonly exit?: number | null
}

const MARK = "[implementation:stdout] "
const record = (value: unknown): Record<string, unknown> | null =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? Object.fromEntries(Object.entries(value)) : null
const str = (value: unknown) => (typeof value === "string" ? value : "")

/** Codex's messages, commands with exit codes and file changes, out of the implementation's JSON lines. */
export function trajectoryOf(runLog: string | undefined): Array<Step> {
  const steps: Array<Step> = []
  for (const line of (runLog ?? "").split("\n")) {
    const at = line.indexOf(MARK)
    if (at < 0) continue
    let event: Record<string, unknown> | null
    try {
      event = record(JSON.parse(line.slice(at + MARK.length)))
    } catch {
      continue
    }
    const item = event !== null && event["type"] === "item.completed" ? record(event["item"]) : null
    if (item === null) continue
    const type = item["type"]
    if (type === "agent_message" && str(item["text"])) steps.push({ kind: "message", text: str(item["text"]) })
    else if (type === "command_execution") steps.push({ kind: "command", text: str(item["command"]), exit: typeof item["exit_code"] === "number" ? item["exit_code"] : null })
    else if (type === "file_change") {
      for (const change of Array.isArray(item["changes"]) ? item["changes"] : []) {
        const entry = record(change)
        steps.push({ kind: "file", text: `${str(entry?.["kind"]) || "update"} ${str(entry?.["path"])}` })
      }
    } else if (type === "reasoning" && str(item["text"])) steps.push({ kind: "reasoning", text: str(item["text"]) })
  }
  return steps
}

export function trajectorySection(run: RunView): HTMLElement {
  const steps = trajectoryOf(run.run_log)
  const list = h("ol", { className: "trajectory" }, steps.slice(-200).map((step) => {
    if (step.kind === "command") {
      return h("li", { className: "step-command" }, h("span", { className: "badge", text: "command" }), " ", h("code", { text: step.text }), " ",
        h("span", { className: step.exit === 0 ? "exit-ok" : "exit-bad", text: step.exit === undefined || step.exit === null ? "running" : `exit ${step.exit}` }))
    }
    if (step.kind === "file") return h("li", { className: "step-file" }, h("span", { className: "badge", text: "file" }), " ", h("code", { text: step.text }))
    return h("li", { className: `step-${step.kind}` }, h("span", { className: "badge", text: step.kind === "message" ? "Codex" : "thinking" }), " ", h("span", { text: step.text }))
  }))
  return h("details", { className: "trajectory-box", open: true, "data-key": `trajectory:${run.run_id}` },
    h("summary", { "data-focus-key": `trajectory:${run.run_id}`, text: `What Codex did (${steps.length} step${steps.length === 1 ? "" : "s"})` }),
    steps.length > 0 ? list : h("p", { className: "muted", text: "Nothing yet." }))
}

const focusSelector = (selector: string) => {
  const element = document.querySelector(selector)
  if (element instanceof HTMLElement) element.focus()
}

export async function cancel(id: string) {
  const { app } = pageHost()
  try {
    const result = await callTool("cancel_run", { run_id: id })
    app.runs[id] = { ...app.runs[id], ...result.run }
  } catch (error) {
    notice(`Cancel failed: ${messageOf(error)}`)
  }
  void pollRuns()
}

export function cancelControls(run: RunView, id: string): HTMLElement | null {
  const { app } = pageHost()
  if (run.supervision?.read_only === true) return h("p", { className: "hint", text: supervisionText({ supervision: run.supervision }) })
  if (!isActive(run)) return null
  if (app.confirmCancel === id) {
    return h("div", { className: "confirm", role: "group", "aria-label": "Confirm cancellation" },
      h("span", { text: "Cancel this run? Codex stops and no report is written." }), " ",
      h("button", { type: "button", className: "danger", text: "Yes, cancel the run", "data-confirm-cancel": id, "data-focus-key": `confirm:${id}`, onClick: () => {
        app.confirmCancel = null
        void cancel(id)
      } }), " ",
      h("button", { type: "button", className: "secondary", text: "Keep running", "data-focus-key": `keep:${id}`, onClick: () => {
        app.confirmCancel = null
        runsSignature = ""
        renderRuns()
        focusSelector(`[data-cancel="${CSS.escape(id)}"]`)
      } }))
  }
  return h("button", { type: "button", className: "danger", text: "Cancel", "data-cancel": id, "data-focus-key": `cancel:${id}`, onClick: () => {
    app.confirmCancel = id
    runsSignature = ""
    renderRuns()
    focusSelector(`[data-confirm-cancel="${CSS.escape(id)}"]`)
  } })
}

/** A failed run's error, its diagnostic's codes, and what to do, in one sentence. */
const failureLines = (run: RunView): Array<Child> => {
  const diagnostic = run["failure_diagnostic"]
  const codes = record(diagnostic)
  const advice = run.status === "failed" ? failureAdvice(diagnostic, run.error) : null
  return [
    typeof run.error === "string" && run.error !== "" ? h("p", { className: "error", text: run.error }) : null,
    advice === null ? null : h("p", { className: "callout failure-advice", "data-advice": run.run_id, text: `What to do: ${advice}` }),
    codes === null ? null : h("p", { className: "hint mono", text: Object.entries(codes).filter(([, v]) => v !== null && typeof v !== "object").map(([k, v]) => `${k}: ${String(v)}`).join(" · ") })
  ]
}

const runCard = (id: string, run: RunView): HTMLElement => {
  const logId = `log-${id}`
  const times = phaseTimes(run)
  const order = reviewOrderText(run)
  const finished = FINISHED.has(run.status ?? "")
  return h("article", { className: "run", "data-run-id": id, "aria-label": `Run ${id}` },
    h("div", { className: "run-head" },
      h("div", {}, h("p", { className: "run-model", text: run.model ?? "…" }), h("p", { className: "muted mono", text: id })),
      h("div", { className: "run-head-right" }, statusBadge(run.status),
        cancelControls(run, id),
        run.status === "completed" ? h("button", { type: "button", className: "primary", text: "View results", "data-results": id, "data-focus-key": `results:${id}`, onClick: () => void openResults(id, true) }) : null,
        finished && run.thread_id !== undefined ? h("button", { type: "button", className: "secondary", text: "Replay again", "data-replay-again": id, "data-focus-key": `again:${id}`, onClick: () => pageHost().replayAgain(run) }) : null)),
    order === null ? null : h("p", { className: "review-order", role: "status", text: order }),
    run.load_error === undefined ? null : h("p", { className: "error", text: run.load_error }),
    failureLines(run),
    h("ol", { className: "phases", "aria-label": "Phases" }, (run.phases ?? []).map((phase) => {
      const status = shownPhaseStatus(run, phase.status)
      return h("li", { className: `phase phase-${status}` },
        h("span", { className: "phase-dot", "aria-hidden": "true" }), h("span", { className: "phase-label", text: phase.label || phase.id }), h("span", { className: "phase-status", text: status }), " ",
        phaseCounter(run, { id: phase.id, status }, times))
    })),
    trajectorySection(run),
    h("details", { className: "events", open: true, "data-key": `events:${id}` }, h("summary", { "data-focus-key": `events:${id}`, text: `Events (${(run.events ?? []).length})` }),
      h("ol", { className: "event-list" }, (run.events ?? []).slice(-30).map((event) => h("li", {},
        h("time", { className: "mono muted", datetime: event.at, text: formatTime(event.at) }), " ", h("span", { className: "badge", text: event.phase }), " ", event.summary || event.status)))),
    h("details", { className: "log", "data-key": `log:${id}` }, h("summary", { "data-focus-key": `log:${id}`, text: "Raw run log" }),
      h("pre", { className: "run-log", id: logId, tabindex: "0", "data-focus-key": `logpre:${id}`, "aria-label": "Run log", text: run.run_log || "(empty)" })))
}

let runsSignature = ""
export function renderRuns() {
  const { app, draft } = pageHost()
  const body = byId("run-body")
  const ids = draft.run_ids
  const signature = JSON.stringify(ids.map((id) => {
    const run = app.runs[id]
    return [id, run?.status, run?.updated_at, (run?.run_log ?? "").length, run?.load_error ?? "", app.confirmCancel === id]
  }))
  if (signature === runsSignature && body.childElementCount > 0) return
  runsSignature = signature
  const active = document.activeElement
  const focusKey = active !== null && body.contains(active) ? active.getAttribute("data-focus-key") : null
  const details = [...body.querySelectorAll<HTMLDetailsElement>("details[data-key]")]
  const closed = new Set(details.filter((d) => !d.open).map((d) => d.getAttribute("data-key")))
  const opened = new Set(details.filter((d) => d.open).map((d) => d.getAttribute("data-key")))
  // Follow the end of a log unless the reader scrolled up in it.
  const scrolled = new Map([...body.querySelectorAll<HTMLElement>("pre.run-log")]
    .filter((log) => log.scrollTop + log.clientHeight < log.scrollHeight - 8)
    .map((log) => [log.id, log.scrollTop] as const))
  body.replaceChildren()
  if (ids.length === 0) {
    body.append(h("p", { className: "muted", text: "No run started from this page yet." }))
    return
  }
  for (const id of ids) {
    body.append(runCard(id, app.runs[id] ?? { run_id: id }))
    const log = document.getElementById(`log-${id}`)
    if (log !== null) log.scrollTop = scrolled.get(`log-${id}`) ?? log.scrollHeight
  }
  for (const element of body.querySelectorAll<HTMLDetailsElement>("details[data-key]")) {
    if (closed.has(element.getAttribute("data-key"))) element.open = false
    if (opened.has(element.getAttribute("data-key"))) element.open = true
  }
  if (focusKey !== null) focusSelector(`#run-body [data-focus-key="${CSS.escape(focusKey)}"]`)
  syncRecentRuns()
}

/** The Recent runs list follows the run cards in the same render (get_state catches up later). */
export function syncRecentRuns() {
  const { app, draft } = pageHost()
  if (app.state === null) return
  const recent = app.state.recent_runs
  const known = new Set(recent.map((run) => run.run_id))
  const fresh = draft.run_ids.flatMap((id) => {
    const run = app.runs[id]
    return !known.has(id) && run?.supervision?.this_controller === true && run.status !== undefined && isState(run) ? [run] : []
  })
  const merged = [...fresh, ...recent].map((run) => {
    const status = app.runs[run.run_id]?.status
    return status === undefined ? run : { ...run, status }
  })
  app.state = { ...app.state, recent_runs: merged }
  renderRecent()
}

type StateRun = NonNullable<ReturnType<typeof pageHost>["app"]["state"]>["recent_runs"][number]
/** A run `get_run` answered whole (not only its id and an error), as the Recent runs list holds it. */
const isState = (run: RunView): run is RunView & StateRun =>
  typeof run.status === "string" && typeof run.controller_session_id === "string" && typeof run.started_at === "string" && Array.isArray(run.phases)

export function renderRecent() {
  const { app, draft } = pageHost()
  const list = byId("recent-runs")
  list.replaceChildren()
  const runs = app.state?.recent_runs ?? []
  if (runs.length === 0) {
    list.append(h("li", { className: "muted", text: "No runs yet." }))
    return
  }
  learnTitles(runs.flatMap((run) => (typeof run.thread_id === "string" ? [run.thread_id] : [])), renderRecent)
  for (const run of runs) {
    const thread = typeof run.thread_id === "string" ? threadName(run.thread_id) : null
    list.append(h("li", {},
      h("span", { className: "mono", text: run.run_id }),
      h("span", { className: "muted recent-run-thread" }, run.model ?? "", run.model && thread ? " · " : "", thread),
      statusBadge(run.status),
      h("button", { type: "button", className: "secondary small", text: "Open", onClick: () => {
        if (!draft.run_ids.includes(run.run_id)) draft.run_ids = [run.run_id, ...draft.run_ids].slice(0, pageHost().maxModels * 2)
        pageHost().saveDraft()
        if (run.status === "completed") void openResults(run.run_id, true)
        else {
          pageHost().showStep("run", true)
          void pollRuns()
        }
      } })))
  }
}
