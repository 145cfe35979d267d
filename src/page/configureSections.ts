/**
 * Configure's parts: the task prompt beside the user's messages it comes from, the whole thread or a
 * chunk, the commands, the second judge, the repository folder, repeats and an empty beginning. Labels of
 * the controls that unblock a replay are the domain's (`CONTROLS`).
 */
import { MAX_REPEATS, type InspectThreadResult } from "../domain/contracts/index.js"
import { CONTROLS } from "../domain/unblock.js"
import { type CommandChoice, type Config, host, listOf, numberOf, prop, type SourceMessage, textOf } from "./configureHost.js"
import { changed, chooseRange, currentConfig, recordedFolderMissing, rerenderKeepingFocus, secondJudgeOf, synthesize } from "./configure.js"
import { renderConfigure } from "./configureView.js"
import { $, type Child, h, nextId } from "./dom.js"
import { formatDate } from "./format.js"

export const METHOD_LABELS: Readonly<Record<string, string>> = {
  single_user_prompt: "Single user prompt",
  concatenated_fallback: "Concatenated prompts (fallback)",
  llm_synthesis: "Synthesized by Codex",
  packaged_sample: "Packaged sample",
  pending: "Not reconstructed yet (your prompts, joined)",
  chunk: "The chunk's prompts, after the earlier chunks as background"
}

export function section(title: string, ...children: ReadonlyArray<Child>) {
  const id = nextId("sec")
  return h("section", { className: "sub", "aria-labelledby": id }, h("h3", { id, text: title }), ...children)
}

export function field(label: string, control: HTMLElement, hint?: string | null) {
  const id = control.id || nextId("f")
  control.id = id
  const hintId = hint ? `${id}-hint` : undefined
  if (hintId) control.setAttribute("aria-describedby", hintId)
  return h("div", { className: "field" }, h("label", { for: id, text: label }), control, hint ? h("p", { className: "hint", id: hintId, text: hint }) : null)
}

export function list(items: ReadonlyArray<string>, className?: string) {
  return h("ul", { className: className || "plain" }, items.map((item) => h("li", { text: item })))
}

/** The value of the control an event came from. */
export const valueOf = (event: Event) => {
  const target = event.target
  return target instanceof HTMLInputElement || target instanceof HTMLSelectElement || target instanceof HTMLTextAreaElement ? target.value : ""
}
export const checkedOf = (event: Event) => event.target instanceof HTMLInputElement && event.target.checked

// ------------------------------------------------------------------------------------------------
// The task prompt beside the user's messages it comes from

const SOURCE_KIND_LABELS: Readonly<Record<string, string>> = { prompt: "Your prompt", command: "Your command", answer: "Your answer", rejection: "Your reason for rejecting a tool use" }

const isSourceMessage = (value: unknown): value is SourceMessage => typeof prop(value, "text") === "string" && typeof prop(value, "kind") === "string"

/** The user's messages of the thread, or of the chunk chosen (by its split points' times), before any reconstruction. */
export function sourceMessagesOf(result: InspectThreadResult, c: Config): ReadonlyArray<SourceMessage> {
  if (Array.isArray(c.task_source)) return c.task_source
  const all = listOf(prop(result.thread, "task_source")).filter(isSourceMessage)
  const selected = result.chunks.selected
  if (!selected) return all
  const points = result.chunks.split_points
  const first = points[selected.first_index - 1]
  const from = first ? Date.parse(first.timestamp) : -Infinity
  const after = points[selected.last_index]
  const until = after ? Date.parse(after.timestamp) : Infinity
  return all.filter((message) => {
    const time = Date.parse(message.timestamp ?? "")
    return time >= from && time < until
  })
}

const pct = (share: number) => `${Math.round(share * 100)}%`

/** The overlap figure and, below the threshold, the flag; a prompt edited since it was measured says so. */
export function overlapNote(c: Config) {
  const overlap = c.task_overlap
  if (!overlap) return h("p", { className: "hint", id: "task-overlap", text: "How much the prompt shares with your messages is measured when it is reconstructed or prepared." })
  const share = overlap.share === null ? "—" : pct(overlap.share)
  const stale = c.task_overlap_of !== c.request ? " (measured before your edit; Prepare measures it again)" : ""
  const coverage = overlap.coverage ?? null
  const minCoverage = overlap.min_coverage ?? 0
  const lowCoverage = overlap.share !== null && overlap.share >= overlap.threshold && coverage !== null && coverage < minCoverage
  const text = overlap.flagged && overlap.share === null
    ? `Check this prompt: it has no content words to compare with your messages${stale}. It may not be the task you asked for.`
    : overlap.flagged && lowCoverage && coverage !== null
    ? `Check this prompt: it carries only ${pct(coverage)} of the words of your messages (the minimum is ${pct(minCoverage)})${stale}. It may not be the task you asked for.`
    : overlap.flagged
    ? `Check this prompt: only ${share} of its words are in your messages (the threshold is ${pct(overlap.threshold)})${stale}. It may not be the task you asked for.${overlap.unsupported_words.length ? ` Words not in your messages: ${overlap.unsupported_words.join(", ")}.` : ""}`
    : `${share} of the prompt's words are in your messages${stale}.`
  return h("p", { className: overlap.flagged ? "reason task-flag" : "hint", id: "task-overlap", role: overlap.flagged ? "alert" : undefined, "data-share": overlap.share === null ? "" : String(overlap.share), text })
}

export function sourceList(messages: ReadonlyArray<SourceMessage>) {
  if (!messages.length) return h("p", { className: "muted", text: "No message of yours to show." })
  return h("ol", { className: "turn-list task-source", id: "task-source" }, messages.map((message) => {
    const label = SOURCE_KIND_LABELS[message.kind] ?? "Your message"
    return h("li", null,
      message.asked ? h("p", { className: "muted", text: "Claude asked:" }) : null,
      message.asked ? h("pre", { className: "response asked", tabindex: "0", "aria-label": "Claude's question", text: message.asked }) : null,
      h("p", { className: "muted", text: `${label}:` }),
      h("pre", { className: "response", tabindex: "0", "aria-label": label, text: message.text }))
  }))
}

export function taskPromptSection(result: InspectThreadResult, c: Config) {
  const thread = result.thread
  const method = c.request_method
  const busy = host().app.synthesizing
  const methodText = busy ? "Reconstructing the task from your messages with Codex…" : (METHOD_LABELS[method] ?? method) + (c.request_model ? ` (${c.request_model})` : "")
  const canReconstruct = method === "pending" || method === "llm_synthesis" || method === "concatenated_fallback" || (method === "chunk" && thread.source !== "sample")
  const prompt = h("textarea", { id: "cfg-request", rows: 8, spellcheck: "false", value: c.request, disabled: busy, onInput: (event) => {
    c.request = valueOf(event)
    changed(false)
    $("task-overlap")?.replaceWith(overlapNote(c))
  } })
  const messages = sourceMessagesOf(result, c)
  const turns = numberOf(prop(thread, "human_turns")) ?? 0
  return section("Task prompt",
    h("p", { className: "method" }, h("span", { className: `badge ${method === "pending" || busy ? "badge-warn" : ""}`, id: "request-method", text: methodText }),
      canReconstruct ? h("button", { type: "button", className: "secondary small", id: "synthesize", text: busy ? "Reconstructing…" : method === "llm_synthesis" ? "Reconstruct again" : "Reconstruct from your messages", disabled: busy, onClick: () => void synthesize() }) : null),
    h("div", { className: "task-columns" },
      h("div", null, field("Task prompt (sent to Codex)", prompt, `${turns} prompt${turns === 1 ? "" : "s"} in the thread. Edit freely; the edited text is what Codex receives.`), overlapNote(c)),
      h("div", { className: "task-source-column" }, h("p", { className: "label", text: `Your messages it comes from (${messages.length})` }),
        h("p", { className: "hint", text: "Only your own messages and the questions Claude asked you: never Claude's code, tool calls, tool output or account of its work." }),
        sourceList(messages))))
}

// ------------------------------------------------------------------------------------------------
// The second judge

/** `claude` or `claude:MODEL` when the second judge is ticked (and Claude Code is here), else null. */
export const secondJudgeValue = (on: boolean | null | undefined, model: string | null | undefined) => secondJudgeOf(Boolean(on), model)

export interface SecondJudgeChoice {
  readonly second_judge?: boolean | null
  readonly second_judge_model?: string | null
}

/** Claude (Claude Code) as a second judge: a checkbox, disabled with the reason when Claude Code is not found. */
export function secondJudgeChoice(choice: SecondJudgeChoice, update: (value: { second_judge?: boolean; second_judge_model?: string }) => void) {
  const availability = host().app.state?.second_judge ?? { available: false, reason: "The controller has not said whether Claude Code is installed." }
  const box = h("input", { type: "checkbox", id: "cfg-second-judge", checked: Boolean(choice.second_judge) && availability.available, disabled: !availability.available,
    onChange: (event) => update({ second_judge: checkedOf(event) }) })
  const model = h("input", { type: "text", id: "cfg-second-judge-model", placeholder: "Claude Code's default", value: choice.second_judge_model ?? "", disabled: !availability.available,
    onInput: (event) => update({ second_judge_model: valueOf(event) }) })
  return h("div", { className: "medium second-judge-choice" },
    h("label", { className: "check" }, box, " Add Claude as a second judge (same anonymous candidates, both orders; its cost is counted)"),
    availability.available ? field("Claude model (optional)", model) : null,
    h("p", { className: availability.available ? "hint" : "reason", id: "second-judge-hint", text: availability.available
      ? "When the two judges disagree on the overall winner, the verdict is split."
      : `Not available: ${availability.reason || "Claude Code (the claude command) was not found."}` }))
}

// ------------------------------------------------------------------------------------------------
// Checks and set-up commands

/** One row per command: ticked or not, its text editable, where it runs and what the thread says of it. */
export function commandRows(commands: Array<CommandChoice> | undefined, kind: string, note: (entry: CommandChoice) => string) {
  if (!Array.isArray(commands) || commands.length === 0) {
    return h("p", { className: "muted", id: `cfg-${kind}-none`, text: kind === "check" ? "Claude ran no check in this part of the thread." : "Claude ran no set-up command in this part of the thread." })
  }
  return h("ul", { className: "plain commands", id: `cfg-${kind}s` }, commands.map((entry, index) => h("li", { className: "command-row" },
    h("input", { type: "checkbox", id: `cfg-${kind}-${index}`, checked: entry.selected, "aria-label": `Run ${kind} ${index + 1}`, onChange: (event) => { entry.selected = checkedOf(event); changed(true) } }),
    h("input", { type: "text", className: "mono command", id: `cfg-${kind}-text-${index}`, value: entry.command, "aria-label": `Command of ${kind} ${index + 1}`, onInput: (event) => { entry.command = valueOf(event); changed(false) } }),
    h("span", { className: "hint command-note", text: `${entry.directory === "." ? "In the project" : `In ${entry.directory}`} · ${note(entry)}` }))))
}

/** A field and a button that add a command of the user's own, ticked. */
export function addCommand(commands: Array<CommandChoice> | undefined, kind: string, label: string) {
  // What is typed survives the view being drawn again (a synthesis or an inspection answering meanwhile).
  const { app } = host()
  const pending = app.pendingCommands ?? (app.pendingCommands = {})
  const input = h("input", { type: "text", className: "mono command", id: `cfg-${kind}-new`, value: pending[kind] ?? "", placeholder: kind === "check" ? "npm test" : "npm ci", "aria-label": label, onInput: (event) => { pending[kind] = valueOf(event) } })
  const add = () => {
    const command = (pending[kind] ?? "").trim()
    if (command === "" || !Array.isArray(commands)) return
    commands.push({ command, directory: ".", selected: true, found: null })
    pending[kind] = ""
    changed(true)
  }
  return h("div", { className: "add-command" }, input, h("button", { type: "button", className: "secondary small", id: `cfg-${kind}-add`, text: label, onClick: add }))
}

// ------------------------------------------------------------------------------------------------
// Whole thread or a chunk (split at human prompts)

export function chunkSummary(p: { readonly range_start?: string | null | undefined; readonly range_end?: string | null | undefined }) {
  const points = host().app.inspect?.chunks.split_points ?? []
  if (!p.range_start) return "Whole thread"
  const first = points.find((point) => point.message_id === p.range_start)
  const last = points.find((point) => point.message_id === p.range_end)
  return first && last ? `Chunk: prompts ${first.index}–${last.index} of ${points.length}` : "Chunk"
}

export function chunkSection(result: InspectThreadResult, c: Config) {
  const offer = result.chunks
  const points = offer.split_points
  if (!offer.available || points.length === 0) {
    return section("Whole thread or a chunk", h("p", { className: "muted", id: "chunk-unavailable", text: offer.reason || "This thread cannot be split into chunks." }))
  }
  const chunked = Boolean(c.range_start)
  const indexOf = (id: string | null) => points.findIndex((point) => point.message_id === id)
  const idAt = (index: number) => points[Math.min(Math.max(index, 0), points.length - 1)]?.message_id ?? null
  const scope = (id: string, value: "whole" | "chunk", label: string) => h("label", { className: "check" },
    h("input", { type: "radio", name: "cfg-scope", id, value, checked: value === "chunk" ? chunked : !chunked, onChange: () => {
      if (value === "whole") chooseRange(null, null)
      else chooseRange(idAt(0), idAt(0))
    } }), ` ${label}`)
  const options = (selected: string | null, from: number) => points.map((point, index) => h("option", {
    value: point.message_id,
    text: `${point.index}. ${formatDate(point.timestamp)} — ${point.prompt}`,
    selected: point.message_id === selected ? "selected" : undefined,
    disabled: index < from
  }))
  const first = Math.max(0, indexOf(c.range_start))
  const last = Math.max(first, indexOf(c.range_end))
  const picker = chunked ? h("div", { className: "grid2" },
    field("From prompt (range_start)", h("select", { id: "cfg-range-start", onChange: (event) => {
      const start = indexOf(valueOf(event))
      chooseRange(valueOf(event), idAt(Math.max(start, last)))
    } }, options(c.range_start, 0))),
    field("Through prompt (range_end)", h("select", { id: "cfg-range-end", onChange: (event) => chooseRange(c.range_start, valueOf(event)) }, options(c.range_end, first)))) : null
  const carried = offer.selected?.carried_forward_files ?? []
  const carriedText = carried.length
    ? `Claude's files from the earlier chunks are carried into the workspace as Claude left them, unless the beginning commit holds them: ${carried.join(", ")}.`
    : null
  const place = (index: number) => (index < first ? "earlier" : index <= last ? "in-chunk" : "later")
  return section("Whole thread or a chunk",
    h("fieldset", { className: "scope" }, h("legend", { text: `This thread has ${points.length} human prompts; a chunk replays some of them, the earlier ones as completed background.` }),
      scope("cfg-scope-whole", "whole", "Whole thread"), scope("cfg-scope-chunk", "chunk", "A chunk of it")),
    picker,
    chunked ? h("ol", { className: "split-points", id: "split-points" }, points.map((point, index) => h("li", { className: place(index), "aria-current": place(index) === "in-chunk" ? "true" : undefined },
      h("span", { className: "badge", text: index < first ? "background" : index <= last ? "this chunk" : "later" }), " ",
      h("span", { className: "muted", text: formatDate(point.timestamp) }), " ", h("span", { text: point.prompt }),
      point.files_touched.length ? h("p", { className: "hint mono", text: `Files: ${point.files_touched.join(", ")}` }) : null))) : null,
    chunked && carriedText ? h("p", { className: "hint", id: "chunk-carried", text: carriedText }) : null,
    chunked ? h("p", { className: "hint", text: "Claude's side of the comparison is its work inside the chunk: its patch, tokens, cost and time there." }) : null)
}

// ------------------------------------------------------------------------------------------------
// Where the replay starts: the repository folder, or an empty folder

export function emptyBeginningReason(preexisting: ReadonlyArray<string>) {
  return preexisting.length > 0
    ? `Accept the empty beginning explicitly: Claude modified ${preexisting.length} file(s) that existed before the session, so the comparison would not be like-for-like.`
    : "Confirm that the replay starts from an empty directory."
}

/**
 * The explicit acceptance of an empty beginning (“Start from an empty folder”). When Claude changed files
 * that existed before the session, the page says that the comparison is not like-for-like and repeats the question.
 */
export function emptyBeginningConfirmation(c: Config, preexisting: ReadonlyArray<string>): Array<HTMLElement> {
  const existing = preexisting.length > 0
  const text = existing
    ? ` ${CONTROLS.emptyBeginning} although Claude modified ${preexisting.length} existing file(s): the comparison is not like-for-like`
    : ` ${CONTROLS.emptyBeginning}`
  const box = h("label", { className: "check" }, h("input", { type: "checkbox", id: "cfg-confirm-empty", checked: c.confirm_empty_beginning, onChange: (event) => { c.confirm_empty_beginning = checkedOf(event); changed(false) } }), text)
  return existing
    ? [h("p", { className: "reason", id: "empty-beginning-warning", text: `Claude modified ${preexisting.length} file(s) that existed before the session; Codex would start without them. Choose a Git repository, or accept the empty beginning explicitly.` }), box]
    : [box]
}

/**
 * The folder that holds the thread's repository now (it moved or was copied): shown when the recorded
 * folder is missing, else on asking. Prepare finds the thread's start commit there, or says why not.
 */
export function repositoryFolderField(result: InspectThreadResult, c: Config) {
  const { app } = host()
  const baseline = result.baseline
  const missing = recordedFolderMissing(baseline)
  if (!missing && !app.showRepositoryFolder && !(c.repository_path ?? "").trim()) {
    return h("p", { className: "hint" }, h("button", { type: "button", className: "link-button", id: "cfg-repository-moved", text: "The repository moved? Point at its current folder", onClick: () => {
      app.showRepositoryFolder = true
      rerenderKeepingFocus(renderConfigure)
      $("cfg-repository-path")?.focus()
    } }))
  }
  const input = h("input", { type: "text", id: "cfg-repository-path", className: "mono", value: c.repository_path ?? "", spellcheck: "false", placeholder: "/absolute/path/to/the/repository",
    onInput: (event) => {
      currentConfig().repository_path = valueOf(event)
      changed(false)
      $("repository-folder-error")?.remove()
    } })
  const recorded = textOf(baseline.repository)
  const hint = missing && recorded
    ? `The thread's folder ${recorded} is not on this machine. If its repository moved, enter the folder that holds it now: Prepare finds the thread's start commit there.`
    : "The folder that holds the thread's repository now, if it moved: Prepare finds the thread's start commit there."
  return h("div", { className: "repository-folder" }, field(CONTROLS.repositoryFolder, input, hint),
    app.repositoryError ? h("p", { className: "reason", id: "repository-folder-error", role: "alert", text: app.repositoryError }) : null)
}

/** How many times each model replays the configuration from the same start (1–5). */
export function repeatsField(c: Config) {
  const counts = Array.from({ length: MAX_REPEATS }, (_, index) => index + 1)
  const select = h("select", { id: "cfg-repeats", onChange: (event) => { c.repeats = Number(valueOf(event)); changed(false) } },
    counts.map((n) => h("option", { value: String(n), text: n === 1 ? "1 (once)" : `${n} times`, selected: (c.repeats ?? 1) === n ? "selected" : undefined })))
  return h("div", { className: "medium" }, field("Repeats", select, "Each model replays the thread this many times from the same start; Results shows every outcome."))
}
