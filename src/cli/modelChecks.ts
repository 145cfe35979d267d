import { Either } from "effect"
import { type ControllerError, invalidArgument } from "../domain/errors.js"
import { MAX_REPLAY_MODELS } from "../domain/product.js"

const MODEL_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$/

/** `--model` (1 to 4 distinct model names) and `--reviewer-model`, as `replay` and `batch` take them. */
export const checkModels = (models: ReadonlyArray<string>, reviewerModel: string | undefined): Either.Either<void, ControllerError> => {
  if (models.length === 0) return Either.left(invalidArgument("Choose at least one Codex model with --model."))
  const invalid = models.find((model) => !MODEL_ID.test(model))
  if (invalid !== undefined) return Either.left(invalidArgument(`Invalid Codex model name: ${JSON.stringify(invalid.slice(0, 100))}.`))
  const repeated = models.find((model, index) => models.indexOf(model) !== index)
  if (repeated !== undefined) return Either.left(invalidArgument(`--model ${repeated} is given more than once.`))
  if (models.length > MAX_REPLAY_MODELS) {
    return Either.left(invalidArgument(`At most ${MAX_REPLAY_MODELS} models can replay one configuration.`))
  }
  if (reviewerModel !== undefined && !MODEL_ID.test(reviewerModel)) {
    return Either.left(invalidArgument(`Invalid reviewer model name: ${JSON.stringify(reviewerModel.slice(0, 100))}.`))
  }
  return Either.void
}
