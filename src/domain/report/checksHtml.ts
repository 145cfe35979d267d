/** The report's "Checks" section: the approved checks on the start and both results, side by side. */
import {
  CHECK_CHANGE_LABELS,
  CHECK_STATUS_LABELS,
  type CheckRow,
  type ChecksComparison,
  type CommandOutcome,
  type SideCheck,
  type StateChecks
} from "../checks/outcomes.js"
import { escapeHtml } from "./format.js"
import { visible } from "./visible.js"

const commandCell = (command: { readonly command: string; readonly directory: string }) =>
  `<code>${escapeHtml(visible(command.command))}</code>${command.directory === "." ? "" : ` <span class="muted">(in ${escapeHtml(visible(command.directory))})</span>`}`

const exitText = (exitCode: number | null) => (exitCode === null ? "" : ` (exit ${exitCode})`)

/** A side's outcome: status, exit code and change; a check that could not run gives its reason and is not counted. */
const sideCell = (side: SideCheck) => {
  const reason = side.reason === null ? "" : `<br><span class="check-reason">${escapeHtml(side.reason)}</span>`
  const note = side.status === "could_not_run" ? " — not counted" : ""
  return `<td class="check check--${side.status} change--${side.change}">${escapeHtml(CHECK_STATUS_LABELS[side.status])}${exitText(side.exit_code)}<br><span class="check-change">${
    escapeHtml(CHECK_CHANGE_LABELS[side.change])
  }${note}</span>${reason}</td>`
}

const row = (check: CheckRow) =>
  `<tr><th scope="row">${commandCell(check)}</th><td class="check check--${check.start}">${escapeHtml(CHECK_STATUS_LABELS[check.start])}</td>${sideCell(check.claude)}${sideCell(check.codex)}</tr>`

const outcomeBlock = (outcome: CommandOutcome) =>
  `<li>${commandCell(outcome)}: ${escapeHtml(CHECK_STATUS_LABELS[outcome.status])}${exitText(outcome.exit_code)}${
    outcome.reason === null ? "" : ` — ${escapeHtml(outcome.reason)}`
  }<pre class="check-excerpt">${escapeHtml(outcome.excerpt === "" ? "(no output)" : outcome.excerpt)}</pre></li>`

const stateDetails = (title: string, state: StateChecks) =>
  `<details class="check-state"><summary>${escapeHtml(title)}: output of each command</summary><ul class="check-outcomes">${
    [...state.setup, ...state.checks].map(outcomeBlock).join("")
  }</ul></details>`

/** The section, or nothing for a report without checks (none approved, or written before they ran). */
export const checksSection = (checks: ChecksComparison | null | undefined) => {
  if (checks === null || checks === undefined) return ""
  const setup = checks.setup.length === 0 ? "none" : checks.setup.map(commandCell).join(", ")
  const table = checks.rows.length === 0
    ? ""
    : `<table class="checks-table" id="checks-table"><thead><tr><th scope="col">Command</th><th scope="col">At the start</th><th scope="col">Claude's result</th><th scope="col">Codex's result</th></tr></thead><tbody>${
      checks.rows.map(row).join("")
    }</tbody></table>`
  return `<section class="checks" aria-labelledby="checks-heading"><h2 id="checks-heading">Checks</h2><p class="checks-sentence" id="checks-sentence">${
    escapeHtml(visible(checks.sentence))
  }</p>${table}<p class="hint">Each command ran on a fresh copy of each state, without network, within ${checks.time_limit_seconds} s; set-up first: ${setup}. A check that could not run is shown with its reason and counted against neither side.</p>${
    stateDetails("At the start", checks.start)
  }${stateDetails("Claude's result", checks.claude)}${stateDetails("Codex's result", checks.codex)}</section>`
}
