import type { Author } from "../review/evaluation.js"
import { repeatsSection } from "./repeatsHtml.js"
import { spendSection } from "./spendHtml.js"
import { DIMENSION_IDS } from "../review/dimensions.js"
import { caveatsOfReport } from "./caveats.js"
import { binaryFileText } from "./ceilings.js"
import { checksSection } from "./checksHtml.js"
import { taskSourceSection } from "./taskSourceHtml.js"
import { renderDiff } from "./diff.js"
import { renderEvaluationTable } from "./evaluationTable.js"
import { judgesSplitBadge, secondJudgeSection } from "./secondJudgeHtml.js"
import { compareLowerIsBetter, type Comparison, escapeHtml, formatElapsed, formatUsd } from "./format.js"
import { NOT_LIKE_FOR_LIKE } from "./comparability.js"
import { comparabilitySection } from "./comparabilityHtml.js"
import { POSSIBLE_LEAK, reportIntegrity } from "./integrity.js"
import { AUTHOR_LABELS, type Report, type ReportCandidate, verdictHeadline } from "./report.js"
import { tokensSection } from "./tokensHtml.js"
import { reasonsSection } from "./reasonsHtml.js"
import { documentStart, inScrollRegions, REPORT_CSS } from "./styles.js"

const SIDES: ReadonlyArray<Author> = ["codex", "claude"]
/** Section titles per side (docs/verdicts.md names them this way). */
const SIDE_NAMES: Record<Author, string> = { codex: "Codex", claude: "Claude" }

const verdictHeadlineOf = (report: Report): string => verdictHeadline(report.winner, caveatsOfReport(report))

const verdictDetail = (report: Report): string => {
  const evaluation = report.evaluation
  if (evaluation === null) return "The blind review did not produce a ballot."
  const counted = DIMENSION_IDS.filter((id) => evaluation.comparable_dimensions.includes(id)).map((id) => evaluation.dimensions[id])
  const count = (winner: string) => counted.filter((result) => result.winner === winner).length
  if (report.winner === "inconclusive") {
    return "The review needs a validated ballot in both orders to decide; at least one was missing."
  }
  const notApplicable = count("not_applicable")
  const rest = notApplicable === 0 ? "" : `, not applicable ${notApplicable}`
  return [
    `Dimensions won (agreed in both orders): ${AUTHOR_LABELS.codex} ${count("codex")}, ${AUTHOR_LABELS.claude} ${count("claude")}, tied or order-dependent ${count("tie")}${rest}; ${counted.length} compared.`,
    `${evaluation.flips} of ${DIMENSION_IDS.length} dimensions flipped with the order.`
  ].join(" ")
}

/** A verdict reached while the comparison was not like-for-like says so next to the winner. */
const notLikeForLike = (report: Report) =>
  report.winner !== "inconclusive" && report.comparability !== null && !report.comparability.like_for_like
    ? ` <span class="not-like-for-like">(${NOT_LIKE_FOR_LIKE})</span>`
    : ""

/** A Codex patch that is (nearly) Claude's: said under the headline, the verdict not to be trusted. */
const possibleLeak = (report: Report) => {
  const integrity = reportIntegrity(report)
  return integrity?.matches_claude === true
    ? `<p class="possible-leak" role="alert"><strong>${escapeHtml(POSSIBLE_LEAK)}.</strong> ${escapeHtml(integrity.note ?? "")}</p>`
    : ""
}

/** The caveats under the verdict, as every other view of it words them (`caveatsOf`). */
const caveatsList = (report: Report) => {
  const caveats = caveatsOfReport(report)
  return caveats.length === 0
    ? ""
    : `<ul class="caveats" aria-label="Caveats">${
      caveats.map((entry) =>
        `<li class="caveat caveat--${escapeHtml(entry.kind)}"><strong>${escapeHtml(entry.label)}</strong>${entry.detail === null ? "" : `: ${escapeHtml(entry.detail)}`}</li>`
      ).join("")
    }</ul>`
}

const verdictSection = (report: Report) =>
  `<section class="verdict verdict--${escapeHtml(report.winner)}" aria-label="Verdict"><p class="verdict-kicker">Verdict</p><h2 class="verdict-headline">${escapeHtml(verdictHeadlineOf(report))}${notLikeForLike(report)}${judgesSplitBadge(report.evaluation, verdictHeadlineOf(report))}</h2>${possibleLeak(report)}<p>${escapeHtml(verdictDetail(report))}</p>${caveatsList(report)}</section>`

const markText: Record<Comparison, string> = { better: "better", worse: "worse", same: "", unknown: "" }

const metricCell = (text: string, comparison: Comparison) => {
  const mark = markText[comparison]
  const marked = mark === "" ? "" : ` <span class="metric-mark">(${mark})</span>`
  const kind = mark === "" ? "" : ` metric--${mark}`
  return `<td class="metric${kind}">${escapeHtml(text)}${marked}</td>`
}

const costText = (candidate: ReportCandidate) => {
  const total = candidate.cost.usd === null ? `Not available: ${candidate.cost.reason}` : formatUsd(candidate.cost.usd)
  const lines = (candidate.cost_lines ?? []).map((line) =>
    `; ${line.label}: ${line.usd === null ? "not priced" : formatUsd(line.usd)}`
  )
  return total + lines.join("")
}

const codexCostBasis = (codex: ReportCandidate) =>
  codex.cost.usd !== null && codex.cost.basis !== undefined ? ` Codex priced from: ${escapeHtml(codex.cost.basis)}.` : ""

const metricsSection = (report: Report) => {
  const { codex, claude } = report.candidates
  const elapsed = (side: ReportCandidate, other: ReportCandidate) =>
    metricCell(formatElapsed(side.elapsed_ms), compareLowerIsBetter(side.elapsed_ms, other.elapsed_ms))
  const cost = (side: ReportCandidate, other: ReportCandidate) =>
    metricCell(costText(side), compareLowerIsBetter(side.cost.usd, other.cost.usd))
  const model = (side: ReportCandidate) => `<td>${escapeHtml(side.model ?? "Unknown")}</td>`
  return `<section aria-labelledby="metrics-heading"><h2 id="metrics-heading">Time and cost</h2><table class="metrics"><thead><tr><th scope="col">Metric</th><th scope="col">${AUTHOR_LABELS.codex}</th><th scope="col">${AUTHOR_LABELS.claude}</th></tr></thead><tbody><tr><th scope="row">Model</th>${model(codex)}${model(claude)}</tr><tr><th scope="row">Elapsed time</th>${elapsed(codex, claude)}${elapsed(claude, codex)}</tr><tr><th scope="row">Cost</th>${cost(codex, claude)}${cost(claude, codex)}</tr></tbody></table><p class="hint">Lower elapsed time and cost are better.</p><p class="hint cost-note">${escapeHtml(report.cost_note)}${codexCostBasis(codex)}</p></section>`
}

const fileList = (candidate: ReportCandidate) => {
  if (candidate.changed_files.length === 0) return `<p class="empty">No files changed.</p>`
  const items = candidate.changed_files.map((file) =>
    file.binary === true
      ? `<li><code>${escapeHtml(file.path)}</code> <span class="binary">${escapeHtml(binaryFileText(file.bytes ?? 0))}</span></li>`
      : `<li><code>${escapeHtml(file.path)}</code> <span class="added">+${file.additions}</span> <span class="removed">−${file.deletions}</span></li>`
  ).join("")
  return `<ul class="files">${items}</ul>`
}

/** The sentences of the side's cuts of the given kinds, each a visible note. */
const cutNotes = (candidate: ReportCandidate, kinds: ReadonlyArray<string>) =>
  (candidate.output_cuts ?? []).filter((cut) => kinds.includes(cut.kind))
    .map((cut) => `<p class="cut-note" role="note">${escapeHtml(cut.note)}</p>`).join("")

const sideBySide = (title: string, id: string, render: (side: Author, candidate: ReportCandidate) => string, report: Report) => {
  const columns = SIDES.map((side) => `<div class="column">${render(side, report.candidates[side])}</div>`).join("")
  return `<section aria-labelledby="${id}"><h2 id="${id}">${title}</h2><div class="side-by-side">${columns}</div></section>`
}

const patchColumn = (side: Author, candidate: ReportCandidate) =>
  `<h3>${SIDE_NAMES[side]} patch</h3>${cutNotes(candidate, ["patch", "file", "changed_files"])}${fileList(candidate)}${renderDiff(candidate.patch)}`

const lastSubstantiveReply = (candidate: ReportCandidate) =>
  candidate.final_response === "" && candidate.last_substantive_reply
    ? `<h4>Last substantive reply (the last turn has no final response)</h4><pre class="response last-substantive">${
      escapeHtml(candidate.last_substantive_reply)
    }</pre>`
    : ""

const responseColumn = (side: Author, candidate: ReportCandidate) =>
  `<h3>${SIDE_NAMES[side]} final response</h3>${cutNotes(candidate, ["final_response"])}<pre class="response">${escapeHtml(candidate.final_response === "" ? "(empty)" : candidate.final_response)}</pre>${
    lastSubstantiveReply(candidate)
  }`

const worktreeColumn = (side: Author, candidate: ReportCandidate) =>
  `<h3>${SIDE_NAMES[side]} worktree</h3><p><code>${escapeHtml(candidate.worktree ?? "Not recorded")}</code></p>`

/** The reviewer model, and "self-review" when it judged its own replay. */
export const reviewerText = (report: Report): string => {
  const { reviewer_model: model, self_review: selfReview } = report.about_review
  return `${model ?? "Unknown"}${selfReview ? " (self-review)" : ""}`
}

const aboutSection = (report: Report) => {
  const sources = report.about_review.sources.map((source) => `<li>${escapeHtml(source)}</li>`).join("")
  return `<section class="about" aria-labelledby="about-heading"><h2 id="about-heading">About this review</h2><p>${escapeHtml(report.about_review.note)}</p><ul class="sources">${sources}</ul></section>`
}

/**
 * The self-contained `report.html` (docs/verdicts.md): inline CSS and SVG, no script, no external request;
 * the verdict first. All text from candidates and reviewers is escaped.
 */
export const renderReportHtml = (report: Report, controllerOrigin: string | null = null): string => {
  const title = `Codex Replay report: ${report.run_id}`
  // The run's page in the controller that wrote the report (docs/controller.md, "Addresses").
  const address = controllerOrigin === null ? null : `${controllerOrigin}/runs/${encodeURIComponent(report.run_id)}`
  const addressRow = address === null ? "" : `<dt>In the controller</dt><dd><a href="${escapeHtml(address)}">${escapeHtml(address)}</a></dd>`
  const body = [
    `<header><p class="product">Codex Replay</p><h1>Replay report</h1><dl class="identity"><dt>Run</dt><dd><code>${escapeHtml(report.run_id)}</code></dd><dt>Claude thread</dt><dd><code>${escapeHtml(report.thread_id)}</code></dd><dt>Generated</dt><dd>${escapeHtml(report.generated_at)}</dd><dt>Reviewer</dt><dd>${escapeHtml(reviewerText(report))}</dd>${addressRow}</dl></header>`,
    verdictSection(report),
    repeatsSection(report.repeats),
    comparabilitySection(report.comparability),
    `<section aria-labelledby="evaluation-heading"><h2 id="evaluation-heading">Evaluation</h2>${renderEvaluationTable(report.evaluation)}</section>`,
    secondJudgeSection(report.evaluation, typeof report.about_review?.reviewer_model === "string" ? report.about_review.reviewer_model : null),
    reasonsSection(report.review_reasons, report.about_review),
    checksSection(report.checks),
    metricsSection(report),
    spendSection(report.spend),
    tokensSection(report.candidates.codex.tokens, report.candidates.claude.tokens),
    `<section aria-labelledby="request-heading"><h2 id="request-heading">Original request</h2><pre class="request">${escapeHtml(report.original_request)}</pre></section>`,
    taskSourceSection(report.task_source),
    sideBySide("Patches", "patches-heading", patchColumn, report),
    sideBySide("Final responses", "responses-heading", responseColumn, report),
    sideBySide("Worktrees", "worktrees-heading", worktreeColumn, report),
    aboutSection(report)
  ]
  return [documentStart(title, REPORT_CSS), inScrollRegions(body.join("\n")), "</main></body></html>\n"].join("\n")
}
