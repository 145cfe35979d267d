/** `--repeats K` of `replay` and `batch`: each (thread, model) replayed K times, each repeat a run of its own. */
import { Effect, Either } from "effect"
import { MAX_REPEATS, type RepeatOutcomes } from "../domain/contracts/index.js"
import type { CallTool } from "../rpc/client.js"
import { type ControllerError, invalidArgument } from "../domain/errors.js"

export const REPEATS_FLAG_MESSAGE = `--repeats must be a whole number from 1 through ${MAX_REPEATS}.`

/** A whole number from 1 through 5 (the option reads anything else as NaN); absent is once. */
export const checkRepeats = (value: number | undefined): Either.Either<void, ControllerError> =>
  value === undefined || (Number.isInteger(value) && value >= 1 && value <= MAX_REPEATS)
    ? Either.void
    : Either.left(invalidArgument(REPEATS_FLAG_MESSAGE))

/** The configuration (or batch) with the repeats asked for on the command line; once is left out. */
export const withRepeats = (value: number | undefined) => <C extends object>(payload: C): C | (C & { readonly repeats: number }) =>
  value === undefined || value === 1 ? payload : { ...payload, repeats: value }

/** What the approval shows of the repeats `prepare_run` accepted. */
export const repeatsLine = (prepared: { readonly repeats?: number | undefined }): ReadonlyArray<string> =>
  (prepared.repeats ?? 1) > 1 ? [`Repeats:    each model ${prepared.repeats} times from the same start (each repeat a run)`] : []

/**
 * The repeats of each model of a finished start, as `get_run` answers them now (one per model that was
 * repeated); a run the controller cannot answer for is left out.
 */
export const repeatsOfStart = (call: CallTool, runs: ReadonlyArray<{ readonly runId: string; readonly model: string }>) =>
  Effect.map(
    Effect.forEach(
      [...new Map(runs.map((run) => [run.model, run.runId])).values()],
      (runId) => Effect.orElseSucceed(Effect.map(call("get_run", { run_id: runId }), (answer) => answer.repeats), () => undefined)
    ),
    (answers): ReadonlyArray<RepeatOutcomes> => answers.flatMap((answer) => (answer === undefined ? [] : [answer]))
  )
