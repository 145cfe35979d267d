/**
 * The Configure step: the chosen thread (or part of it) as a replay configuration to check and approve.
 * Claude's changed files are listed once, under “Claude's historical output”, with their patches and, for
 * a replay from an empty folder, the tick boxes that count them as Claude's work; other places refer to it.
 */
import { formatUsd } from "../domain/report/format.js"
import type { InspectThreadResult } from "../domain/contracts/index.js"
import { MAX_REPLAY_MODELS } from "../domain/product.js"
import { type Config, host, listOf, numberOf, prop, textOf, textsOf } from "./configureHost.js"
import { changed, infer, inspect } from "./configure.js"
import {
  addCommand,
  checkedOf,
  chunkSection,
  commandRows,
  emptyBeginningConfirmation,
  field,
  list,
  repeatsField,
  repositoryFolderField,
  secondJudgeChoice,
  section,
  taskPromptSection,
  valueOf
} from "./configureSections.js"
import { byId, h } from "./dom.js"
import { formatDuration } from "./format.js"
import { refreshSummary, reviewerChoiceText } from "./prepare.js"

export function renderConfigure() {
  const { app, draft } = host()
  const body = byId("configure-body")
  body.replaceChildren()
  if (!draft.thread_id) {
    body.append(h("p", { className: "muted", text: "Pick a thread first." }))
    return
  }
  const id = draft.thread_id
  if (app.inspectError) {
    body.append(h("p", { className: "error", text: `Could not inspect the thread: ${app.inspectError}` }), h("button", { type: "button", className: "secondary", text: "Try again", onClick: () => void inspect(id) }))
    return
  }
  const result = app.inspect
  const c = draft.config
  if (!result || !c) {
    body.append(h("p", { className: "muted", role: "status", text: "Inspecting the thread…" }))
    return
  }
  const thread = result.thread
  body.append(h("div", { className: "thread-head" },
    h("p", { className: "thread-head-title", text: thread.title || c.thread_id }),
    h("p", { className: "muted mono", text: `${c.thread_id}${thread.source === "sample" ? " · packaged sample" : ""}` })))
  const problems = [...result.diagnostics.map((d) => `${d.step}: ${d.message}`), ...result.repository_blockers, ...result.blockers]
  if (problems.length) body.append(h("div", { className: "callout callout-bad" }, h("strong", { text: "Blockers and diagnostics" }), list(problems)))
  if (result.questions.length) body.append(h("div", { className: "callout" }, h("strong", { text: "Questions" }), list(result.questions)))
  const parts: Array<HTMLElement | null> = [
    chunkSection(result, c),
    taskPromptSection(result, c),
    statesSection(result, c),
    historicalSection(result, c),
    c.beginning_kind === "non_git" ? attributionSection(result, c) : null,
    gapsSection(result),
    ...checksSection(c),
    modelsSection(result, c),
    section("Configuration to approve",
      h("dl", { className: "facts", id: "config-summary" }),
      h("details", {}, h("summary", { text: "Exact payload" }), h("pre", { className: "mono small-pre", id: "config-json" }))),
    h("div", { className: "actions", id: "prepare-actions" })
  ]
  body.append(...parts.filter((part): part is HTMLElement => part !== null))
  refreshSummary()
}

const kindSelect = (id: string, value: string, onChange: (event: Event) => void) => h("select", { id, onChange },
  h("option", { value: "git", text: "Git", selected: value === "git" ? "selected" : undefined }),
  h("option", { value: "non_git", text: "Non-Git (plain files)", selected: value === "non_git" ? "selected" : undefined }))

const stateKind = (event: Event) => (valueOf(event) === "git" ? "git" : "non_git")

function statesSection(result: InspectThreadResult, c: Config) {
  const { app } = host()
  const baseline = result.baseline
  const evidence = textsOf(prop(baseline, "evidence"))
  const recorded = textOf(baseline.repository)
  const repo = h("input", { type: "text", id: "cfg-repo", className: "mono", value: c.repo, spellcheck: "false", placeholder: "/absolute/path/to/project", onInput: (event) => { c.repo = valueOf(event); changed(false) } })
  const missing = recorded && !c.repo && evidence.some((line) => /does not exist/i.test(line))
  return section("Working directory and states",
    h("div", { className: "row" },
      field("Working directory (repo)", repo, missing ? `Recorded: ${recorded} (not found on this machine). Leave empty for a non-Git replay from an empty directory.` : "Where the thread worked. Leave empty for a non-Git replay from an empty directory."),
      h("button", { type: "button", className: "secondary", id: "infer", text: app.inferring ? "Inferring…" : "Infer", disabled: app.inferring, onClick: () => void infer() })),
    app.inferNote ? h("p", { className: "hint", role: "status", id: "infer-note", text: app.inferNote }) : null,
    repositoryFolderField(result, c),
    h("div", { className: "grid2" },
      field("Beginning state", kindSelect("cfg-beginning", c.beginning_kind, (event) => { c.beginning_kind = stateKind(event); if (c.beginning_kind === "git") c.ending_kind = "git"; changed(true) })),
      field("End state", kindSelect("cfg-ending", c.ending_kind, (event) => { c.ending_kind = stateKind(event); changed(true) }))),
    h("div", { className: "grid2" },
      c.beginning_kind === "git" ? field("Beginning commit", h("input", { type: "text", id: "cfg-baseline", className: "mono", value: c.baseline_commit, spellcheck: "false", onInput: (event) => { c.baseline_commit = valueOf(event); changed(false) } })) : null,
      c.ending_kind === "git" ? field("Ending commit", h("input", { type: "text", id: "cfg-ending-commit", className: "mono", value: c.ending_commit, spellcheck: "false", onInput: (event) => { c.ending_commit = valueOf(event); changed(false) } })) : null),
    evidence.length ? h("details", { className: "evidence" }, h("summary", { text: "Evidence for the baseline" }), list(evidence)) : null,
    c.beginning_kind === "git"
      ? h("label", { className: "check" }, h("input", { type: "checkbox", id: "cfg-confirm-repo", checked: c.confirm_repository_selection, onChange: (event) => { c.confirm_repository_selection = checkedOf(event); changed(false) } }), " I have reviewed this repository and these commits")
      : null)
}

interface FileRow {
  readonly path: string
  readonly kind: string
  readonly diff: string | null
  readonly bySubagent: boolean
  readonly abandoned: boolean
}

/** Every file Claude changed, once: the thread's record, then any the file selection adds. */
const filesOf = (result: InspectThreadResult, c: Config): ReadonlyArray<FileRow> => {
  const rows: Array<FileRow> = listOf(prop(result.thread, "historical_changed_files")).flatMap((file) => {
    const path = textOf(prop(file, "path"))
    return path === null ? [] : [{
      path,
      kind: textOf(prop(file, "kind")) ?? "",
      diff: textOf(prop(file, "diff")),
      bySubagent: prop(file, "by_subagent") === true,
      abandoned: prop(file, "abandoned") === true
    }]
  })
  const listed = new Set(rows.map((row) => row.path))
  for (const file of c.files) if (!listed.has(file.path)) rows.push({ path: file.path, kind: file.kind, diff: null, bySubagent: false, abandoned: false })
  return rows
}

function historicalSection(result: InspectThreadResult, c: Config) {
  const thread = result.thread
  const files = filesOf(result, c)
  const preexisting = new Set(textsOf(result.file_selection.preexisting_files))
  const carried = new Set(result.chunks.selected?.carried_forward_files ?? [])
  const attributing = c.beginning_kind === "non_git"
  const elapsed = prop(thread, "elapsed")
  const cost = numberOf(prop(thread, "cost_usd"))
  const facts = [textOf(prop(thread, "claude_model")), formatDuration(numberOf(prop(elapsed, "active_ms")) ?? numberOf(prop(elapsed, "wall_ms"))), cost === null ? null : formatUsd(cost)]
  const finalResponse = textOf(prop(thread, "final_response"))
  const lastReply = textOf(prop(prop(thread, "final_response_status"), "last_substantive_reply"))
  const row = (file: FileRow) => {
    const index = c.files.findIndex((choice) => choice.path === file.path)
    const choice = attributing ? c.files[index] : undefined
    const badges = [
      h("span", { className: `badge kind-${file.kind}`, text: file.kind }),
      file.bySubagent ? h("span", { className: "badge", text: "sub-agent" }) : null,
      file.abandoned ? h("span", { className: "badge", text: "abandoned" }) : null,
      preexisting.has(file.path) ? h("span", { className: "badge badge-warn", text: "existed before" }) : null,
      carried.has(file.path) ? h("span", { className: "badge", text: "carried from earlier chunks" }) : null
    ]
    const box = choice
      ? h("input", { type: "checkbox", id: `cfg-file-${index}`, checked: choice.selected, disabled: !choice.selectable, "data-path": file.path, "aria-label": `Count ${file.path} as Claude's work`,
        onChange: (event) => { choice.selected = checkedOf(event); c.confirm_file_selection = false; changed(true) } })
      : null
    return h("li", { className: box ? "file-row picked" : "file-row" }, box,
      h("details", {}, h("summary", {}, h("span", { className: "mono", text: file.path }), " ", badges),
        h("pre", { className: "diff", text: file.diff || "(no patch)" })))
  }
  return section("Claude's historical output",
    c.range_start ? h("p", { className: "muted", id: "historical-scope", text: "The whole thread's output. The comparison counts only Claude's work inside the chosen chunk (its patch, tokens, cost and time)." }) : null,
    h("p", { className: "muted", text: facts.filter((part): part is string => part !== null && part !== "").join(" · ") }),
    h("h4", { id: "files-heading", text: `Files (${files.length})` }),
    files.length
      ? h("ul", { className: attributing ? "files file-picks" : "files", id: "changed-files", "aria-labelledby": "files-heading" }, files.map(row))
      : h("p", { className: "muted", text: "Claude changed no files with its file tools." }),
    h("h4", { text: "Final response" }),
    h("pre", { className: "response", id: "historical-response", tabindex: "0", "aria-label": "Claude's final response", text: finalResponse || "(no final response)" }),
    !finalResponse && lastReply
      ? [h("h4", { text: "Last substantive reply (the last turn has no final response)" }), h("pre", { className: "response", text: lastReply })]
      : null)
}

/** A replay from an empty folder: which files count as Claude's (ticked under Files) and the acceptance. */
function attributionSection(result: InspectThreadResult, c: Config) {
  const preexisting = textsOf(result.file_selection.preexisting_files)
  return section("File attribution",
    h("p", { className: "hint", id: "attribution-hint", text: c.files.length
      ? `A non-Git replay starts from an empty directory. The ${c.files.length} file${c.files.length === 1 ? "" : "s"} ticked under Files count as Claude's work; unticked files are excluded from the comparison.${preexisting.length ? ` ${preexisting.length} of them existed before the thread (marked “existed before”).` : ""}`
      : "A non-Git replay starts from an empty directory." }),
    c.files.length
      ? h("label", { className: "check" }, h("input", { type: "checkbox", id: "cfg-confirm-files", checked: c.confirm_file_selection, onChange: (event) => { c.confirm_file_selection = checkedOf(event); changed(false) } }), " I confirm this file attribution")
      : null,
    ...emptyBeginningConfirmation(c, preexisting))
}

function gapsSection(result: InspectThreadResult) {
  const gaps = (result.capabilities.items ?? []).filter((item) => item.status !== "available")
  return section("Capability gaps",
    gaps.length
      ? h("ul", { className: "gaps" }, gaps.map((gap) => {
        const action = textOf(prop(gap, "remediation_action"))
        return h("li", { className: "gap" },
          h("p", {}, h("strong", { text: gap.title || gap.name || "" }), " ", h("span", { className: "badge badge-warn", text: gap.status === "partial" ? "partial" : "not available" }), " ", h("span", { className: "fairness", text: "may affect comparison fairness" })),
          h("p", { text: gap.guidance }),
          action ? h("p", { className: "hint", text: `What to do: ${host().remediationText(action)}` }) : null)
      }))
      : h("p", { className: "muted", text: "No capability gaps found: Codex can use everything Claude used in this thread." }))
}

function checksSection(c: Config) {
  return [
    section("Checks",
      h("p", { className: "hint", id: "checks-hint", text: "The tests, builds, type checks and linters Claude ran, to run again on the start, on Claude's result and on each Codex result, inside the sandbox. Ticked: those that passed after Claude's last edit. Read each command before approving: it is shown exactly as it will run." }),
      commandRows(c.checks, "check", (entry) => {
        const found = entry.found
        if (!found) return "added here"
        const last = found.last_outcome === "passed" ? "last passed" : found.last_outcome === "failed" ? `last failed${found.last_exit_code === null || found.last_exit_code === undefined ? "" : ` (exit ${found.last_exit_code})`}` : "outcome unknown"
        return `${found.kind ?? "check"} · ran ${found.runs}× · ${last}${found.after_last_edit ? " after Claude's last edit" : " before Claude's last edit"}`
      }),
      addCommand(c.checks, "check", "Add a check")),
    section("Set-up commands",
      h("p", { className: "hint", text: "Dependency installs run in each copy before its checks (network allowed for these only)." }),
      commandRows(c.setup, "setup", (entry) => (entry.found ? `ran ${entry.found.runs}×` : "added here")),
      addCommand(c.setup, "setup", "Add a set-up command"))
  ]
}

function modelsSection(result: InspectThreadResult, c: Config) {
  const offered = result.models.length ? result.models : host().app.state?.models ?? []
  const modelBoxes = offered.map((model, index) => h("label", { className: "check model" },
    h("input", { type: "checkbox", name: "model", id: `cfg-model-${index}`, value: model.id, checked: c.models.includes(model.id), onChange: (event) => {
      const chosen = checkedOf(event) ? [...c.models, model.id] : c.models.filter((m) => m !== model.id)
      c.models = offered.map((m) => m.id).filter((m) => chosen.includes(m))
      changed(true)
    } }),
    " ", model.label || model.id, " ", h("span", { className: "muted mono", text: model.id }), model.default ? h("span", { className: "badge", text: "default" }) : null))
  const reviewer = h("select", { id: "cfg-reviewer", onChange: (event) => { c.reviewer_model = valueOf(event); changed(true) } },
    h("option", { value: "", text: reviewerChoiceText(offered, c.models) }),
    offered.map((model) => h("option", { value: model.id, text: `${model.label || model.id} (${model.id})`, selected: c.reviewer_model === model.id ? "selected" : undefined })))
  const timeout = h("input", { type: "number", id: "cfg-timeout", min: "1", max: "86400", step: "1", value: String(c.timeout_seconds), onInput: (event) => { c.timeout_seconds = Number(valueOf(event)); changed(false) } })
  return section("Codex models",
    h("fieldset", { className: "models" }, h("legend", { text: `Choose 1 to ${MAX_REPLAY_MODELS} models; each runs in its own workspace, in parallel.` }), modelBoxes),
    h("div", { className: "medium" }, field("Reviewer model", reviewer), h("p", { className: "hint", id: "reviewer-hint", text: "One model judges every run, blind to who wrote which side; a model judging its own replay is a self-review." })),
    secondJudgeChoice(c, (value) => { Object.assign(c, value); changed(true) }),
    h("div", { className: "narrow" }, field("Timeout (seconds)", timeout)),
    repeatsField(c))
}
