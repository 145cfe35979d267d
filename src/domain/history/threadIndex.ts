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
 *
 * Beside it, a journal (`threads-v1.journal`): one JSON line per listing that changed something, holding only
 * the entries that changed (or `null` for one that went). A new session costs a line, not a rewrite of the
 * whole index; once the journal grows past a quarter of the index, the next listing writes the index whole
 * and starts the journal again. Every entry is checked against the files before it is used, so a line
 * written by a process that read an older index can only make an entry stale, never an answer wrong.
 */

/** Bump when a summary's fields or meaning change: an index of another format is rebuilt. */
export const THREAD_INDEX_FORMAT = 1
const KIND = "codex-replay-thread-index" as const

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

/** The journal of the index at `indexFile`. */
export const threadIndexJournalPath = (indexFile: string) => indexFile.replace(/\.json$/, ".journal")

/** What changed since the index was last written: each changed key's entry, or null for one that went. */
export interface ThreadIndexChanges {
  readonly sessions: ReadonlyMap<string, IndexedSession | null>
  readonly resumed: ReadonlyMap<string, IndexedResumed | null>
  readonly agents: ReadonlyMap<string, IndexedAgent | null>
}

/** The entries of `current` that are not (the same object) in `written`, and the keys `written` has and it lacks. */
const changedEntries = <V>(written: ReadonlyMap<string, V>, current: ReadonlyMap<string, V>) => {
  const changes = new Map<string, V | null>()
  for (const [key, value] of current) if (written.get(key) !== value) changes.set(key, value)
  for (const key of written.keys()) if (!current.has(key)) changes.set(key, null)
  return changes
}

/** The changes from the index as written to the index in memory (entries are replaced, never changed in place). */
export const indexChanges = (written: ThreadIndex, current: ThreadIndex): ThreadIndexChanges => ({
  sessions: changedEntries(written.sessions, current.sessions),
  resumed: changedEntries(written.resumed, current.resumed),
  agents: changedEntries(written.agents, current.agents)
})

export const hasChanges = (changes: ThreadIndexChanges) =>
  changes.sessions.size + changes.resumed.size + changes.agents.size > 0

/** An index being read: the index file's entries, then each journal line's. */
interface MutableIndex {
  readonly sessions: Map<string, IndexedSession>
  readonly resumed: Map<string, IndexedResumed>
  readonly agents: Map<string, IndexedAgent>
}

/** A copy of the index's maps: what was written, to compare the next listing's index with. */
export const snapshotIndex = (index: ThreadIndex): MutableIndex => ({
  sessions: new Map(index.sessions),
  resumed: new Map(index.resumed),
  agents: new Map(index.agents)
})

export const emptyIndex = (): MutableIndex => ({ sessions: new Map(), resumed: new Map(), agents: new Map() })

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

const sessionEntry = (entry: unknown): IndexedSession | undefined =>
  isRecord(entry) && typeof entry.fingerprint === "string" && isDigest(entry.digest)
    ? { fingerprint: entry.fingerprint, digest: entry.digest }
    : undefined

const resumedEntry = (entry: unknown): IndexedResumed | undefined =>
  isRecord(entry) && typeof entry.key === "string" && (entry.summary === null || isSummary(entry.summary))
    ? { key: entry.key, summary: entry.summary === null ? undefined : entry.summary as ThreadSummary }
    : undefined

const agentEntry = (entry: unknown): IndexedAgent | undefined =>
  isRecord(entry) && typeof entry.stamp === "string" && (entry.sessionId === null || typeof entry.sessionId === "string")
    ? { stamp: entry.stamp, sessionId: entry.sessionId ?? undefined }
    : undefined

/**
 * Reads one section's entries into `into`; a journal (`removable`) may name an entry null, which removes it.
 * False when an entry is malformed.
 */
const readSection = <V>(
  section: Record<string, unknown>,
  into: Map<string, V>,
  entryOf: (entry: unknown) => V | undefined,
  removable: boolean
) => {
  for (const [key, entry] of Object.entries(section)) {
    if (entry === null && removable) {
      into.delete(key)
      continue
    }
    const value = entryOf(entry)
    if (value === undefined) return false
    into.set(key, value)
  }
  return true
}

/** The header every index file and journal line carries: anything of another format, version or history is discarded. */
const foreignReason = (parsed: Record<string, unknown>, version: string, projectsRoot: string) => {
  if (parsed.kind !== KIND) return "it is not a thread index"
  if (parsed.format !== THREAD_INDEX_FORMAT || parsed.version !== version) return "it was written by another version"
  if (parsed.projects_root !== projectsRoot) return "it indexes another Claude history"
  if (!isRecord(parsed.sessions) || !isRecord(parsed.resumed) || !isRecord(parsed.agents)) return "it is incomplete"
  return undefined
}

/** Reads one index file or journal line into `index`; the reason it cannot be used, if it cannot. */
const readInto = (text: string, index: MutableIndex, version: string, projectsRoot: string, journal: boolean) => {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return "it is not valid JSON"
  }
  if (!isRecord(parsed)) return "it is not a thread index"
  const foreign = foreignReason(parsed, version, projectsRoot)
  if (foreign !== undefined) return foreign
  const whole = readSection(parsed.sessions as Record<string, unknown>, index.sessions, sessionEntry, journal) &&
    readSection(parsed.resumed as Record<string, unknown>, index.resumed, resumedEntry, journal) &&
    readSection(parsed.agents as Record<string, unknown>, index.agents, agentEntry, journal)
  return whole ? undefined : "an entry is malformed"
}

/** Checks the index file's text; anything that is not this format, version and history is discarded. */
export const parseThreadIndex = (text: string, version: string, projectsRoot: string): LoadedIndex => {
  const index = emptyIndex()
  const reason = readInto(text, index, version, projectsRoot, false)
  return reason === undefined ? { _tag: "Loaded", index } : { _tag: "Discarded", reason }
}

/**
 * Applies the journal's lines to a loaded index, in order. A last line without its newline is a write
 * that was cut off (the process died): it is left out, and `complete` is false so the next write starts
 * the journal again rather than append after it. Any other bad line discards the index.
 */
export const applyJournal = (
  loaded: ThreadIndex,
  journal: string,
  version: string,
  projectsRoot: string
): { readonly _tag: "Loaded"; readonly index: ThreadIndex; readonly complete: boolean } | { readonly _tag: "Discarded"; readonly reason: string } => {
  if (journal === "") return { _tag: "Loaded", index: loaded, complete: true }
  const index = snapshotIndex(loaded)
  const lines = journal.split("\n")
  const tail = lines.pop()!
  for (const line of lines) {
    const reason = readInto(line, index, version, projectsRoot, true)
    if (reason !== undefined) return { _tag: "Discarded", reason: `its journal is damaged (${reason})` }
  }
  return { _tag: "Loaded", index, complete: tail === "" }
}

const header = (version: string, projectsRoot: string) => ({
  kind: KIND,
  format: THREAD_INDEX_FORMAT,
  version,
  projects_root: projectsRoot
})

const sessionRecord = (entry: IndexedSession): IndexFile["sessions"][string] => ({
  fingerprint: entry.fingerprint,
  digest: entry.digest
})
const resumedRecord = (entry: IndexedResumed): IndexFile["resumed"][string] => ({
  key: entry.key,
  summary: entry.summary ?? null
})
const agentRecord = (entry: IndexedAgent): IndexFile["agents"][string] => ({
  stamp: entry.stamp,
  sessionId: entry.sessionId ?? null
})

/**
 * Each entry's JSON text, made once per entry object (entries are replaced, never changed in place). A cold
 * listing makes each new session's while its workers parse the next ones, so that writing the index at the end
 * only joins texts that are ready (2,000 sessions: 2 MB, 70–90 ms to serialise at once).
 */
const entryTexts = new WeakMap<object, string>()

const entryText = <V extends object>(entry: V, record: (entry: V) => unknown) => {
  let text = entryTexts.get(entry)
  if (text === undefined) {
    text = asciiJson(record(entry))
    entryTexts.set(entry, text)
  }
  return text
}

/** Serialises a session's entry ahead of the index write that will need it. */
export const prepareSessionEntry = (entry: IndexedSession) => void entryText(entry, sessionRecord)

/** A JSON object of the entries (null for one that went), in the map's order. */
const sectionText = <V extends object>(entries: ReadonlyMap<string, V | null>, record: (entry: V) => unknown) => {
  const members: Array<string> = []
  for (const [key, entry] of entries) members.push(`${asciiJson(key)}:${entry === null ? "null" : entryText(entry, record)}`)
  return `{${members.join(",")}}`
}

/** The header's members, then the three sections: an index file, or a journal line of changes. */
const indexText = (version: string, projectsRoot: string, sections: ThreadIndexChanges) =>
  `${asciiJson(header(version, projectsRoot)).slice(0, -1)},"sessions":${sectionText(sections.sessions, sessionRecord)},` +
  `"resumed":${sectionText(sections.resumed, resumedRecord)},"agents":${sectionText(sections.agents, agentRecord)}}`

/** One journal line (with its newline): the changed entries, null for those that went. */
export const serializeJournalLine = (version: string, projectsRoot: string, changes: ThreadIndexChanges): string =>
  `${indexText(version, projectsRoot, changes)}\n`

/** The index file's text. */
export const serializeThreadIndex = (version: string, projectsRoot: string, index: ThreadIndex): string =>
  indexText(version, projectsRoot, index)

/**
 * Titles and paths outside ASCII are written as JSON escapes: a file of ASCII alone is decoded and parsed
 * at Node's fast one-byte pace (about twice as fast as the same text with a few thousand such characters).
 */
const NON_ASCII = /[\u0080-\uffff]/g
const escapeCharacter = (character: string) => `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`
const asciiJson = (value: unknown) => JSON.stringify(value).replace(NON_ASCII, escapeCharacter)
