/** The report's "Comparability" section, also shown on the page's Results: what makes the two sides comparable, or not. */
import { Schema } from "effect"
import { escapeHtml } from "./format.js"

/** The comparability a report holds, down to what the section reads (the page decodes a report's with it). */
export const ComparabilityView = Schema.Struct({
  like_for_like: Schema.Boolean,
  beginning_label: Schema.String,
  capability_gaps: Schema.Array(Schema.Struct({ title: Schema.String, status: Schema.String })),
  reviewer_model: Schema.NullOr(Schema.String),
  self_review: Schema.Boolean,
  claude_final_response_missing: Schema.Boolean,
  concerns: Schema.Array(Schema.String),
  output_truncated: Schema.optional(Schema.Array(Schema.String)),
  relocated_repository: Schema.optional(Schema.Struct({ recorded: Schema.NullOr(Schema.String), used: Schema.String }))
})
export type ComparabilityView = typeof ComparabilityView.Type

const comparabilityRows = (comparability: ComparabilityView) => {
  const gaps = comparability.capability_gaps.length === 0
    ? "None"
    : comparability.capability_gaps.map((gap) => `${gap.title} (${gap.status === "partial" ? "partial" : "not available"})`).join("; ")
  const reviewer = comparability.reviewer_model === null
    ? "Not recorded"
    : comparability.self_review
    ? `Self-review: ${comparability.reviewer_model} reviewed its own replay`
    : `${comparability.reviewer_model} (not the implementing model)`
  const rows: ReadonlyArray<readonly [string, string]> = [
    ["Beginning state", comparability.beginning_label],
    ...(comparability.relocated_repository === undefined ? [] : [[
      "Repository",
      `Relocated: recorded at ${comparability.relocated_repository.recorded ?? "no recorded folder"}, replayed from ${comparability.relocated_repository.used}`
    ] as const]),
    ["Capability gaps", gaps],
    ["Reviewer", reviewer],
    ["Claude's final response", comparability.claude_final_response_missing ? "Missing" : "Present"],
    ["Output cut at a ceiling", (comparability.output_truncated ?? []).join(" ") || "None"]
  ]
  return rows.map(([label, value]) => `<tr><th scope="row">${escapeHtml(label)}</th><td>${escapeHtml(value)}</td></tr>`).join("")
}

/** The comparability panel (README.md#comparability); nothing for a report without one. */
export const comparabilitySection = (comparability: ComparabilityView | null | undefined) => {
  if (comparability === null || comparability === undefined) return ""
  const summary = comparability.like_for_like
    ? `<p class="like-for-like" id="comparability-summary">Like-for-like: same starting state, no capability gap, an independent reviewer and Claude's final response.</p>`
    : `<div class="not-like-for-like-detail" id="comparability-summary"><strong>Not like-for-like</strong><ul class="concerns">${
      comparability.concerns.map((concern) => `<li>${escapeHtml(concern)}</li>`).join("")
    }</ul></div>`
  return `<section class="comparability" aria-labelledby="comparability-heading"><h2 id="comparability-heading">Comparability</h2>${summary}<table class="comparability-table" id="comparability-facts"><tbody>${
    comparabilityRows(comparability)
  }</tbody></table></section>`
}
