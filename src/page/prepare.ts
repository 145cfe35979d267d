/**
 * Prepare and Start: the configuration summed up, `prepare_run`'s answer shown for approval (its preflight
 * sentence first when Codex is missing or not logged in, its estimate, its reviewer), then `start_run`.
 * The reviewer a configuration gets when it names none is the domain's rule (src/domain/reviewer.ts).
 */
import type { CostEstimate } from "../domain/estimate.js"
import type { ModelOption, PrepareResult, PrepareRunResult } from "../domain/contracts/index.js"
import { neutralReviewer as domainNeutralReviewer } from "../domain/reviewer.js"
import { callTool } from "./client.js"
import { host, messageOf } from "./configureHost.js"
import { currentConfig, missingReasons, type Payload, payload, repositoryFolderOf, rerenderKeepingFocus, synthesize } from "./configure.js"
import { chunkSummary, list } from "./configureSections.js"
import { renderConfigure } from "./configureView.js"
import { $, byId, h, notice } from "./dom.js"

type Commands = ReadonlyArray<{ readonly command: string; readonly directory?: string | null | undefined }> | null | undefined

export function commandsSummary(commands: Commands) {
  if (commands === undefined || commands === null) return "The thread's own"
  if (commands.length === 0) return "None"
  return commands.map((entry) => (!entry.directory || entry.directory === "." ? entry.command : `${entry.command} (in ${entry.directory})`)).join(" · ")
}

/** The neutral reviewer among the models offered (the domain's rule). */
export const neutralReviewer = (offered: ReadonlyArray<ModelOption>, implementers: ReadonlyArray<string>) =>
  domainNeutralReviewer(offered.map((model) => (model.default ? { id: model.id, label: model.label, default: true as const } : { id: model.id, label: model.label })), implementers) ?? null

/** The controller's reviewer (CODEX_REPLAY_REVIEWER_MODEL), else the neutral one. */
export function defaultReviewer(offered: ReadonlyArray<ModelOption>, implementers: ReadonlyArray<string>) {
  return host().app.state?.reviewer_model || neutralReviewer(offered, implementers)
}

/** The reviewer the configuration will get, and which of its models it would review as their own replay. */
export function reviewerSummary(p: Payload) {
  const reviewer = p.reviewer_model || defaultReviewer(host().app.state?.models ?? [], p.models) || ""
  if (!reviewer) return "Codex's default model"
  return p.models.includes(reviewer) ? `${reviewer} (self-review for ${reviewer})` : reviewer
}

/** The reviewer select's first option: which model reviews when none is chosen, and why. */
export function reviewerChoiceText(offered: ReadonlyArray<ModelOption>, implementers: ReadonlyArray<string>) {
  const reviewer = defaultReviewer(offered, implementers)
  if (!reviewer) return "Codex's default model"
  if (host().app.state?.reviewer_model) return `The controller's reviewer (${reviewer})${implementers.includes(reviewer) ? " — self-review" : ""}`
  return implementers.includes(reviewer)
    ? `${reviewer} — self-review (every offered model is an implementer)`
    : `${reviewer} — neutral (implements none of the chosen models)`
}

/** What prepare answered about the reviewer, shown before the approval: the model and any self-review. */
export function preparedReviewerLine(prepared: PrepareResult | null, id: string) {
  if (!prepared || !prepared.reviewer_model) return null
  const self = prepared.self_review_models
  return h("p", { id, className: self.length ? "reason" : "hint" }, h("strong", { text: "Reviewer: " }),
    h("span", { className: "mono", text: prepared.reviewer_model }),
    self.length ? ` — self-review for ${self.join(", ")}: it judges its own replay` : " — implements none of the replays")
}

/** The estimate prepare_run answers, shown before approval; nothing when the controller gave none. */
export function estimateLine(estimate: CostEstimate | null | undefined, id: string) {
  return estimate && estimate.text ? h("p", { className: "hint cost-estimate", id, text: estimate.text }) : null
}

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? "" : "s"}`

export function refreshSummary() {
  const summary = $("config-summary")
  if (!summary || !host().draft.config) return
  const p = payload()
  const c = currentConfig()
  const folder = repositoryFolderOf(c)
  const kept = (p.created_by_claude ?? []).length
  const excluded = (p.excluded_files ?? []).length
  const rows: Array<readonly [string, string]> = [
    ["Thread", p.thread_id],
    ["Part", chunkSummary(p)],
    ["Request", p.request.length > 240 ? `${p.request.slice(0, 240)}… (${p.request.length} characters)` : p.request || "—"],
    ["Working directory", p.repo || "— (empty directory)"],
    ...(folder ? [["Repository folder", `${folder} (the start commit is found there when you prepare)`] as const] : []),
    ["Beginning", folder ? "Git, found in the repository folder" : p.beginning_kind === "git" ? `Git ${p.baseline_commit || "—"}` : "Non-Git (empty directory)"],
    ["End", folder ? "Git, found in the repository folder" : p.ending_kind === "git" ? `Git ${p.ending_commit || "—"}` : "Non-Git files"],
    // The files themselves are listed once, under Files.
    ...(p.beginning_kind === "non_git" && !folder
      ? [["Claude's files", `${plural(kept, "file")}, ticked under Files`] as const, ["Excluded files", excluded === 0 ? "None" : `${plural(excluded, "file")}, unticked under Files`] as const]
      : []),
    ["Models", p.models.join(", ") || "—"],
    ["Reviewer", reviewerSummary(p)],
    ["Checks", commandsSummary(p.checks)],
    ["Set-up", commandsSummary(p.setup)],
    ["Timeout", `${p.timeout_seconds} s`],
    ["Repeats", `${p.repeats ?? 1} per model`]
  ]
  summary.replaceChildren(...rows.flatMap(([key, value]) => [h("dt", { text: key }), h("dd", { text: value })]))
  byId("config-json").textContent = JSON.stringify(p, null, 2)
  renderPrepare()
}

/** The approval of a prepared configuration: Codex's preflight first, then the prompt, estimate and reviewer. */
function approvalBox(prepared: PrepareRunResult) {
  const { app } = host()
  // Codex missing or not logged in: its one sentence first, and Start stays disabled.
  const preflight = prepared.preflight && !prepared.preflight.ready ? prepared.preflight : null
  const blockers = prepared.blockers.filter((blocker) => preflight === null || blocker !== preflight.message)
  return h("div", { className: "approval", role: "group", "aria-labelledby": "approval-title" },
    h("h3", { id: "approval-title", text: prepared.ready ? "Approve the replay" : "The replay is blocked" }),
    preflight ? h("div", { className: "callout callout-bad", id: "preflight", role: "alert" }, h("strong", { text: preflight.message || "Codex cannot run here." })) : null,
    prepared.task_check ? h("p", { className: prepared.task_check.overlap.flagged ? "reason" : "hint", id: "approval-task-check", text: prepared.task_check.message }) : null,
    prepared.ready ? h("p", { className: "approval-prompt", id: "approval-prompt", text: prepared.approval_prompt || "Approve this replay?" }) : null,
    prepared.ready ? estimateLine(prepared.estimate, "cost-estimate") : null,
    preparedReviewerLine(prepared, "approval-reviewer"),
    blockers.length ? list(blockers, "plain error") : null,
    prepared.questions.length ? list(prepared.questions) : null,
    h("div", { className: "actions" },
      prepared.ready || preflight
        ? h("button", { type: "button", className: "primary", id: "approve-start", text: app.starting ? "Starting…" : "Approve and start", disabled: app.starting || !prepared.ready, "aria-describedby": preflight ? "preflight" : undefined, onClick: () => void start() })
        : null,
      h("button", { type: "button", className: "secondary", id: "edit-config", text: "Back to editing", disabled: app.starting, onClick: () => {
        app.prepared = null
        renderPrepare()
        $("prepare")?.focus()
      } })))
}

export function renderPrepare() {
  const { app } = host()
  const box = $("prepare-actions")
  if (!box) return
  box.replaceChildren()
  if (app.prepared) {
    box.append(approvalBox(app.prepared))
    return
  }
  const reasons = missingReasons()
  const blocked = reasons.length > 0
  const button = h("button", { type: "button", className: "primary", id: "prepare", text: app.preparing ? "Preparing…" : "Prepare replay", disabled: blocked || app.preparing, "aria-describedby": "start-reason", onClick: () => void prepare() })
  box.append(button, h("p", { className: blocked ? "reason" : "hint", id: "start-reason", role: "status", text: blocked ? `Cannot start yet: ${reasons.join(" ")}` : "Prepare checks the configuration and asks for your approval before anything runs." }))
}

export async function prepare() {
  const { app } = host()
  // Approving a replay whose task was never reconstructed reconstructs it first, so it is checked before approval.
  if (currentConfig().request_method === "pending" && !currentConfig().synthesis_attempted) await synthesize()
  app.preparing = true
  renderPrepare()
  notice("")
  try {
    const prepared = await callTool("prepare_run", payload())
    // One configuration's answer (a batch's carries `batch`).
    app.prepared = "batch" in prepared ? null : prepared
    const check = app.prepared?.task_check
    if (check) {
      const c = currentConfig()
      c.task_overlap = check.overlap
      c.task_overlap_of = c.request
      c.task_source = check.source_messages
      rerenderKeepingFocus(renderConfigure)
    }
  } catch (error) {
    notice(`Prepare failed: ${messageOf(error)}`)
    // The folder given is unusable: its sentence stands under the field.
    if (repositoryFolderOf(currentConfig())) {
      app.repositoryError = messageOf(error)
      rerenderKeepingFocus(renderConfigure)
    }
  } finally {
    app.preparing = false
    renderPrepare()
    const next = $("approve-start") ?? $("edit-config") ?? $("prepare")
    if (next instanceof HTMLButtonElement && next.disabled) ($("edit-config") ?? next).focus()
    else next?.focus()
  }
}

export async function start() {
  const { app, draft } = host()
  const prepared = app.prepared
  if (!prepared || !prepared.prepare_token) return
  app.starting = true
  renderPrepare()
  notice("")
  try {
    const result = await callTool("start_run", { ...payload(), approved: true, prepare_token: prepared.prepare_token })
    if ("batch_id" in result) throw new Error("The controller started a batch instead of this replay.")
    const ids = result.runs.map((entry) => entry.run_id)
    if (!ids.length && result.run_id) ids.push(result.run_id)
    for (const entry of result.runs) app.runs[entry.run_id] = { ...entry.run, run_log: "" }
    draft.run_ids = ids
    draft.results_run = null
    host().rememberConfig(ids)
    if (result.errors.length) notice(`Some models did not launch: ${result.errors.map((e) => e.error).join(" ")}`)
    app.prepared = null
    app.runFocus = "runs"
    host().saveDraft()
    host().showStep("run", true)
    host().renderRuns()
    host().pollRuns()
    host().refreshState()
  } catch (error) {
    notice(`Start failed: ${messageOf(error)}`)
  } finally {
    app.starting = false
    renderPrepare()
  }
}
