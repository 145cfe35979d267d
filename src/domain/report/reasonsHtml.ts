/** The report's "Reviewer's reasons" section, also shown on the page's Results. */
import { Schema } from "effect"
import { DIMENSIONS } from "../review/dimensions.js"
import { escapeHtml } from "./format.js"

/** A report's `review_reasons`, as the section (and the page, decoding a report) reads them. */
export const ReviewReasonsView = Schema.Record({ key: Schema.String, value: Schema.Array(Schema.Struct({ order: Schema.String, reason: Schema.String })) })
export type ReviewReasonsView = typeof ReviewReasonsView.Type

const ORDER_NAMES: Record<string, string> = { AB: "A/B order", BA: "B/A order" }

/**
 * The reviewer, "self-review" when it judged its own replay, and each dimension's reasons from both orders
 * with identities revealed, all text escaped; nothing for a report without a review.
 */
export const reasonsSection = (
  reasons: ReviewReasonsView | null | undefined,
  about: { readonly reviewer_model?: string | null | undefined; readonly self_review?: boolean | undefined }
): string => {
  if (reasons === null || reasons === undefined) return ""
  const given = DIMENSIONS.filter((dimension) => (reasons[dimension.id] ?? []).length > 0)
  const dimensions = given.map((dimension) => {
    const items = (reasons[dimension.id] ?? []).map((entry) =>
      `<li><span class="muted">${escapeHtml(ORDER_NAMES[entry.order] ?? entry.order)}:</span> ${escapeHtml(entry.reason)}</li>`
    ).join("")
    return `<dt>${escapeHtml(dimension.label)}</dt><dd><ul class="reasons">${items}</ul></dd>`
  }).join("")
  const selfReview = about.self_review === true ? ` <span class="self-review" id="self-review">(self-review)</span>` : ""
  return `<section id="review-reasons" aria-labelledby="reasons-heading"><h2 id="reasons-heading">Reviewer's reasons</h2><p class="hint">Reviewer: <span class="mono" id="reviewer-model">${
    escapeHtml(about.reviewer_model ?? "Unknown")
  }</span>${selfReview}. The reason each ballot gave per dimension, with the anonymous letters replaced by who they were.</p>${
    given.length === 0 ? `<p class="muted">The ballots gave no reasons.</p>` : `<dl class="reasons">${dimensions}</dl>`
  }</section>`
}
