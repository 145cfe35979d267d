import * as path from "node:path"
import { fileOperations } from "./changes.js"
import type { SplitPoint } from "./chunks.js"
import { isMainChain } from "./entries.js"
import { timestampMillis } from "./json.js"
import { type SessionAnalysis, type ThreadRecord, threadRecord } from "./session.js"

/** The time a chunk covers: from its first prompt up to (not including) the prompt after its last one. */
export interface ChunkWindow {
  readonly start: number
  readonly end: number
}

export const chunkWindow = (points: ReadonlyArray<SplitPoint>, firstIndex: number, lastIndex: number): ChunkWindow => ({
  start: Date.parse(points[firstIndex - 1]!.timestamp),
  end: lastIndex < points.length ? Date.parse(points[lastIndex]!.timestamp) : Number.POSITIVE_INFINITY
})

const inWindow = (window: ChunkWindow) => (time: number | undefined) => time !== undefined && time >= window.start && time < window.end

/**
 * Claude's work inside a chunk, as a thread record: the lines written in the chunk's window give its
 * changed files (from their state when the chunk began), final response, tokens, cost and time. Which
 * lines are on a rewound branch is still decided by the whole conversation.
 */
export const chunkRecord = (analysis: SessionAnalysis, whole: ThreadRecord, window: ChunkWindow): ThreadRecord => {
  const within = inWindow(window)
  const entries = analysis.entries.filter((entry) => within(timestampMillis(entry.raw)))
  const mainChain = analysis.conversation.mainChain.filter((entry) => isMainChain(entry) && within(timestampMillis(entry.raw)))
  const chunk = threadRecord({ ...analysis, entries, conversation: { ...analysis.conversation, mainChain } })
  return {
    ...whole,
    started_at: chunk.started_at,
    ended_at: chunk.ended_at,
    changed_files: chunk.changed_files,
    historical_changed_files: chunk.historical_changed_files,
    checks: chunk.checks,
    final_response: chunk.final_response,
    final_response_status: chunk.final_response_status,
    ended_interrupted: chunk.ended_interrupted,
    ended_with_error: chunk.ended_with_error,
    tokens: chunk.tokens,
    tokens_by_source: chunk.tokens_by_source,
    tokens_by_model: chunk.tokens_by_model,
    cost_usd: chunk.cost_usd,
    cost_by_source: chunk.cost_by_source,
    cost_by_model: chunk.cost_by_model,
    long_context_responses: chunk.long_context_responses,
    copied_responses: chunk.copied_responses,
    unpriced_models: chunk.unpriced_models,
    elapsed: chunk.elapsed,
    claude_model: chunk.claude_model ?? whole.claude_model,
    claude_models: chunk.claude_models
  }
}

/** A file as Claude had left it when a chunk began. */
export interface EarlierFile {
  readonly path: string
  /** Its content then; null when the transcript cannot rebuild it (an edit without the file's text). */
  readonly content: string | null
  /** When Claude last changed it before the chunk (milliseconds). */
  readonly changed_at: number
}

/**
 * The files inside the project that Claude changed before the chunk's window (successful edits off
 * rewound branches), each with its content after Claude's last edit before the chunk, sorted by path.
 */
export const earlierFiles = (analysis: SessionAnalysis, projectDir: string | null, window: ChunkWindow): ReadonlyArray<EarlierFile> => {
  if (projectDir === null) return []
  const last = new Map<string, EarlierFile>()
  for (const operation of fileOperations(analysis.entries, analysis.conversation)) {
    if (operation.failed || operation.abandoned || operation.time >= window.start) continue
    const relative = path.posix.relative(projectDir, operation.absolutePath)
    if (relative === "" || relative.startsWith("..") || path.posix.isAbsolute(relative)) continue
    last.set(relative, { path: relative, content: operation.after ?? null, changed_at: operation.time })
  }
  return [...last.values()].sort((left, right) => left.path.localeCompare(right.path))
}
