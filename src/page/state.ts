/**
 * The page's shared state: what the controller said (`app`), the draft kept in localStorage per controller
 * session (`draft`), the step shown, and the address of the view shown (router.ts), which follows the steps.
 */
import type { ControllerState, InspectThreadResult, PrepareRunResult, ReplayReport, ThreadList } from "../domain/contracts/index.js"
import { HEARTBEAT_INTERVAL_SECONDS } from "../domain/product.js"
import type { RunView } from "./pageHost.js"
import type { Config } from "./configureHost.js"
import { batchView } from "./batch.js"
import { byId } from "./dom.js"
import { type Address, showAddress } from "./router.js"
import { runsFilters } from "./runsList.js"

export const HEARTBEAT_MS = HEARTBEAT_INTERVAL_SECONDS * 1000
export const POLL_MS = 1000
export const PAGE_SIZE = 20
export const PROGRESS_MS = 400
export const DRAFT_PREFIX = "codex-replay.controller-draft.v1:"
export const STEPS = ["thread", "configure", "run", "results", "runs"] as const
export type Step = (typeof STEPS)[number]

const isStep = (value: unknown): value is Step => typeof value === "string" && (STEPS as ReadonlyArray<string>).includes(value)

/** What the page holds now; nothing of it is stored. */
export const app = {
  session: null as string | null,
  state: null as ControllerState | null,
  step: "thread" as Step,
  threads: [] as Array<ThreadList["threads"][number]>,
  listing: null as ThreadList | null,
  listToken: 0,
  inspect: null as InspectThreadResult | null,
  inspectError: null as string | null,
  synthesizing: false,
  inferring: false,
  inferNote: "",
  /** Transient: never stored. */
  prepared: null as PrepareRunResult | null,
  /** The run whose cancellation waits for a confirmation. */
  confirmCancel: null as string | null,
  preparing: false,
  starting: false,
  /** run_id -> run state */
  runs: {} as Record<string, RunView | undefined>,
  /** run_id -> report */
  reports: {} as Record<string, ReplayReport | undefined>,
  pollTimer: null as ReturnType<typeof setTimeout> | null,
  /** How showing a view updates the address: a new entry, or the same one while an address is being opened. */
  addressHow: "push" as "push" | "replace",
  /** Which the Run view's address names when it shows both: the batch, or the runs. */
  runFocus: "runs" as "runs" | "batch",
  /** The part of the thread an address names, until its inspection answers. */
  pendingRange: null as { readonly thread_id: string; readonly range_start: string | null; readonly range_end: string | null } | null,
  /** The models of a run replayed again whose configuration was not kept, until its thread's inspection answers. */
  pendingModels: null as ReadonlyArray<string> | null
}

/** The configuration being edited (Configure owns its fields). */
export type DraftConfig = Config

/** What survives a reload (localStorage, versioned, scoped to the controller session). */
export const draft = {
  source: "imported",
  query: "",
  sort: "date",
  thread_id: null as string | null,
  config: null as DraftConfig | null,
  step: "thread" as string,
  run_ids: [] as Array<string>,
  results_run: null as string | null,
  run_configs: undefined as Record<string, DraftConfig | null> | undefined
}

const draftKey = () => DRAFT_PREFIX + (app.session ?? "")

export function saveDraft() {
  if (!app.session) return
  draft.step = app.step
  try {
    localStorage.setItem(draftKey(), JSON.stringify(draft))
  } catch {
    // storage full or disabled: the page still works without a draft
  }
}

export function loadDraft() {
  try {
    const raw = localStorage.getItem(draftKey())
    if (!raw) return
    const parsed: unknown = JSON.parse(raw)
    if (parsed !== null && typeof parsed === "object") Object.assign(draft, parsed)
    if (!Array.isArray(draft.run_ids)) draft.run_ids = []
  } catch {
    // a corrupt draft is ignored
  }
}

/** The address of the view shown now. */
export function addressOfView(): Address {
  const home: Address = { view: "home" }
  switch (app.step) {
    case "configure": {
      if (!draft.thread_id) return home
      const c = draft.config && draft.config.thread_id === draft.thread_id ? draft.config : null
      const range = c && c.range_start && c.range_end ? { start: c.range_start, end: c.range_end } : null
      return { view: "thread", threadId: draft.thread_id, range }
    }
    case "run": {
      const first = draft.run_ids[0]
      if (batchView.id !== null && (app.runFocus === "batch" || first === undefined)) return { view: "batch", batchId: batchView.id }
      return first === undefined ? home : { view: "run", runId: first }
    }
    case "results":
      return draft.results_run ? { view: "run", runId: draft.results_run } : home
    case "runs":
      return { view: "runs", filters: runsFilters() }
    default:
      return home
  }
}

export function syncAddress(how?: "push" | "replace") {
  showAddress(addressOfView(), how ?? "push")
}

export function showStep(wanted: string, focus?: boolean) {
  const step: Step = isStep(wanted) ? wanted : "thread"
  app.step = step
  for (const name of STEPS) {
    byId(`step-${name}`).hidden = name !== step
    const tab = byId(`tab-${name}`)
    if (name === step) tab.setAttribute("aria-current", "step")
    else tab.removeAttribute("aria-current")
  }
  saveDraft()
  syncAddress(app.addressHow)
  if (focus) {
    const heading = document.querySelector<HTMLElement>(`#step-${step} h2`)
    if (heading) {
      heading.setAttribute("tabindex", "-1")
      heading.focus()
    }
  }
}

// Replay again: a finished, failed or cancelled run's configuration, pre-filled

const MAX_REMEMBERED_CONFIGS = 24

/** Keeps the configuration the runs started with, so "Replay again" can offer it. */
export function rememberConfig(runIds: ReadonlyArray<string>) {
  const kept = Object.entries(draft.run_configs ?? {}).slice(-MAX_REMEMBERED_CONFIGS)
  draft.run_configs = Object.fromEntries(kept.concat(runIds.map((id) => [id, draft.config])))
}

/** After an inspection, the models of the run being replayed again (when its configuration was not kept). */
export function applyPendingModels() {
  if (!app.pendingModels || !draft.config) return
  const offered = (app.inspect?.models ?? []).map((model) => model.id)
  const models = app.pendingModels.filter((model) => offered.includes(model))
  if (models.length) draft.config.models = models
  app.pendingModels = null
}
