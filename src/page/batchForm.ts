/**
 * The batch form (the Thread step's batch mode): threads chosen by checkbox, by search or as "the N most
 * recent or most expensive", one model set, reviewer, second judge and number of repeats for all, empty
 * beginnings accepted or not, then prepare (each ready thread's warnings, the blocked ones, the preflight
 * sentence) and start.
 */
import { type BatchSummary, type InspectThreadResult, MAX_REPEATS, type ModelOption, type PrepareBatchResult, type PrepareResult } from "../domain/contracts/index.js"
import { MAX_REPLAY_MODELS as MAX_MODELS, MAX_REPLAY_THREADS as MAX_BATCH_THREADS } from "../domain/product.js"
import { CONTROLS } from "../domain/unblock.js"
import { callTool, messageOf } from "./client.js"
import { $, byId, type Child, h, notice } from "./dom.js"
import { hostSlot } from "./hostSlot.js"

/** What the batch form needs of a thread's default configuration (Configure's defaults). */
export interface BatchDefaults {
  readonly thread_id: string
  readonly source_path: string | null
  readonly message_uuid: string | null
  readonly request: string
  readonly repo: string
  readonly beginning_kind: "git" | "non_git"
  readonly ending_kind: "git" | "non_git"
  readonly baseline_commit: string
  readonly ending_commit: string
  readonly timeout_seconds: number
  readonly files: ReadonlyArray<{ readonly path: string; readonly kind: string; readonly selected: boolean }>
}

/** What the batch form needs from the rest of the page. */
export interface BatchFormHost {
  readonly threads: () => ReadonlyArray<{ readonly imported_thread_id: string }>
  readonly source: () => string
  readonly offeredModels: () => ReadonlyArray<ModelOption>
  readonly renderThreads: () => void
  readonly defaultConfig: (result: InspectThreadResult) => BatchDefaults
  readonly reviewerChoiceText: (offered: ReadonlyArray<ModelOption>, models: ReadonlyArray<string>) => string
  readonly secondJudgeChoice: (choice: { readonly second_judge: boolean; readonly second_judge_model: string }, update: (value: { second_judge?: boolean; second_judge_model?: string }) => void) => HTMLElement
  readonly secondJudgeValue: (on: boolean, model: string) => string | null
  readonly preparedReviewerLine: (prepared: PrepareResult, id: string) => Child
  readonly estimateLine: (estimate: PrepareBatchResult["estimate"], id: string) => Child
  /** The batch started: the page shows its view. */
  readonly started: (batchId: string, summary: BatchSummary) => void
}

interface Unconfigured {
  readonly thread_id: string
  readonly reasons: ReadonlyArray<string>
}

/** The form's choices; the selection outlives searches and pages. */
export const batchForm = {
  on: false,
  selected: new Set<string>(),
  models: null as Array<string> | null,
  reviewer: "",
  second_judge: false,
  second_judge_model: "",
  acceptEmpty: false,
  repeats: 1,
  pickCount: "10",
  pickSort: "date" as "date" | "cost",
  busy: false,
  prepared: null as PrepareBatchResult | null,
  /** Prepared, and every selected thread blocked before prepare could be asked. */
  allBlocked: false,
  configurations: [] as Array<Record<string, unknown>>,
  unconfigured: [] as Array<Unconfigured>
}

const slot = hostSlot<BatchFormHost>("The batch form is not wired yet.")
const theHost = slot.get

const checked = (event: Event) => event.target instanceof HTMLInputElement && event.target.checked
const valueOf = (event: Event) =>
  event.target instanceof HTMLInputElement || event.target instanceof HTMLSelectElement ? event.target.value : ""

/** A thread of the list as a checkbox of the batch. */
export function batchThreadPick(thread: { readonly imported_thread_id: string; readonly title?: string | null }, index: number, meta: string) {
  const id = thread.imported_thread_id
  return h("label", { className: "thread-pick", "data-thread-id": id },
    h("input", { type: "checkbox", className: "batch-thread", value: id, checked: batchForm.selected.has(id), onChange: (event) => {
      if (checked(event)) batchForm.selected.add(id)
      else batchForm.selected.delete(id)
      unprepare()
      renderBatchPanel()
    } }),
    h("span", { className: "thread-num", text: `#${index + 1}` }),
    h("span", { className: "thread-text" }, h("span", { className: "thread-title", text: thread.title || id }), h("span", { className: "thread-meta", text: meta })))
}

export function setBatchMode(on: boolean) {
  batchForm.on = on
  byId("batch-panel").hidden = !on
  theHost().renderThreads()
  renderBatchPanel()
}

/** Any change of the choices asks for a new prepare. */
const unprepare = () => {
  batchForm.prepared = null
  batchForm.allBlocked = false
}

/** Selects the N most recent or most expensive threads of the current source. */
async function pickThreads() {
  const count = Math.max(1, Math.min(MAX_BATCH_THREADS, Math.floor(Number(batchForm.pickCount) || 0)))
  try {
    const source = theHost().source() === "sample" ? "sample" : "imported"
    const result = await callTool("list_threads", { source, sort: batchForm.pickSort, limit: count })
    batchForm.selected = new Set(result.threads.map((thread) => thread.imported_thread_id))
    unprepare()
    theHost().renderThreads()
    renderBatchPanel()
  } catch (error) {
    notice(`Could not list threads: ${messageOf(error)}`)
  }
}

/** A thread's configuration as `codex-replay batch` builds it: the inspection's defaults, approved with the batch. */
function batchEntry(result: InspectThreadResult, models: ReadonlyArray<string>): Record<string, unknown> {
  const c = theHost().defaultConfig(result)
  const preexisting = result.file_selection.preexisting_files ?? []
  const entry: Record<string, unknown> = {
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
  if (c.beginning_kind === "non_git") {
    entry["created_by_claude"] = c.files.filter((file) => file.selected && file.kind === "created").map((file) => file.path)
    entry["confirm_empty_beginning"] = preexisting.length === 0
    entry["confirm_file_selection"] = result.workspace["requires_confirmation"] === true
  } else entry["confirm_repository_selection"] = Boolean(c.repo)
  return entry
}

async function inspectForBatch(ids: ReadonlyArray<string>, models: ReadonlyArray<string>) {
  const entries: Array<Record<string, unknown>> = []
  const unconfigured: Array<Unconfigured> = []
  const queue = ids.slice()
  const worker = async () => {
    for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
      try {
        const result = await callTool("inspect_thread", { thread_id: id })
        const request = result.thread["request"]
        if (result.blockers.length > 0 || typeof request !== "string" || !request.trim()) {
          unconfigured.push({ thread_id: id, reasons: result.blockers.length > 0 ? result.blockers : ["The thread has no request to replay."] })
        } else entries.push(batchEntry(result, models))
      } catch (error) {
        unconfigured.push({ thread_id: id, reasons: [messageOf(error)] })
      }
    }
  }
  await Promise.all([worker(), worker(), worker(), worker()])
  const order = (entry: Record<string, unknown>) => ids.indexOf(String(entry["thread_id"]))
  return { entries: entries.sort((a, b) => order(a) - order(b)), unconfigured }
}

const batchPayload = () => {
  const secondJudge = theHost().secondJudgeValue(batchForm.second_judge, batchForm.second_judge_model)
  return {
    configurations: batchForm.configurations,
    reviewer_model: batchForm.reviewer || null,
    repeats: batchForm.repeats,
    ...(batchForm.acceptEmpty ? { accept_empty_beginning: true } : {}),
    ...(secondJudge === null ? {} : { second_judge: secondJudge })
  }
}

async function prepareBatchFromPage() {
  batchForm.busy = true
  renderBatchPanel()
  notice("")
  try {
    const { entries, unconfigured } = await inspectForBatch([...batchForm.selected], (batchForm.models ?? []).slice())
    batchForm.unconfigured = unconfigured
    batchForm.configurations = entries
    const prepared = entries.length > 0 ? await callTool("prepare_run", batchPayload()) : null
    batchForm.prepared = prepared !== null && "batch" in prepared ? prepared : null
    batchForm.allBlocked = entries.length === 0
  } catch (error) {
    notice(`Prepare failed: ${messageOf(error)}`)
  } finally {
    batchForm.busy = false
    renderBatchPanel()
    ;($("batch-start") ?? $("batch-edit") ?? $("batch-prepare"))?.focus()
  }
}

async function startBatchFromPage() {
  const prepared = batchForm.prepared
  if (prepared === null || prepared.prepare_token === null) return
  batchForm.busy = true
  renderBatchPanel()
  try {
    const result = await callTool("start_run", { ...batchPayload(), approved: true, prepare_token: prepared.prepare_token })
    if (!("batch_id" in result)) throw new Error("The controller started single runs, not a batch.")
    unprepare()
    theHost().started(result.batch_id, result.batch)
  } catch (error) {
    notice(`Start failed: ${messageOf(error)}`)
  } finally {
    batchForm.busy = false
    renderBatchPanel()
  }
}

const selectionControls = (count: number) => [
  h("p", { id: "batch-count", role: "status", text: `${count} thread${count === 1 ? "" : "s"} selected.` }),
  h("div", { className: "actions" },
    h("button", { type: "button", className: "secondary", id: "batch-select-shown", text: "Select all shown", onClick: () => {
      for (const thread of theHost().threads()) batchForm.selected.add(thread.imported_thread_id)
      unprepare()
      theHost().renderThreads()
      renderBatchPanel()
    } }), " ",
    h("button", { type: "button", className: "secondary", id: "batch-clear", text: "Clear selection", disabled: count === 0, onClick: () => {
      batchForm.selected.clear()
      unprepare()
      theHost().renderThreads()
      renderBatchPanel()
    } })),
  h("div", { className: "batch-pick", role: "group", "aria-label": "Select the N most recent or most expensive threads" },
    h("label", {}, "Select the ", h("input", { type: "number", id: "batch-pick-count", min: "1", max: String(MAX_BATCH_THREADS), step: "1", value: batchForm.pickCount, onInput: (event) => {
      batchForm.pickCount = valueOf(event)
    } })),
    h("label", {}, h("span", { className: "visually-hidden", text: "Order" }), h("select", { id: "batch-pick-sort", onChange: (event) => {
      batchForm.pickSort = valueOf(event) === "cost" ? "cost" : "date"
    } },
      h("option", { value: "date", text: "most recent", selected: batchForm.pickSort === "date" }),
      h("option", { value: "cost", text: "most expensive", selected: batchForm.pickSort === "cost" }))),
    h("span", { text: "threads" }),
    h("button", { type: "button", className: "secondary", id: "batch-pick", text: "Select", onClick: () => void pickThreads() }))
]

const modelChoices = (models: ReadonlyArray<string>) => {
  const offered = theHost().offeredModels()
  return h("fieldset", { className: "models" }, h("legend", { text: `Codex models for every thread (1 to ${MAX_MODELS})` }),
    offered.map((model, index) => h("label", { className: "check" },
      h("input", { type: "checkbox", id: `batch-model-${index}`, value: model.id, checked: models.includes(model.id), onChange: (event) => {
        const chosen = new Set(models)
        if (checked(event)) chosen.add(model.id)
        else chosen.delete(model.id)
        batchForm.models = offered.map((m) => m.id).filter((id) => chosen.has(id)).slice(0, MAX_MODELS)
        unprepare()
        renderBatchPanel()
      } }), ` ${model.id}`)))
}

/** The choices every replay of the batch shares: reviewer, second judge, repeats and empty beginnings. */
const sharedChoices = (models: ReadonlyArray<string>) => {
  const offered = theHost().offeredModels()
  return [
    h("label", {}, "Reviewer for every replay ",
      h("select", { id: "batch-reviewer", onChange: (event) => {
        batchForm.reviewer = valueOf(event)
        unprepare()
      } },
        h("option", { value: "", text: theHost().reviewerChoiceText(offered, models) }),
        offered.map((model) => h("option", { value: model.id, text: model.id, selected: batchForm.reviewer === model.id })))),
    theHost().secondJudgeChoice(batchForm, (value) => {
      if (value.second_judge !== undefined) batchForm.second_judge = value.second_judge
      if (value.second_judge_model !== undefined) batchForm.second_judge_model = value.second_judge_model
      unprepare()
    }),
    h("div", { className: "field readable" },
      h("label", { for: "batch-repeats", text: `Repeats of each thread and model (1 to ${MAX_REPEATS})` }),
      h("input", { type: "number", id: "batch-repeats", className: "repeats-input", min: "1", max: String(MAX_REPEATS), step: "1", value: String(batchForm.repeats), "aria-describedby": "batch-repeats-hint", onInput: (event) => {
        const value = Math.floor(Number(valueOf(event)))
        batchForm.repeats = Number.isFinite(value) ? Math.max(1, Math.min(MAX_REPEATS, value)) : 1
        unprepare()
      } }),
      h("p", { className: "hint", id: "batch-repeats-hint", text: "Each repeat is a run of its own; the portfolio combines the repeats of a thread and model before its statistics." })),
    h("label", { className: "check" },
      h("input", { type: "checkbox", id: "batch-accept-empty", checked: batchForm.acceptEmpty, "aria-describedby": "batch-accept-empty-hint", onChange: (event) => {
        batchForm.acceptEmpty = checked(event)
        unprepare()
        renderBatchPanel()
      } }), ` ${CONTROLS.batchEmptyBeginnings}`),
    h("p", { className: "hint", id: "batch-accept-empty-hint", text: "A thread without a Git beginning then starts from an empty folder even when Claude modified files that existed before; its replay is marked not like-for-like, and the warning is shown before you approve." })
  ]
}

const approvalPart = (prepared: PrepareBatchResult | null) => {
  const blocked: ReadonlyArray<Unconfigured> = [...batchForm.unconfigured, ...(prepared?.blocked ?? [])]
  const ready = prepared !== null && prepared.ready
  const preflight = prepared?.preflight
  const codexMissing = preflight !== undefined && !preflight.ready
  const warned = (prepared?.ready_threads ?? []).filter((thread) => (thread.warnings ?? []).length > 0)
  return h("div", { className: "approval", role: "group", "aria-labelledby": "batch-approval-title" },
    h("h3", { id: "batch-approval-title", text: ready && !codexMissing ? "Approve the batch" : "The batch is blocked" }),
    preflight?.message ? h("p", { className: codexMissing ? "callout callout-bad" : "hint", id: "batch-preflight", role: "alert", text: preflight.message }) : null,
    ready ? h("p", { className: "approval-prompt", id: "batch-approval-prompt", text: prepared.approval_prompt ?? "Approve this batch?" }) : null,
    ready ? theHost().estimateLine(prepared.estimate, "batch-cost-estimate") : null,
    prepared === null ? null : theHost().preparedReviewerLine(prepared, "batch-approval-reviewer"),
    warned.length > 0 ? h("div", {}, h("p", { text: `Not like-for-like (${warned.length}):` }),
      h("ul", { id: "batch-warnings", className: "plain reason" }, warned.map((thread) =>
        h("li", { "data-thread-id": thread.thread_id, text: `${thread.thread_id}: ${(thread.warnings ?? []).join(" ")}` })))) : null,
    blocked.length > 0 ? h("div", {}, h("p", { text: `Blocked and left out (${blocked.length}):` }),
      h("ul", { id: "batch-blocked", className: "plain error" }, blocked.map((entry) =>
        h("li", { "data-thread-id": entry.thread_id, text: `${entry.thread_id}: ${entry.reasons.join(" ")}` })))) : null,
    h("div", { className: "actions" },
      ready ? h("button", { type: "button", className: "primary", id: "batch-start", text: batchForm.busy ? "Starting…" : "Approve and start batch", disabled: batchForm.busy || codexMissing,
        "aria-describedby": codexMissing ? "batch-preflight" : undefined, onClick: () => void startBatchFromPage() }) : null, " ",
      h("button", { type: "button", className: "secondary", id: "batch-edit", text: "Back to selection", disabled: batchForm.busy, onClick: () => {
        unprepare()
        renderBatchPanel()
      } })))
}

export function renderBatchPanel() {
  const body = $("batch-panel-body")
  if (body === null || !batchForm.on || !slot.ready()) return
  const models = batchForm.models ?? theHost().offeredModels().filter((model) => model.default).map((model) => model.id).slice(0, MAX_MODELS)
  batchForm.models = models
  const count = batchForm.selected.size
  const reasons = [
    ...(count === 0 ? ["Select at least one thread."] : []),
    ...(count > MAX_BATCH_THREADS ? [`Select at most ${MAX_BATCH_THREADS} threads.`] : []),
    ...(models.length === 0 ? ["Choose at least one Codex model."] : [])
  ]
  body.replaceChildren(...selectionControls(count), modelChoices(models), ...sharedChoices(models))
  if (batchForm.prepared === null && !batchForm.allBlocked) {
    body.append(h("div", { className: "actions" },
      h("button", { type: "button", className: "primary", id: "batch-prepare", text: batchForm.busy ? "Preparing…" : "Prepare batch", disabled: reasons.length > 0 || batchForm.busy, onClick: () => void prepareBatchFromPage() })),
      h("p", { className: reasons.length ? "reason" : "hint", role: "status", text: reasons.length ? `Cannot prepare yet: ${reasons.join(" ")}` : "Each thread is configured as it was recorded and prepared on its own; blocked threads are listed and left out." }))
    return
  }
  body.append(approvalPart(batchForm.prepared))
}

/** Wires the batch form to the page; the batch mode's tick box turns it on and off. */
export function wireBatchForm(pageHost: BatchFormHost) {
  slot.set(pageHost)
  const toggle = byId("batch-mode")
  toggle.addEventListener("change", (event) => setBatchMode(checked(event)))
}
