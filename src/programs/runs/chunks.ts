import { Effect, Either } from "effect"
import { chunkRequest } from "../../domain/history/chunks.js"
import type { EarlierFile } from "../../domain/history/chunkWork.js"
import type { ThreadRecord } from "../../domain/history/session.js"
import { invalidArgument } from "../../domain/errors.js"
import { isChunk, type RunConfiguration } from "../../domain/runConfig.js"
import { excerpt } from "../../domain/toolResult.js"
import { ClaudeHistory } from "../../services/history/ClaudeHistory.js"
import type { CarriedContent } from "../../services/Workspace.js"
import { chunkOffer } from "../threads/threads.js"

/** What prepare_run answers and a chunk's run state records about where the chunk starts. */
export interface ChunkFacts {
  readonly range_start: string
  readonly range_end: string
  /** The chunk's split points (1-based, inclusive). */
  readonly first_index: number
  readonly last_index: number
  /** Claude's files from earlier chunks written into the workspace, as Claude had left them. */
  readonly carried_forward_files: ReadonlyArray<string>
  /** Files Claude changed in earlier chunks that are not carried in, each with the reason. */
  readonly excluded_files: ReadonlyArray<string>
  readonly excluded_reasons: Readonly<Record<string, string>>
  /** Files Claude changed in earlier chunks that the starting commit already holds (committed at the boundary). */
  readonly in_starting_commit: ReadonlyArray<string>
}

/** A chunk resolved against its thread: what Codex is asked, what it starts from, and Claude's side. */
export interface ChunkPlan {
  readonly facts: ChunkFacts
  readonly request: string
  readonly carried: ReadonlyArray<CarriedContent>
  /** Claude's work inside the chunk only. */
  readonly record: ThreadRecord
}

const EXCLUDED_BY_YOU = "Excluded by the configuration (excluded_files)."
const NOT_CHOSEN = "Not among the configuration's carried_forward_files."
const NOT_REBUILT = "Its content before the chunk cannot be rebuilt from the transcript."

interface Placement {
  readonly carried: Array<CarriedContent>
  readonly excluded: Record<string, string>
  readonly committed: Array<string>
}

/**
 * Where each file Claude changed before the chunk goes: already in the starting commit when Claude last
 * changed it before that commit was made, else carried in unless the configuration leaves it out or
 * the transcript cannot rebuild it.
 */
const placeEarlierFiles = (
  earlier: ReadonlyArray<EarlierFile>,
  configuration: RunConfiguration,
  commitMillis: number | null
): Placement => {
  const placement: Placement = { carried: [], excluded: {}, committed: [] }
  const chosen = configuration.carried_forward_files
  for (const file of earlier) {
    if (commitMillis !== null && file.changed_at <= commitMillis) placement.committed.push(file.path)
    else if (configuration.excluded_files.includes(file.path)) placement.excluded[file.path] = EXCLUDED_BY_YOU
    else if (chosen.length > 0 && !chosen.includes(file.path)) placement.excluded[file.path] = NOT_CHOSEN
    else if (file.content === null) placement.excluded[file.path] = NOT_REBUILT
    else placement.carried.push({ path: file.path, content: file.content })
  }
  return placement
}

/**
 * The chunk a configuration names (`range_start`/`range_end`), or none for a whole-thread replay.
 * `commitSeconds` is the starting commit's time for a Git beginning: Claude's earlier files it
 * already holds are not carried again. A packaged sample, an id that is not a split point, an end
 * before the start or a carried file Claude did not change before the chunk is refused in one sentence.
 */
export const resolveChunk = Effect.fn("chunks.resolveChunk")(function*(
  configuration: RunConfiguration,
  record: ThreadRecord,
  commitSeconds: number | null
) {
  if (!isChunk(configuration) || configuration.range_start === null || configuration.range_end === null) return null
  const offer = yield* Either.match(chunkOffer(record, { start: configuration.range_start, end: configuration.range_end }), {
    onLeft: Effect.fail,
    onRight: Effect.succeed
  })
  const selection = offer.selected!
  const chunk = yield* (yield* ClaudeHistory).inspectChunk(configuration.thread_id, selection.first_index, selection.last_index)
  const known = new Set(chunk.earlier.map((file) => file.path))
  const unknown = configuration.carried_forward_files.filter((file) => !known.has(file))
  if (unknown.length > 0) {
    return yield* invalidArgument(
      `carried_forward_files names ${unknown.map(excerpt).join(", ")}, which Claude did not change before this chunk.`
    )
  }
  const placement = placeEarlierFiles(chunk.earlier, configuration, commitSeconds === null ? null : commitSeconds * 1000)
  return {
    facts: {
      range_start: selection.range_start,
      range_end: selection.range_end,
      first_index: selection.first_index,
      last_index: selection.last_index,
      carried_forward_files: placement.carried.map((file) => file.path),
      excluded_files: Object.keys(placement.excluded),
      excluded_reasons: placement.excluded,
      in_starting_commit: placement.committed
    },
    request: chunkRequest(record.request_turns, record.split_points, selection.first_index, configuration.request),
    carried: placement.carried,
    record: chunk.record
  } satisfies ChunkPlan
})
