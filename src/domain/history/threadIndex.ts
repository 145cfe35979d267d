import { Schema } from "effect"
import * as path from "node:path"
import { indexDirectory } from "../cacheRoot.js"
import { isRecord } from "./json.js"
import type { SessionDigest } from "./reader.js"
import type { ThreadSummary } from "./session.js"

/**
 * The persistent thread index (`<cache>/index/threads-v3.json`, docs/history.md): each session's digest,
 * keyed by the main file's path and valid while the fingerprint (size and mtime of the session file and of
 * its sub-agent files) is unchanged, the resumed sessions' summaries, and which session each sibling
 * `agent-*.jsonl` belongs to. A second process answers a listing from it and parses only what changed.
 *
 * It is one JSON document, described by `ThreadIndexFile` below and written whole and atomically after a
 * listing that changed something. It is a cache: a file that does not decode, or of another format,
 * version or history, is discarded (one warning) and rebuilt, and it never changes an answer.
 */

/** Bump when a summary's fields or meaning change: an index of another format is rebuilt. */
export const THREAD_INDEX_FORMAT = 3
const KIND = "codex-replay-thread-index" as const

export interface IndexedSession {
  readonly fingerprint: string
  /** The key of the main file's first response (it links a resumed session to its predecessor). */
  readonly firstResponseKey: string | undefined
  /** Undefined when the session holds no human request (not a thread). */
  readonly summary: ThreadSummary | undefined
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

export const emptyIndex = (): ThreadIndex => ({ sessions: new Map(), resumed: new Map(), agents: new Map() })

/** A session's entry from its digest (a worker's or the main thread's). */
export const indexedSession = (fingerprint: string, digest: SessionDigest): IndexedSession => ({
  fingerprint,
  firstResponseKey: digest.firstResponseKey,
  summary: digest.summary
})

const isSummary = (value: unknown): value is ThreadSummary =>
  isRecord(value) && typeof value.imported_thread_id === "string" && typeof value.title === "string" &&
  typeof value.human_turns === "number" && isRecord(value.tokens) && Array.isArray(value.claude_models)

/** A summary as the listing made it: checked for the fields every reader relies on, kept as written. */
const Summary = Schema.declare(isSummary, { identifier: "ThreadSummary" })

/*
 * The file's schema is plain structs and records (`null` for an absent value), with no transformation: decoding
 * 2,000 entries through per-entry transforms (maps from records, null to undefined) cost more than reading the
 * file. The maps are built from the decoded records afterwards (`indexOfFile`).
 */
const Session = Schema.Struct({
  fingerprint: Schema.String,
  firstResponseKey: Schema.NullOr(Schema.String),
  summary: Schema.NullOr(Summary)
})

const Resumed = Schema.Struct({ key: Schema.String, summary: Schema.NullOr(Summary) })

const Agent = Schema.Struct({ stamp: Schema.String, sessionId: Schema.NullOr(Schema.String) })

/** The index file: a header (format, version, history) and the three maps, each a JSON object keyed by path. */
export const ThreadIndexFile = Schema.Struct({
  kind: Schema.Literal(KIND),
  format: Schema.Number,
  version: Schema.String,
  projects_root: Schema.String,
  sessions: Schema.Record({ key: Schema.String, value: Session }),
  resumed: Schema.Record({ key: Schema.String, value: Resumed }),
  agents: Schema.Record({ key: Schema.String, value: Agent })
})

export type ThreadIndexFile = typeof ThreadIndexFile.Type

const orNull = <A>(value: A | undefined) => value ?? null
const orUndefined = <A>(value: A | null) => value ?? undefined

/** The file's content for an index of this version over this history. */
export const indexFileOf = (version: string, projectsRoot: string, index: ThreadIndex): ThreadIndexFile => {
  const sessions: Record<string, typeof Session.Type> = {}
  for (const [key, entry] of index.sessions) {
    sessions[key] = { fingerprint: entry.fingerprint, firstResponseKey: orNull(entry.firstResponseKey), summary: orNull(entry.summary) }
  }
  const resumed: Record<string, typeof Resumed.Type> = {}
  for (const [key, entry] of index.resumed) resumed[key] = { key: entry.key, summary: orNull(entry.summary) }
  const agents: Record<string, typeof Agent.Type> = {}
  for (const [key, entry] of index.agents) agents[key] = { stamp: entry.stamp, sessionId: orNull(entry.sessionId) }
  return { kind: KIND, format: THREAD_INDEX_FORMAT, version, projects_root: projectsRoot, sessions, resumed, agents }
}

/** The index in memory from a decoded file. */
export const indexOfFile = (file: ThreadIndexFile): ThreadIndex => ({
  sessions: new Map(Object.entries(file.sessions).map(([key, entry]) => [key, {
    fingerprint: entry.fingerprint,
    firstResponseKey: orUndefined(entry.firstResponseKey),
    summary: orUndefined(entry.summary)
  }])),
  resumed: new Map(Object.entries(file.resumed).map(([key, entry]) => [key, { key: entry.key, summary: orUndefined(entry.summary) }])),
  agents: new Map(Object.entries(file.agents).map(([key, entry]) => [key, { stamp: entry.stamp, sessionId: orUndefined(entry.sessionId) }]))
})

/** Why a decoded file cannot serve this version over this history, if it cannot. */
export const foreignReason = (file: ThreadIndexFile, version: string, projectsRoot: string): string | undefined => {
  if (file.format !== THREAD_INDEX_FORMAT || file.version !== version) return "it was written by another version"
  if (file.projects_root !== projectsRoot) return "it indexes another Claude history"
  return undefined
}

export const threadIndexPath = (cacheRoot: string) => path.join(indexDirectory(cacheRoot), `threads-v${THREAD_INDEX_FORMAT}.json`)

/** The files of the formats before this one beside the index at `indexFile`: removed when it is written. */
export const olderThreadIndexFiles = (indexFile: string) =>
  ["threads-v1.json", "threads-v1.journal", "threads-v2.jsonl", "threads-v2.journal"].map((name) =>
    path.join(path.dirname(indexFile), name)
  )
