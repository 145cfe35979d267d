import { Either } from "effect"
import { type ControllerError, invalidArgument } from "./errors.js"
import type { ModelOption } from "./history/models.js"

/**
 * The neutral reviewer among the models Codex offers: Codex's default model when it implements none of
 * the runs, else the first offered model, in Codex's list order, that implements none of them; when
 * every offered model is an implementer, Codex's default model (a self-review). `undefined` when Codex
 * offers no model.
 */
export const neutralReviewer = (options: ReadonlyArray<ModelOption>, implementers: ReadonlyArray<string>): string | undefined => {
  const fallback = options.find((option) => option.default === true) ?? options[0]
  if (fallback === undefined) return undefined
  if (!implementers.includes(fallback.id)) return fallback.id
  return options.find((option) => !implementers.includes(option.id))?.id ?? fallback.id
}

/**
 * The model that reviews a run (docs/verdicts.md "Reviewer"): the configuration's `reviewer_model`, else the
 * controller's (`CODEX_REPLAY_REVIEWER_MODEL`), else the neutral reviewer (`neutralReviewer`) for the
 * run's implementers (for a batch, all of the batch's models). Always one Codex offers; otherwise one
 * sentence saying which setting names what.
 */
export const reviewerFor = (
  requested: string | null,
  controllerReviewer: string | undefined,
  options: ReadonlyArray<ModelOption>,
  implementers: ReadonlyArray<string>
): Either.Either<string, ControllerError> => {
  const offered = options.map((option) => option.id)
  const choices = offered.join(", ") || "(none available)"
  if (requested !== null) {
    return offered.includes(requested)
      ? Either.right(requested)
      : Either.left(invalidArgument(`Unknown reviewer model (reviewer_model): ${requested}. Choose one of: ${choices}.`))
  }
  if (controllerReviewer !== undefined) {
    return offered.includes(controllerReviewer)
      ? Either.right(controllerReviewer)
      : Either.left(invalidArgument(`CODEX_REPLAY_REVIEWER_MODEL names ${controllerReviewer}, which Codex does not offer; choose one of: ${choices}.`))
  }
  const neutral = neutralReviewer(options, implementers)
  return neutral === undefined
    ? Either.left(invalidArgument("Codex offers no model to review with; set reviewer_model."))
    : Either.right(neutral)
}

/** The implementers a reviewer judges its own work for: a self-review for each. */
export const selfReviewModels = (reviewer: string, implementers: ReadonlyArray<string>) =>
  implementers.filter((model) => model === reviewer)
