/**
 * The sections of a run's Results. Checks, what it cost, comparability, the second judge, the evaluation
 * and the repeats are the report's own renderers (src/domain/report, which escape every value) inserted as
 * they are, so the page and `report.html` cannot disagree; the rest reads the report through `candidateOf`.
 */
import { Option, Schema } from "effect"
import type { RepeatOutcomes, ReplayReport } from "../domain/contracts/index.js"
import { checksSection as checksHtml } from "../domain/report/checksHtml.js"
import { comparabilitySection as comparabilityHtml, ComparabilityView } from "../domain/report/comparabilityHtml.js"
import { renderEvaluationTable } from "../domain/report/evaluationTable.js"
import { compareLowerIsBetter, type Comparison, formatUsd } from "../domain/report/format.js"
import { repeatsSection } from "../domain/report/repeatsHtml.js"
import { taskSourceSection as taskSourceHtml } from "../domain/report/taskSourceHtml.js"
import { SynthesisCall, TaskOverlap, TaskSourceMessage } from "../domain/contracts/taskSource.js"
import { judgesSplitBadge as judgesSplitHtml, secondJudgeSection as secondJudgeHtml } from "../domain/report/secondJudgeHtml.js"
import { spendSection as spendHtml } from "../domain/report/spendHtml.js"
import { tokensSection as tokensHtml } from "../domain/report/tokensHtml.js"
import { reasonsSection as reasonsHtml, ReviewReasonsView } from "../domain/report/reasonsHtml.js"
import { Spend } from "../domain/spend.js"
import { type Child, fromReportHtml, h } from "./dom.js"
import { read } from "./pageHost.js"
import { reportVerdictText } from "./verdicts.js"

const Num = Schema.optional(Schema.NullOr(Schema.Number))
const Text = Schema.optional(Schema.NullOr(Schema.String))

/** One side of a report, down to what Results reads; a field an older report lacks is absent. */
const CandidateView = Schema.Struct({
  model: Text,
  elapsed_ms: Num,
  cost: Schema.optional(Schema.Struct({ usd: Num, reason: Text, basis: Text })),
  changed_files: Schema.optional(Schema.Array(Schema.Struct({ path: Schema.String, additions: Num, deletions: Num, binary: Schema.optional(Schema.Boolean), bytes: Num }))),
  tokens: Schema.optional(Schema.NullOr(Schema.Struct({ ordinary_input: Schema.Number, cache_read: Schema.Number, cache_write: Schema.Number, output: Schema.Number }))),
  final_response: Text,
  last_substantive_reply: Text,
  patch: Text,
  output_cuts: Schema.optional(Schema.Array(Schema.Struct({ kind: Schema.String, note: Schema.String })))
})
export type CandidateView = typeof CandidateView.Type

const decodeCandidate = Schema.decodeUnknownOption(CandidateView)

/** A side of the report as Results reads it (nothing known of a side the report does not describe). */
export const candidateOf = (report: ReplayReport, side: "codex" | "claude"): CandidateView =>
  Option.getOrElse(decodeCandidate(report.candidates?.[side]), () => ({}))

/** A report's section as report.html renders it, laid out as a section of the page: its tables scroll sideways. */
export const reportSection = (html: string): HTMLElement | null => {
  const shown = fromReportHtml(html).firstElementChild
  if (!(shown instanceof HTMLElement)) return null
  shown.classList.add("sub")
  for (const heading of shown.querySelectorAll(":scope > h2")) {
    const replacement = h("h3", { id: heading.id, text: heading.textContent ?? "" })
    heading.replaceWith(replacement)
  }
  for (const table of shown.querySelectorAll("table")) {
    const region = h("div", { className: "table-scroll" })
    table.replaceWith(region)
    region.append(table)
  }
  return shown
}

/** The evaluation as report.html shows it (the same renderer), its wide tables in the page's scrolling regions. */
export const evaluationSection = (evaluation: unknown): HTMLElement | null => {
  const wrap = reportSection(renderEvaluationTable(isEvaluation(evaluation) ? evaluation : null))
  return wrap
}
const isEvaluation = (value: unknown): value is Parameters<typeof renderEvaluationTable>[0] & object =>
  typeof value === "object" && value !== null && !Array.isArray(value)

export const checksSection = (report: ReplayReport) => (report.checks ? reportSection(checksHtml(report.checks)) : null)

export const spendSection = (report: ReplayReport) => {
  const spend = Schema.decodeUnknownOption(Spend)(read(report, "spend"))
  return Option.isSome(spend) ? reportSection(spendHtml(spend.value)) : null
}

export const comparabilitySection = (report: ReplayReport) => {
  const comparability = Schema.decodeUnknownOption(ComparabilityView)(report.comparability)
  return Option.isSome(comparability) ? reportSection(comparabilityHtml(comparability.value)) : null
}

const reviewerOf = (report: ReplayReport) => {
  const reviewer = read(report.about_review, "reviewer_model")
  return typeof reviewer === "string" ? reviewer : null
}

/** The second judge's verdict and its agreement with the first; nothing when the run asked for none. */
export const secondJudgeSection = (report: ReplayReport) => {
  const html = secondJudgeHtml(report.evaluation, reviewerOf(report))
  return html === "" ? null : reportSection(html)
}

/** "split" beside the verdict when the two judges disagree on the winner (not when the verdict says so already). */
export const judgesSplitBadge = (report: ReplayReport): Child => {
  const html = judgesSplitHtml(report.evaluation, reportVerdictText(report))
  return html === "" ? null : fromReportHtml(html)
}

/** What a report keeps of the task's source (its `task_source`), as the page decodes it. */
const OverlapView = Schema.Struct({
  ...TaskOverlap.fields,
  coverage: Schema.optionalWith(Schema.NullOr(Schema.Number), { exact: true }),
  min_coverage: Schema.optionalWith(Schema.Number, { exact: true })
})
const TaskSourceView = Schema.Struct({ messages: Schema.Array(TaskSourceMessage), overlap: OverlapView, synthesis: Schema.optionalWith(Schema.NullOr(SynthesisCall), { exact: true }) })

/** "Where the task came from": the user's messages the prompt was written from; nothing for a report without them. */
export const taskSourceSection = (report: ReplayReport) => {
  const source = Schema.decodeUnknownOption(TaskSourceView)(read(report, "task_source"))
  return Option.isSome(source) ? reportSection(taskSourceHtml(source.value)) : null
}

/** The k outcomes of this run's (thread, model) start, each linking to its run; nothing for a run that is no repeat. */
export const repeatsResults = (repeats: RepeatOutcomes | undefined) => (repeats === undefined ? null : reportSection(repeatsSection(repeats)))

export function mark(comparison: Comparison): HTMLElement | null {
  if (comparison === "better") return h("span", { className: "mark mark-better", text: "▲ better" })
  if (comparison === "worse") return h("span", { className: "mark mark-worse", text: "▼ worse" })
  return null
}

export const compareLower = compareLowerIsBetter

export function costText(cost: CandidateView["cost"]): string {
  if (cost !== undefined && typeof cost.usd === "number") return formatUsd(cost.usd)
  return cost?.reason ? `Not available: ${cost.reason}` : "Not available"
}

/** What the Codex cost is: the API equivalent, not what a ChatGPT plan bills. */
export function costNote(report: ReplayReport): HTMLElement | null {
  const cost = candidateOf(report, "codex").cost
  const basis = cost !== undefined && typeof cost.usd === "number" && cost.basis ? ` Codex priced from: ${cost.basis}.` : ""
  return report.cost_note ? h("p", { className: "hint", id: "cost-note", text: `${report.cost_note}${basis}` }) : null
}

/** "not like-for-like" next to the winner when a verdict was reached under a comparability concern. */
export function notLikeForLikeBadge(report: ReplayReport): HTMLElement | null {
  if (read(report.comparability, "like_for_like") !== false || report.winner === "inconclusive") return null
  return h("span", { className: "badge badge-warn", id: "not-like-for-like", text: "not like-for-like" })
}

/** A Codex patch that is (nearly) Claude's: said under the verdict, which a portfolio does not count. */
export function possibleLeakCallout(report: ReplayReport): HTMLElement | null {
  if (read(report.integrity, "matches_claude") !== true) return null
  const note = read(report.integrity, "note")
  return h("div", { className: "callout", id: "possible-leak", role: "alert" }, h("strong", { text: "matches Claude's result: possible leak" }), h("p", { text: typeof note === "string" ? note : "" }))
}

/** The verdict's caveats as a list under it: each label and why (a possible leak has its callout above). */
export function caveatsList(report: ReplayReport, id: string): HTMLElement | null {
  const shown = (report.caveats ?? []).filter((caveat) => caveat.kind !== "possible_leak")
  if (shown.length === 0) return null
  return h("ul", { className: "caveats", id, "aria-label": "Caveats" }, shown.map((caveat) =>
    h("li", { "data-kind": caveat.kind }, h("strong", { text: caveat.label }), caveat.detail ? `: ${caveat.detail}` : "")))
}

/** A side's cuts of the given kinds (output past its ceiling) and, for the patch, its binary files: visible notes. */
export function cutNotes(candidate: CandidateView, kinds: ReadonlyArray<string>, side: string): HTMLElement | null {
  const notes = (candidate.output_cuts ?? []).filter((cut) => kinds.includes(cut.kind)).map((cut) => cut.note)
  const binaries = kinds.includes("patch")
    ? (candidate.changed_files ?? []).filter((file) => file.binary === true).map((file) => `${file.path}: Binary file, ${Number(file.bytes ?? 0).toLocaleString("en-US")} bytes, not shown`)
    : []
  if (notes.length === 0 && binaries.length === 0) return null
  return h("div", { className: "callout cut-notes", id: `${side}-${kinds[0] ?? "output"}-notes`, role: "note" },
    h("ul", { className: "plain" }, [...notes, ...binaries].map((item) => h("li", { text: item }))))
}

/** The reviewer, "self-review" when it judged its own replay, and both orders' reasons, as report.html shows them. */
export const reasonsSection = (report: ReplayReport) => {
  const reasons = Schema.decodeUnknownOption(ReviewReasonsView)(report.review_reasons)
  const selfReview = read(report.about_review, "self_review") === true
  return reportSection(reasonsHtml(Option.getOrElse(reasons, () => ({})), { reviewer_model: reviewerOf(report), self_review: selfReview }))
}

/** The token breakdown as report.html shows it: bars and a table per token label. */
export const tokenSection = (codex: CandidateView, claude: CandidateView) => reportSection(tokensHtml(codex.tokens ?? null, claude.tokens ?? null))
