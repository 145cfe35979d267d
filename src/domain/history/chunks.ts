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
