import { Effect, Option } from "effect"
import type { TaskCheck } from "../../domain/contracts/index.js"
import { BACKGROUND_HEADING, CHUNK_TASK_HEADING, hasBackground } from "../../domain/history/chunks.js"
import { sourceInRange } from "../../domain/history/taskSource.js"
import { overlapSentence, taskOverlap } from "../../domain/history/taskOverlap.js"
import type { RunConfiguration } from "../../domain/runConfig.js"
import { threadRecordById } from "../threads/threads.js"
import { cachedReconstruction, claimCachedReconstruction, ownTexts, sourceTexts } from "../threads/taskReconstruction.js"

/** A chunk's own task, without the earlier chunks' background it may already carry. */
const ownTask = (request: string) => {
  if (!hasBackground(request)) return request
  const at = request.indexOf(`\n${CHUNK_TASK_HEADING}\n`)
  return at < 0 ? request.slice(BACKGROUND_HEADING.length) : request.slice(at + CHUNK_TASK_HEADING.length + 2)
}

/**
 * What `prepare_run` says of the configuration's prompt before approval: how much it shares with the user's
 * messages in the thread or chunk it replays (taskOverlap.ts), flagged below the threshold, with those
 * messages. None when the thread has no message of the user's to compare (it cannot be checked).
 */
const rangeOf = (configuration: RunConfiguration) =>
  configuration.range_start === null || configuration.range_end === null
    ? undefined
    : { start: configuration.range_start, end: configuration.range_end }

export const taskCheckOf = (configuration: RunConfiguration) =>
  Effect.gen(function*() {
    const record = yield* threadRecordById(configuration.thread_id)
    const range = rangeOf(configuration)
    const source = sourceInRange(record.task_source, record.split_points, range)
    if (source.messages.length === 0) return null
    const task = ownTask(configuration.request)
    const overlap = taskOverlap(task, sourceTexts(source), ownTexts(source))
    // The prompt is a cached reconstruction: the call that wrote it is part of what this run costs.
    const cached = yield* cachedReconstruction(record, range)
    const synthesis = Option.isSome(cached) && cached.value.request.trim() === task.trim() ? cached.value.synthesis : null
    return { overlap, message: overlapSentence(overlap), source_messages: source.messages, synthesis } satisfies typeof TaskCheck.Type
  })

/** What the run's report keeps of the task's source; a thread that cannot be read again keeps none, and the run still starts. */
export const reportTaskSource = (configuration: RunConfiguration) =>
  taskCheckOf(configuration).pipe(
    Effect.map((check) => (check === null ? null : { messages: check.source_messages, overlap: check.overlap, synthesis: check.synthesis })),
    Effect.orElseSucceed(() => null)
  )

/**
 * Whether run `runId` is charged the cached reconstruction that wrote its prompt: only the first run ever to
 * claim it (taskReconstruction.ts keeps the claim beside the cache); a later replay of the same prompt is not.
 */
export const claimReconstruction = (configuration: RunConfiguration, runId: string) =>
  Effect.flatMap(threadRecordById(configuration.thread_id), (record) => claimCachedReconstruction(record, rangeOf(configuration), runId)).pipe(
    Effect.orElseSucceed(() => false)
  )
