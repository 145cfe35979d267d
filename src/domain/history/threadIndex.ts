import * as path from "node:path"
import { indexDirectory } from "../cacheRoot.js"
import { isRecord } from "./json.js"
import type { SessionDigest } from "./reader.js"
import type { ThreadSummary } from "./session.js"

/**
 * The persistent thread index (`<cache>/index/threads-v1.json`): each session's digest, keyed by the main
 * file's path and valid while the fingerprint (path, size and mtime of the session file and of its
 * sub-agent files) is unchanged. A second process answers a listing from it and parses only what changed.
 * It is a cache: an unreadable, corrupt or foreign file is discarded (one warning) and rebuilt, and it
 * never changes an answer.
 */

/** Bump when a summary's fields or meaning change: an index of another format is rebuilt. */
export const THREAD_INDEX_FORMAT = 1
const KIND = "codex-replay-thread-index"

export interface IndexedSession {
  readonly fingerprint: string
  readonly digest: SessionDigest
}

export interface IndexedResumed {
  readonly key: string
  readonly summary: ThreadSummary | undefined
}

/** Which session a sibling `agent-*.jsonl` belongs to (read from its first line), valid while `stamp` holds. */
export interface IndexedAgent {
  readonly stamp: string
  readonly sessionId: string | undefined
}

export interface ThreadIndex {
  readonly sessions: ReadonlyMap<string, IndexedSession>
  readonly resumed: ReadonlyMap<string, IndexedResumed>
  readonly agents: ReadonlyMap<string, IndexedAgent>
}

export const threadIndexPath = (cacheRoot: string) => path.join(indexDirectory(cacheRoot), `threads-v${THREAD_INDEX_FORMAT}.json`)

interface IndexFile {
  readonly kind: typeof KIND
  readonly format: number
  /** The program version that wrote it: another version's summaries may differ, so they are rebuilt. */
  readonly version: string
  readonly projects_root: string
  readonly sessions: Record<string, { readonly fingerprint: string; readonly digest: SessionDigest }>
  readonly resumed: Record<string, { readonly key: string; readonly summary: ThreadSummary | null }>
  readonly agents: Record<string, { readonly stamp: string; readonly sessionId: string | null }>
}

export type LoadedIndex =
  | { readonly _tag: "Loaded"; readonly index: ThreadIndex }
  | { readonly _tag: "Missing" }
  | { readonly _tag: "Discarded"; readonly reason: string }

const isDigest = (value: unknown): value is SessionDigest =>
  isRecord(value) &&
  (value.firstResponseKey === undefined || typeof value.firstResponseKey === "string") &&
  (value.summary === undefined || isSummary(value.summary))

const isSummary = (value: unknown): value is ThreadSummary =>
  isRecord(value) && typeof value.imported_thread_id === "string" && typeof value.title === "string" &&
  typeof value.human_turns === "number" && isRecord(value.tokens) && Array.isArray(value.claude_models)

/** Checks the index file's text; anything that is not this format, version and history is discarded. */
export const parseThreadIndex = (text: string, version: string, projectsRoot: string): LoadedIndex => {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return { _tag: "Discarded", reason: "it is not valid JSON" }
  }
  if (!isRecord(parsed) || parsed.kind !== KIND) return { _tag: "Discarded", reason: "it is not a thread index" }
  if (parsed.format !== THREAD_INDEX_FORMAT || parsed.version !== version) {
    return { _tag: "Discarded", reason: "it was written by another version" }
  }
  if (parsed.projects_root !== projectsRoot) return { _tag: "Discarded", reason: "it indexes another Claude history" }
  if (!isRecord(parsed.sessions) || !isRecord(parsed.resumed) || !isRecord(parsed.agents)) {
    return { _tag: "Discarded", reason: "it is incomplete" }
  }
  const sessions = new Map<string, IndexedSession>()
  for (const [mainPath, entry] of Object.entries(parsed.sessions)) {
    if (!isRecord(entry) || typeof entry.fingerprint !== "string" || !isDigest(entry.digest)) {
      return { _tag: "Discarded", reason: "an entry is malformed" }
    }
    sessions.set(mainPath, { fingerprint: entry.fingerprint, digest: entry.digest })
  }
  const resumed = new Map<string, IndexedResumed>()
  for (const [mainPath, entry] of Object.entries(parsed.resumed)) {
    if (!isRecord(entry) || typeof entry.key !== "string" || (entry.summary !== null && !isSummary(entry.summary))) {
      return { _tag: "Discarded", reason: "an entry is malformed" }
    }
    resumed.set(mainPath, { key: entry.key, summary: entry.summary === null ? undefined : entry.summary as ThreadSummary })
  }
  const agents = new Map<string, IndexedAgent>()
  for (const [agentPath, entry] of Object.entries(parsed.agents)) {
    if (!isRecord(entry) || typeof entry.stamp !== "string" || (entry.sessionId !== null && typeof entry.sessionId !== "string")) {
      return { _tag: "Discarded", reason: "an entry is malformed" }
    }
    agents.set(agentPath, { stamp: entry.stamp, sessionId: entry.sessionId ?? undefined })
  }
  return { _tag: "Loaded", index: { sessions, resumed, agents } }
}

/** The index file's text. */
export const serializeThreadIndex = (version: string, projectsRoot: string, index: ThreadIndex): string => {
  const content: IndexFile = {
    kind: KIND,
    format: THREAD_INDEX_FORMAT,
    version,
    projects_root: projectsRoot,
    sessions: Object.fromEntries(index.sessions),
    resumed: Object.fromEntries(
      [...index.resumed].map(([mainPath, entry]) => [mainPath, { key: entry.key, summary: entry.summary ?? null }])
    ),
    agents: Object.fromEntries(
      [...index.agents].map(([agentPath, entry]) => [agentPath, { stamp: entry.stamp, sessionId: entry.sessionId ?? null }])
    )
  }
  return JSON.stringify(content).replace(NON_ASCII, escapeCharacter)
}

/**
 * Titles and paths outside ASCII are written as JSON escapes: a file of ASCII alone is decoded and parsed
 * at Node's fast one-byte pace (about twice as fast as the same text with a few thousand such characters).
 */
const NON_ASCII = /[\u0080-\uffff]/g
const escapeCharacter = (character: string) => `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`
