import { Either } from "effect"
import { type ControllerError, invalidArgument } from "./errors.js"
import type { ModelOption } from "./history/models.js"

/**
 * The model that reviews a run (docs/verdicts.md "Reviewer"): the configuration's `reviewer_model`, else the
 * controller's (`CODEX_REPLAY_REVIEWER_MODEL`), else the model Codex lists as its default. Always
 * one Codex offers; otherwise one sentence saying which setting names what.
 */
export const reviewerFor = (
  requested: string | null,
  controllerReviewer: string | undefined,
  options: ReadonlyArray<ModelOption>
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
  const fallback = options.find((option) => option.default === true) ?? options[0]
  return fallback === undefined
    ? Either.left(invalidArgument("Codex offers no model to review with; set reviewer_model."))
    : Either.right(fallback.id)
}
