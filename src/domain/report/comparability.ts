import type { Capability } from "../history/capabilities.js"

/**
 * Where the replay started, against where Claude started:
 * - `same_commit`: the commit Claude started from;
 * - `carried_forward`: that start plus Claude's files of the thread's earlier parts;
 * - `empty_created_only`: an empty directory, and Claude only created files;
 * - `empty_with_existing_changes`: an empty directory although Claude changed files that already existed.
 */
export type BeginningState = "same_commit" | "carried_forward" | "empty_created_only" | "empty_with_existing_changes"

export const BEGINNING_LABELS: Record<BeginningState, string> = {
  same_commit: "Same commit as Claude",
  carried_forward: "Claude's files carried forward",
  empty_created_only: "Empty directory (Claude only created files)",
  empty_with_existing_changes: "Empty directory while Claude changed existing files"
}

/** The facts known when a run is approved; the reviewer is added when the report is written. */
export interface ComparabilityFacts {
  readonly beginning: BeginningState
  readonly baseline_commit: string | null
  readonly carried_forward_files: ReadonlyArray<string>
  /** Files that existed before the session and that Claude modified (non-git beginnings). */
  readonly existing_files_changed: ReadonlyArray<string>
  readonly capability_gaps: ReadonlyArray<{ readonly name: string; readonly title: string; readonly status: string; readonly guidance: string }>
  readonly claude_final_response_missing: boolean
  /** The thread's repository was pointed at its current place (`--repo`): where it was recorded, where it was replayed from. */
  readonly relocated_repository?: { readonly recorded: string | null; readonly used: string }
}

export interface Comparability extends ComparabilityFacts {
  readonly like_for_like: boolean
  readonly beginning_label: string
  readonly reviewer_model: string | null
  readonly implementer_model: string | null
  readonly self_review: boolean
  /** One sentence per reason the comparison is not like-for-like; empty when it is. */
  readonly concerns: ReadonlyArray<string>
  /** One sentence per output of either side cut at its ceiling (also among the concerns). */
  readonly output_truncated: ReadonlyArray<string>
}

export const NOT_LIKE_FOR_LIKE = "not like-for-like"

export interface BeginningInput {
  readonly beginning_kind: "git" | "non_git"
  readonly baseline_commit: string | null
  readonly carried_forward_files: ReadonlyArray<string>
  readonly existing_files_changed: ReadonlyArray<string>
  readonly relocated_repository?: { readonly recorded: string | null; readonly used: string } | undefined
}

export const beginningState = (input: BeginningInput): BeginningState =>
  input.beginning_kind === "non_git" && input.existing_files_changed.length > 0
    ? "empty_with_existing_changes"
    : input.carried_forward_files.length > 0
    ? "carried_forward"
    : input.beginning_kind === "git"
    ? "same_commit"
    : "empty_created_only"

export const comparabilityFacts = (
  input: BeginningInput,
  capabilities: ReadonlyArray<Capability>,
  claudeFinalResponse: string
): ComparabilityFacts => ({
  beginning: beginningState(input),
  baseline_commit: input.baseline_commit,
  carried_forward_files: input.carried_forward_files,
  existing_files_changed: input.existing_files_changed,
  capability_gaps: capabilities
    .filter((capability) => capability.status !== "available")
    .map(({ guidance, name, status, title }) => ({ name, title, status, guidance })),
  claude_final_response_missing: claudeFinalResponse.trim() === "",
  ...(input.relocated_repository === undefined ? {} : { relocated_repository: input.relocated_repository })
})

const plural = (count: number, one: string) => `${count} ${one}${count === 1 ? "" : "s"}`

const concernsOf = (facts: ComparabilityFacts, selfReview: boolean, reviewer: string | null) => [
  ...(facts.beginning === "empty_with_existing_changes"
    ? [
      `The replay started from an empty directory, while Claude changed ${
        plural(facts.existing_files_changed.length, "file")
      } that already existed (${facts.existing_files_changed.join(", ")}).`
    ]
    : []),
  ...facts.capability_gaps.map((gap) => `Capability gap: ${gap.title} (${gap.status === "partial" ? "partial" : "not available"}).`),
  ...(selfReview ? [`Self-review: the reviewer (${reviewer}) is the model that implemented the replay.`] : []),
  ...(facts.claude_final_response_missing ? ["Claude's final response is missing, so its reporting was judged on nothing."] : [])
]

/** The comparability panel of a report (README.md#comparability, comparability): the start-time facts plus the reviewer. */
export const comparabilityOf = (
  facts: ComparabilityFacts,
  reviewerModel: string | null,
  implementerModel: string | null,
  outputTruncated: ReadonlyArray<string> = []
): Comparability => {
  const selfReview = reviewerModel !== null && reviewerModel === implementerModel
  const concerns = [...concernsOf(facts, selfReview, reviewerModel), ...outputTruncated]
  return {
    ...facts,
    like_for_like: concerns.length === 0,
    beginning_label: BEGINNING_LABELS[facts.beginning],
    reviewer_model: reviewerModel,
    implementer_model: implementerModel,
    self_review: selfReview,
    concerns,
    output_truncated: outputTruncated
  }
}
