import { repeatsOf } from "../../domain/repeats.js"
import { type RunConfiguration, sha256 } from "../../domain/runConfig.js"
import type { RepeatLabel } from "../../domain/contracts/index.js"

/** Which repeat a run is of its (thread, model) start; absent for a start of one. */
export interface RepeatPosition {
  readonly index: number
  readonly of: number
}

/** One run a start launches: a model, and which of its repeats. */
export interface LaunchUnit {
  readonly model: string
  readonly repeat: RepeatPosition | undefined
}

/** Every run of a start: each model, `repeats` times (model by model, repeats in order). */
export const launchUnits = (configuration: RunConfiguration): ReadonlyArray<LaunchUnit> => {
  const of = repeatsOf(configuration)
  return configuration.models.flatMap((model) =>
    Array.from({ length: of }, (_, index): LaunchUnit => ({ model, repeat: of === 1 ? undefined : { index: index + 1, of } }))
  )
}

/** The label in a repeat's state: the key its siblings share is the approval, the thread's range and the model. */
export const repeatLabel = (
  prepareTokenHash: string,
  configuration: Pick<RunConfiguration, "thread_id" | "range_start" | "range_end">,
  model: string,
  repeat: RepeatPosition
): RepeatLabel => ({
  index: repeat.index,
  of: repeat.of,
  group: sha256([prepareTokenHash, configuration.thread_id, configuration.range_start ?? "", configuration.range_end ?? "", model].join("\u0000")).slice(0, 24)
})
