import * as path from "node:path"
import type { FileOperation } from "./changes.js"
import type { RequestTurn } from "./request.js"

const PROMPT_EXCERPT = 200

/**
 * A place where a long thread can be split: a human prompt. A chunk runs from one split point
 * (`range_start`, its message id) through the work before a later one; the split point lists what
 * Claude changed between this prompt and the next, so a person can see what each chunk did.
 */
export interface SplitPoint {
  /** 1-based, in the order of the thread. */
  readonly index: number
  /** The prompt's message id: a chunk's `range_start` (or `range_end`, for the last prompt of a chunk). */
  readonly message_id: string
  readonly timestamp: string
  /** The prompt's first line, at most 200 characters. */
  readonly prompt: string
  /** Files Claude changed after this prompt and before the next one (project-relative when inside it), sorted. */
  readonly files_touched: ReadonlyArray<string>
}

const excerpt = (text: string) => {
  const line = text.trim().split("\n")[0]!.trim()
  return line.length > PROMPT_EXCERPT ? `${line.slice(0, PROMPT_EXCERPT - 1)}…` : line
}

const displayPath = (projectDir: string | null, absolutePath: string) => {
  if (projectDir === null) return absolutePath
  const relative = path.posix.relative(projectDir, absolutePath)
  return relative.startsWith("..") || path.posix.isAbsolute(relative) ? absolutePath : relative
}

/**
 * The split points of a thread: its live human prompts that carry a message id and a time, in
 * order, each with the files changed (successful, not on an abandoned branch) until the next
 * prompt. A thread of fewer than two such prompts has none: there is nothing to split.
 */
export const splitPoints = (
  turns: ReadonlyArray<RequestTurn>,
  operations: ReadonlyArray<FileOperation>,
  projectDir: string | null
): ReadonlyArray<SplitPoint> => {
  const prompts = turns.flatMap((turn) => {
    const time = turn.timestamp === null ? Number.NaN : Date.parse(turn.timestamp)
    return turn.kind === "prompt" && !turn.abandoned && turn.uuid !== null && turn.timestamp !== null && Number.isFinite(time)
      ? [{ turn, time, uuid: turn.uuid, timestamp: turn.timestamp }]
      : []
  }).sort((left, right) => left.time - right.time)
  if (prompts.length < 2) return []
  const live = operations.filter((operation) => !operation.failed && !operation.abandoned)
  return prompts.map((prompt, index) => {
    const until = prompts[index + 1]?.time ?? Number.POSITIVE_INFINITY
    const touched = live.filter((operation) => operation.time >= prompt.time && operation.time < until)
      .map((operation) => displayPath(projectDir, operation.absolutePath))
    return {
      index: index + 1,
      message_id: prompt.uuid,
      timestamp: prompt.timestamp,
      prompt: excerpt(prompt.turn.text),
      files_touched: [...new Set(touched)].sort()
    }
  })
}

/** What a chunk of a thread asks, and what it starts from. */
export interface ChunkSelection {
  readonly range_start: string
  readonly range_end: string
  /** The split points of the chunk (first and last, 1-based). */
  readonly first_index: number
  readonly last_index: number
  /** The chunk's own prompts, preceded by the earlier chunks' prompts as completed background. */
  readonly request: string
  /** Files Claude changed before the chunk: its workspace starts with Claude's version of them. */
  readonly carried_forward_files: ReadonlyArray<string>
}

export const BACKGROUND_HEADING =
  "Completed background from earlier chunks (context only: this work is already done in this workspace; do not redo it):"
export const CHUNK_TASK_HEADING = "Your task now:"

const fullText = (turns: ReadonlyArray<RequestTurn>, point: SplitPoint) =>
  turns.find((turn) => turn.uuid === point.message_id)?.text.trim() ?? point.prompt

const backgroundItem = (turns: ReadonlyArray<RequestTurn>, point: SplitPoint) => {
  const files = point.files_touched.length === 0 ? "" : `\n   Files changed: ${point.files_touched.join(", ")}`
  return `${point.index}. ${fullText(turns, point).replace(/\n/g, "\n   ")}${files}`
}

/** Whether a request already carries the completed background of earlier chunks. */
export const hasBackground = (request: string) => request.trimStart().startsWith(BACKGROUND_HEADING)

/**
 * What Codex is asked for the chunk that begins at split point `firstIndex` (1-based): the chunk's own
 * task, after the earlier chunks' prompts named as completed background (none for the first chunk, and
 * not again for a task that already begins with that background).
 */
export const chunkRequest = (turns: ReadonlyArray<RequestTurn>, points: ReadonlyArray<SplitPoint>, firstIndex: number, task: string) => {
  const earlier = points.slice(0, firstIndex - 1)
  if (earlier.length === 0 || hasBackground(task)) return task
  return `${BACKGROUND_HEADING}\n${earlier.map((point) => backgroundItem(turns, point)).join("\n")}\n\n${CHUNK_TASK_HEADING}\n${task}`
}

/**
 * The chunk from the split point `rangeStart` through the work before the one after `rangeEnd`
 * (both message ids of split points, in order), or the sentence that says why not. Its request is
 * its own prompts; from the second chunk on, the earlier prompts come first, named as completed
 * background that is not to be redone.
 */
export const chunkSelection = (
  turns: ReadonlyArray<RequestTurn>,
  points: ReadonlyArray<SplitPoint>,
  rangeStart: string,
  rangeEnd: string
): { readonly selection: ChunkSelection } | { readonly error: string } => {
  const first = points.findIndex((point) => point.message_id === rangeStart)
  const last = points.findIndex((point) => point.message_id === rangeEnd)
  if (first < 0) return { error: "range_start is not a split point of this thread (see inspect_thread's chunks)." }
  if (last < 0) return { error: "range_end is not a split point of this thread (see inspect_thread's chunks)." }
  if (last < first) return { error: "range_end comes before range_start; a chunk runs forward." }
  const earlier = points.slice(0, first)
  const own = points.slice(first, last + 1).map((point) => fullText(turns, point)).join("\n\n")
  const request = chunkRequest(turns, points, first + 1, own)
  const carried = earlier.flatMap((point) => point.files_touched).filter((file) => !path.posix.isAbsolute(file))
  return {
    selection: {
      range_start: rangeStart,
      range_end: rangeEnd,
      first_index: first + 1,
      last_index: last + 1,
      request,
      carried_forward_files: [...new Set(carried)].sort()
    }
  }
}
