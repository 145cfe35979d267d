/**
 * Configure's state: the inspection of the chosen thread (or part of it), the configuration drawn from it,
 * the payload `prepare_run` and `start_run` receive, and what still keeps it from being prepared.
 */
import { MAX_REPEATS, type InspectThreadResult, type RunConfigurationInput, type ThreadChecks } from "../domain/contracts/index.js"
import { MAX_REPLAY_MODELS } from "../domain/product.js"
import { callTool } from "./client.js"
import { type CommandChoice, type Config, host, listOf, messageOf, prop, textOf, textsOf } from "./configureHost.js"
import { notice } from "./dom.js"
import { emptyBeginningReason } from "./configureSections.js"
import { renderConfigure } from "./configureView.js"
import { refreshSummary } from "./prepare.js"

type Range = { range_start?: string; range_end?: string }

/** The chunk the draft replays, as inspect_thread and prepare_run take it; none for the whole thread. */
export function rangeOf(config: Config | null): Range {
  return config && config.range_start && config.range_end ? { range_start: config.range_start, range_end: config.range_end } : {}
}

/** Whether a synthesis of `id`'s `range` still applies: the user may have chosen another thread or part since. */
export function stillAbout(id: string, range: Range) {
  const { draft } = host()
  const now = rangeOf(draft.config)
  return draft.thread_id === id && draft.config !== null && now.range_start === range.range_start && now.range_end === range.range_end
}

/** Only the latest inspection is shown: an earlier one (another thread or part) may answer after it. */
let latestInspection = 0

export async function inspect(id: string) {
  const { app, draft } = host()
  const call = ++latestInspection
  app.inspect = null
  app.inspectError = null
  renderConfigure()
  const pending = app.pendingRange && app.pendingRange.thread_id === id ? app.pendingRange : null
  const range: Range = pending
    ? (pending.range_start && pending.range_end ? { range_start: pending.range_start, range_end: pending.range_end } : {})
    : draft.config && draft.config.thread_id === id ? rangeOf(draft.config) : {}
  try {
    const result = await callTool("inspect_thread", { thread_id: id, ...range })
    if (call !== latestInspection || draft.thread_id !== id) return
    app.inspect = result
    if (pending && app.pendingRange === pending) app.pendingRange = null
    if (!draft.config || draft.config.thread_id !== id) draft.config = defaultConfig(result)
    else if (draft.config.range_changed) draft.config = withChoices(defaultConfig(result), draft.config)
    host().applyPendingModels()
    host().saveDraft()
    // The task is reconstructed only when asked (the button, or Prepare while none exists yet): never on opening.
    renderConfigure()
  } catch (error) {
    if (call !== latestInspection || draft.thread_id !== id) return
    app.inspectError = messageOf(error)
    renderConfigure()
  }
}

/** A fresh default configuration for another part of the thread, keeping the models, reviewer, timeout, repeats and folder chosen. */
export function withChoices(fresh: Config, previous: Config): Config {
  return {
    ...fresh,
    models: previous.models,
    reviewer_model: previous.reviewer_model,
    second_judge: previous.second_judge,
    second_judge_model: previous.second_judge_model,
    timeout_seconds: previous.timeout_seconds,
    repeats: previous.repeats ?? 1,
    repository_path: previous.repository_path ?? ""
  }
}

/** Whether the thread's recorded folder is not on this machine (the baseline's evidence says so). */
export const recordedFolderMissing = (baseline: InspectThreadResult["baseline"]) =>
  Boolean(baseline.repository) && textsOf(prop(baseline, "evidence")).some((line) => /does not exist/i.test(line))

export function defaultConfig(result: InspectThreadResult): Config {
  const thread = result.thread
  const chunk = result.chunks.selected
  const baseline = result.baseline
  const candidates = listOf(prop(result.file_selection, "candidates"))
  const models = result.models.filter((model) => model.default).map((model) => model.id).slice(0, MAX_REPLAY_MODELS)
  const beginning = baseline.beginning_kind === "git" ? "git" : "non_git"
  return {
    thread_id: thread.imported_thread_id,
    source_path: thread.source_path ?? null,
    message_uuid: thread.message_uuid ?? null,
    request: chunk ? chunk.request : thread.request,
    request_method: chunk ? "chunk" : thread.request_generation.method,
    synthesis_attempted: false,
    range_start: chunk ? chunk.range_start : null,
    range_end: chunk ? chunk.range_end : null,
    repo: baseline.repository && !recordedFolderMissing(baseline) ? baseline.repository : "",
    repository_path: "",
    beginning_kind: beginning,
    ending_kind: baseline.ending_kind === "git" ? "git" : beginning,
    baseline_commit: baseline.commit ?? "",
    ending_commit: baseline.ending_commit ?? "",
    files: candidates.flatMap((file) => {
      const path = textOf(prop(file, "path"))
      return path === null ? [] : [{ path, kind: textOf(prop(file, "kind")) ?? "", selectable: prop(file, "selectable") !== false, selected: prop(file, "selected") !== false }]
    }),
    confirm_empty_beginning: false,
    confirm_file_selection: false,
    confirm_repository_selection: false,
    models,
    reviewer_model: "",
    second_judge: false,
    second_judge_model: "",
    timeout_seconds: 3600,
    repeats: 1,
    ...commandsOf(result.checks)
  }
}

/**
 * The checks and set-up commands Claude ran, as the Configure step offers them: a check is ticked when its
 * last run passed after Claude's last edit (it held for Claude's result), a set-up command always.
 */
export function commandsOf(found: ThreadChecks): { checks: Array<CommandChoice>; setup: Array<CommandChoice> } {
  return {
    checks: found.checks.map((check) => ({ command: check.command, directory: check.directory, selected: check.last_outcome === "passed" && check.after_last_edit, found: check })),
    setup: found.setup.map((command) => ({ command: command.command, directory: command.directory, selected: true, found: command }))
  }
}

/** The commands of a list that are ticked, as a configuration names them. */
export function approvedOf(commands: ReadonlyArray<CommandChoice>) {
  return commands.filter((entry) => entry.selected && entry.command.trim() !== "").map((entry) => ({ command: entry.command.trim(), directory: entry.directory || "." }))
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] }
export type Payload = Mutable<typeof RunConfigurationInput.Encoded> & { models: Array<string>; request: string; thread_id: string; timeout_seconds: number }

/** The configuration exactly as prepare_run and start_run receive it. */
export function payload(): Payload {
  const c = currentConfig()
  const git = c.beginning_kind === "git"
  const out: Payload = {
    thread_id: c.thread_id,
    source_path: c.source_path,
    message_uuid: c.message_uuid,
    request: c.request,
    repo: c.repo.trim() || null,
    beginning_kind: c.beginning_kind,
    ending_kind: c.ending_kind,
    baseline_commit: git ? c.baseline_commit.trim() || null : null,
    ending_commit: c.ending_kind === "git" ? c.ending_commit.trim() || null : null,
    models: c.models.slice(),
    reviewer_model: c.reviewer_model || null,
    timeout_seconds: c.timeout_seconds,
    ...rangeOf(c)
  }
  // Exactly the commands shown ticked run; a draft from before the page offered them names none (the thread's own).
  if (Array.isArray(c.checks)) out.checks = approvedOf(c.checks)
  if (Array.isArray(c.setup)) out.setup = approvedOf(c.setup)
  if (c.beginning_kind === "non_git") {
    out.created_by_claude = c.files.filter((file) => file.selected).map((file) => file.path)
    out.excluded_files = c.files.filter((file) => !file.selected).map((file) => file.path)
    out.confirm_empty_beginning = c.confirm_empty_beginning
    out.confirm_file_selection = c.confirm_file_selection
  }
  if (git) out.confirm_repository_selection = c.confirm_repository_selection
  // The folder that holds the repository now: the controller finds the thread's start there, or says why not.
  const folder = repositoryFolderOf(c)
  if (folder) {
    out.repository_path = folder
    if (out.repo === null) out.repo = folder
  }
  if (c.repeats !== undefined && c.repeats !== 1) out.repeats = c.repeats
  const secondJudge = secondJudgeOf(c.second_judge, c.second_judge_model)
  if (secondJudge) out.second_judge = secondJudge
  // A non-Git replay's folder is the one the user left or typed in the working directory field.
  else if (out.repo !== null) out.confirm_repository_selection = true
  return out
}

/** The “Repository folder” the user gave, trimmed; empty: none. */
export const repositoryFolderOf = (c: Config) => (c.repository_path ?? "").trim()

/** `claude` or `claude:MODEL` when the second judge is ticked (and Claude Code is here), else null. */
export function secondJudgeOf(on: boolean, model: string | null | undefined) {
  const available = host().app.state?.second_judge?.available ?? false
  if (!on || !available) return null
  const name = (model ?? "").trim()
  return name ? `claude:${name}` : "claude"
}

/** The configuration being edited; Configure draws nothing without one. */
export const currentConfig = (): Config => {
  const config = host().draft.config
  if (config === null) throw new Error("No configuration is being edited.")
  return config
}

const COMMIT = /^[0-9a-f]{7,64}$/i

export function missingReasons(): Array<string> {
  const { app } = host()
  const c = currentConfig()
  const reasons: Array<string> = []
  const selection = app.inspect?.file_selection
  const folder = repositoryFolderOf(c)
  if (app.synthesizing) reasons.push("Wait for the prompt synthesis to finish.")
  if (!c.request.trim()) reasons.push("Enter the task prompt.")
  if (c.beginning_kind === "git" && !folder) {
    if (c.ending_kind !== "git") reasons.push("A Git beginning state requires a Git end state.")
    if (!c.repo.trim()) reasons.push("Enter the working directory (the Git repository).")
    if (!COMMIT.test(c.baseline_commit.trim())) reasons.push("Enter the beginning Git commit.")
    if (!c.confirm_repository_selection) reasons.push("Confirm that you have reviewed this repository and these commits.")
  }
  if (c.ending_kind === "git" && !folder && !COMMIT.test(c.ending_commit.trim())) reasons.push("Enter the ending Git commit.")
  if (c.beginning_kind === "non_git" && !folder) {
    if (!c.confirm_empty_beginning) reasons.push(emptyBeginningReason(textsOf(selection?.preexisting_files)))
    if (prop(selection, "requires_confirmation") === true && c.files.length > 0 && !c.confirm_file_selection) reasons.push("Confirm the file attribution.")
  }
  if (c.models.length === 0) reasons.push("Choose at least one Codex model.")
  if (c.models.length > MAX_REPLAY_MODELS) reasons.push(`Choose at most ${MAX_REPLAY_MODELS} models.`)
  const timeout = c.timeout_seconds
  if (!Number.isInteger(timeout) || timeout < 1 || timeout > 86400) reasons.push("Enter a timeout from 1 to 86400 seconds.")
  const repeats = c.repeats ?? 1
  if (!Number.isInteger(repeats) || repeats < 1 || repeats > MAX_REPEATS) reasons.push(`Choose from 1 to ${MAX_REPEATS} repeats.`)
  return reasons
}

/** The configuration changed: any approval is void; the view is drawn again, or only its summary. */
export function changed(render: boolean) {
  const { app } = host()
  app.prepared = null
  app.repositoryError = null
  host().saveDraft()
  if (render) rerenderKeepingFocus(renderConfigure)
  else refreshSummary()
}

/** Re-renders and puts the keyboard focus back on the control with the same id. */
export function rerenderKeepingFocus(render: () => void) {
  const active = document.activeElement
  const id = active ? active.id : ""
  render()
  if (id) {
    const again = document.getElementById(id)
    if (again && again !== document.activeElement) again.focus()
  }
}

export async function synthesize() {
  const { app, draft } = host()
  const id = draft.thread_id
  if (id === null) return
  const range = rangeOf(draft.config)
  // Marked attempted only once it answers: a reload in the middle starts it again.
  app.synthesizing = true
  renderConfigure()
  try {
    const result = await callTool("synthesize_request", { thread_id: id, ...range })
    // Another thread or part chosen meanwhile has its own prompt: this reconstruction no longer applies to it.
    if (!stillAbout(id, range)) return
    const c = currentConfig()
    c.request = result.request || c.request
    c.request_method = result.request_generation.method
    c.request_model = result.request_generation.method === "llm_synthesis" ? result.request_generation.model : null
    c.task_source = result.source_messages ?? null
    c.task_overlap = result.overlap ?? null
    c.task_overlap_of = c.request
  } catch (error) {
    notice(`Prompt synthesis failed: ${messageOf(error)}`)
  } finally {
    app.synthesizing = false
    if (draft.thread_id === id && draft.config) draft.config.synthesis_attempted = true
    if (draft.thread_id === id) changed(true)
  }
}

export async function infer() {
  const { app, draft } = host()
  const id = draft.thread_id
  if (id === null) return
  app.inferring = true
  app.inferNote = "Inferring the working directory…"
  renderConfigure()
  try {
    const result = await callTool("infer_working_directory", { thread_id: id })
    if (draft.thread_id !== id) return
    if (result.working_directory) currentConfig().repo = result.working_directory
    app.inferNote = result.source === "unavailable"
      ? "No working directory could be inferred."
      : `Inferred from ${result.source === "codex" ? "the thread evidence (Codex)" : "the recorded cwd"}.`
  } catch (error) {
    app.inferNote = `Inference failed: ${messageOf(error)}`
  } finally {
    app.inferring = false
    if (draft.thread_id === id) changed(true)
  }
}

/** Another part of the thread: inspected again, then the prompt, commits and files are that part's. */
export function chooseRange(start: string | null, end: string | null) {
  const { app, draft } = host()
  const c = currentConfig()
  c.range_start = start
  c.range_end = end
  c.range_changed = true
  app.prepared = null
  host().saveDraft()
  host().syncAddress("replace")
  if (draft.thread_id !== null) void inspect(draft.thread_id)
}
