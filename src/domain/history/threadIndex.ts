import { isAscii } from "node:buffer"
import { createHash } from "node:crypto"
import * as path from "node:path"
import { indexDirectory } from "../cacheRoot.js"
import { isRecord } from "./json.js"
import type { SessionDigest } from "./reader.js"
import type { ThreadSummary } from "./session.js"

/**
 * The persistent thread index (`<cache>/index/threads-v2.jsonl`): each session's digest, keyed by the main
 * file's path and valid while the fingerprint (path, size and mtime of the session file and of its
 * sub-agent files) is unchanged. A second process answers a listing from it and parses only what changed.
 * It is a cache: an unreadable, corrupt or foreign file is discarded (one warning) and rebuilt, and it
 * never changes an answer.
 *
 * Its first line is a JSON object: the header, each session's fingerprint, first response key and (for a
 * thread) the end time and cost the listing orders by, the resumed sessions and the sub-agent files. Each
 * line after it is one thread's summary, in the order of the sessions, parsed only when the listing shows or
 * searches that thread (a page shows 100 of thousands): a SHA-256 of those lines in the first line vouches
 * for them unparsed, and one that still does not read back as a summary (a writer's fault, or an edit that
 * kept the checksum) has its session read again by the listing.
 *
 * Beside it, a journal (`threads-v2.journal`): one JSON line per listing that changed something, holding only
 * the entries that changed, summaries included (or `null` for one that went). A new session costs a line,
 * not a rewrite of the whole index; once the journal grows past a quarter of the index, the next listing
 * writes the index whole and starts the journal again. Every entry is checked against the files before it
 * is used, so a line written by a process that read an older index can only make an entry stale, never an
 * answer wrong.
 */

/** Bump when a summary's fields or meaning change: an index of another format is rebuilt. */
export const THREAD_INDEX_FORMAT = 2
const KIND = "codex-replay-thread-index" as const

/** A thread's summary as the index keeps it: what the listing orders by at hand, the rest read when first asked for. */
export interface StoredThread {
  readonly ended_at: string | null
  readonly cost_usd: number | null
  /** Undefined when the index's line does not read back as a summary: the session must be read again. */
  readonly summary: () => ThreadSummary | undefined
}

export interface IndexedSession {
  readonly fingerprint: string
  /** The key of the main file's first response (it links a resumed session to its predecessor). */
  readonly firstResponseKey: string | undefined
  /** Undefined when the session holds no human request (not a thread). */
  readonly thread: StoredThread | undefined
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

export const storedThread = (summary: ThreadSummary): StoredThread => ({
  ended_at: summary.ended_at,
  cost_usd: summary.cost_usd,
  summary: () => summary
})

/** A session's entry from its digest (a worker's or the main thread's). */
export const indexedSession = (fingerprint: string, digest: SessionDigest): IndexedSession => ({
  fingerprint,
  firstResponseKey: digest.firstResponseKey,
  thread: digest.summary === undefined ? undefined : storedThread(digest.summary)
})

/**
 * Each stored summary's JSON text, made once when the index is next written; for a summary line of the index
 * as read, how to decode it (it is decoded only if the index is written whole again).
 */
const summaryTexts = new WeakMap<StoredThread, string | (() => string)>()

const summaryText = (thread: StoredThread) => {
  const known = summaryTexts.get(thread)
  if (typeof known === "string") return known
  const text = known === undefined ? asciiJson(thread.summary()) : known()
  summaryTexts.set(thread, text)
  return text
}

/** A summary line of a whole index (`start`..`end` in its bytes), whose checksum held: parsed on the first call. */
const unparsedThread = (ended_at: string | null, cost_usd: number | null, bytes: Buffer, start: number, end: number): StoredThread => {
  const text = () => bytes.toString("utf8", start, end)
  let parsed: ThreadSummary | null | undefined
  const thread: StoredThread = {
    ended_at,
    cost_usd,
    summary: () => (parsed ??= parseSummaryLine(text())) ?? undefined
  }
  summaryTexts.set(thread, text)
  return thread
}

/** The summary of a line, or null for one that is not (the checksum rules out damage, not a writer's fault). */
const parseSummaryLine = (text: string): ThreadSummary | null => {
  try {
    const value: unknown = JSON.parse(text)
    return isSummary(value) ? value : null
  } catch {
    return null
  }
}

export const threadIndexPath = (cacheRoot: string) => path.join(indexDirectory(cacheRoot), `threads-v${THREAD_INDEX_FORMAT}.jsonl`)

/** The files of the formats before this one beside the index at `indexFile`: removed when it is written whole. */
export const olderThreadIndexFiles = (indexFile: string) =>
  ["threads-v1.json", "threads-v1.journal"].map((name) => path.join(path.dirname(indexFile), name))

/** The journal of the index at `indexFile`. */
export const threadIndexJournalPath = (indexFile: string) => indexFile.replace(/\.jsonl$/, ".journal")

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

/** A session in the index file's first line: its summary is the next summary line when `thread` is not null. */
interface SessionRecord {
  readonly fingerprint: string
  readonly firstResponseKey: string | null
  /** The summary's end time and cost. */
  readonly thread: readonly [string | null, number | null] | null
}

export type LoadedIndex =
  | { readonly _tag: "Loaded"; readonly index: ThreadIndex }
  | { readonly _tag: "Missing" }
  | { readonly _tag: "Discarded"; readonly reason: string }

const isSummary = (value: unknown): value is ThreadSummary =>
  isRecord(value) && typeof value.imported_thread_id === "string" && typeof value.title === "string" &&
  typeof value.human_turns === "number" && isRecord(value.tokens) && Array.isArray(value.claude_models)

const isNullableString = (value: unknown): value is string | null => value === null || typeof value === "string"

const isSessionRecord = (entry: unknown): entry is SessionRecord =>
  isRecord(entry) && typeof entry.fingerprint === "string" && isNullableString(entry.firstResponseKey) &&
  (entry.thread === null ||
    (Array.isArray(entry.thread) && entry.thread.length === 2 && isNullableString(entry.thread[0]) &&
      (entry.thread[1] === null || typeof entry.thread[1] === "number")))

const journalSessionEntry = (entry: unknown): IndexedSession | undefined =>
  isRecord(entry) && typeof entry.fingerprint === "string" && isNullableString(entry.firstResponseKey) &&
    (entry.summary === null || isSummary(entry.summary))
    ? {
      fingerprint: entry.fingerprint,
      firstResponseKey: entry.firstResponseKey ?? undefined,
      thread: entry.summary === null ? undefined : storedThread(entry.summary)
    }
    : undefined

const resumedEntry = (entry: unknown): IndexedResumed | undefined =>
  isRecord(entry) && typeof entry.key === "string" && (entry.summary === null || isSummary(entry.summary))
    ? { key: entry.key, summary: entry.summary === null ? undefined : entry.summary as ThreadSummary }
    : undefined

const agentEntry = (entry: unknown): IndexedAgent | undefined =>
  isRecord(entry) && typeof entry.stamp === "string" && isNullableString(entry.sessionId)
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

/** An index file's first line or a journal line, with its header checked; or the reason it cannot be used. */
const parseLine = (text: string, version: string, projectsRoot: string): Record<string, unknown> | string => {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return "it is not valid JSON"
  }
  if (!isRecord(parsed)) return "it is not a thread index"
  return foreignReason(parsed, version, projectsRoot) ?? parsed
}

/** The resumed and agent sections of a parsed line into `index`; false when an entry is malformed. */
const readSmallSections = (parsed: Record<string, unknown>, index: MutableIndex, removable: boolean) =>
  readSection(parsed.resumed as Record<string, unknown>, index.resumed, resumedEntry, removable) &&
  readSection(parsed.agents as Record<string, unknown>, index.agents, agentEntry, removable)

const checksumOf = (summaryLines: Buffer) => createHash("sha256").update(summaryLines).digest("hex")

const NEWLINE = 0x0a

/**
 * The sessions of the index file's first line, each thread with the next of the summary lines (which start
 * at `at` in `bytes`, one per line, and must all be taken); false when they do not pair up.
 */
const readSessions = (sessions: Record<string, unknown>, bytes: Buffer, at: number, into: Map<string, IndexedSession>) => {
  let next = at
  for (const [key, entry] of Object.entries(sessions)) {
    if (!isSessionRecord(entry)) return false
    let thread: StoredThread | undefined
    if (entry.thread !== null) {
      const end = bytes.indexOf(NEWLINE, next)
      if (end === -1) return false
      thread = unparsedThread(entry.thread[0], entry.thread[1], bytes, next, end)
      next = end + 1
    }
    into.set(key, { fingerprint: entry.fingerprint, firstResponseKey: entry.firstResponseKey ?? undefined, thread })
  }
  return next === bytes.length
}

/**
 * Checks the index file; anything that is not this format, version and history, or not whole, is discarded.
 * Only its first line is decoded here: the summary lines stay bytes until a summary is asked for.
 */
export const parseThreadIndex = (bytes: Buffer, version: string, projectsRoot: string): LoadedIndex => {
  const discarded = (reason: string): LoadedIndex => ({ _tag: "Discarded", reason })
  const firstEnd = bytes.indexOf(NEWLINE)
  const parsed = parseLine(decodeText(bytes.subarray(0, firstEnd === -1 ? bytes.length : firstEnd)), version, projectsRoot)
  if (typeof parsed === "string") return discarded(parsed)
  if (firstEnd === -1 || typeof parsed.summaries !== "string") return discarded("it is incomplete")
  if (checksumOf(bytes.subarray(firstEnd + 1)) !== parsed.summaries) return discarded("its summaries do not match their checksum")
  const index = emptyIndex()
  const whole = readSessions(parsed.sessions as Record<string, unknown>, bytes, firstEnd + 1, index.sessions) &&
    readSmallSections(parsed, index, false)
  return whole ? { _tag: "Loaded", index } : discarded("an entry is malformed")
}

/**
 * The files are written in ASCII, which decodes as Latin-1 by a plain copy (and parses at V8's one-byte pace);
 * anything else (a file written by hand) is read as UTF-8.
 */
export const decodeText = (bytes: Buffer) => bytes.toString(isAscii(bytes) ? "latin1" : "utf8")

/** Reads one journal line into `index`; the reason it cannot be used, if it cannot. */
const readJournalLine = (text: string, index: MutableIndex, version: string, projectsRoot: string) => {
  const parsed = parseLine(text, version, projectsRoot)
  if (typeof parsed === "string") return parsed
  const whole = readSection(parsed.sessions as Record<string, unknown>, index.sessions, journalSessionEntry, true) &&
    readSmallSections(parsed, index, true)
  return whole ? undefined : "an entry is malformed"
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
    const reason = readJournalLine(line, index, version, projectsRoot)
    if (reason !== undefined) return { _tag: "Discarded", reason: `its journal is damaged (${reason})` }
  }
  return { _tag: "Loaded", index, complete: tail === "" }
}

/** The header's members, without the closing brace. */
const headerText = (version: string, projectsRoot: string) =>
  asciiJson({ kind: KIND, format: THREAD_INDEX_FORMAT, version, projects_root: projectsRoot }).slice(0, -1)

const sessionRecord = (entry: IndexedSession): SessionRecord => ({
  fingerprint: entry.fingerprint,
  firstResponseKey: entry.firstResponseKey ?? null,
  thread: entry.thread === undefined ? null : [entry.thread.ended_at, entry.thread.cost_usd]
})
const resumedRecord = (entry: IndexedResumed) => ({ key: entry.key, summary: entry.summary ?? null })
const agentRecord = (entry: IndexedAgent) => ({ stamp: entry.stamp, sessionId: entry.sessionId ?? null })

/**
 * Each entry's member of the index's first line (`"key":{…}`), made once per entry object (entries are
 * replaced, never changed in place). A cold listing makes each new session's, and its summary's, while its
 * workers parse the next ones, and each sub-agent file's during discovery, so that writing the index at the
 * end only joins texts that are ready (2,000 sessions: 2 MB, 70–90 ms to serialise at once).
 */
const memberTexts = new WeakMap<object, { readonly key: string; readonly text: string }>()

const memberText = <V extends object>(key: string, entry: V, record: (entry: V) => unknown) => {
  const known = memberTexts.get(entry)
  if (known?.key === key) return known.text
  const text = `${asciiJson(key)}:${asciiJson(record(entry))}`
  memberTexts.set(entry, { key, text })
  return text
}

const sessionMember = (key: string, entry: IndexedSession) => memberText(key, entry, sessionRecord)
const resumedMember = (key: string, entry: IndexedResumed) => memberText(key, entry, resumedRecord)
const agentMember = (key: string, entry: IndexedAgent) => memberText(key, entry, agentRecord)

/** Serialises a session's entry, under its main file's path, ahead of the index write that will need it. */
export const prepareSessionEntry = (key: string, entry: IndexedSession) => {
  sessionMember(key, entry)
  if (entry.thread !== undefined) summaryText(entry.thread)
}

/** Serialises a sub-agent file's entry ahead of the index write that will need it. */
export const prepareAgentEntry = (key: string, entry: IndexedAgent) => {
  agentMember(key, entry)
}

/** A session of a journal line, its summary inline (a changed entry's summary is at hand). */
const journalSessionMember = (key: string, entry: IndexedSession) =>
  `${asciiJson(key)}:{"fingerprint":${asciiJson(entry.fingerprint)},"firstResponseKey":${
    asciiJson(entry.firstResponseKey ?? null)
  },"summary":${entry.thread === undefined ? "null" : summaryText(entry.thread)}}`

/** A JSON object of the entries (null for one that went), in the map's order. */
const sectionText = <V extends object>(entries: ReadonlyMap<string, V | null>, member: (key: string, entry: V) => string) => {
  const members: Array<string> = []
  for (const [key, entry] of entries) members.push(entry === null ? `${asciiJson(key)}:null` : member(key, entry))
  return `{${members.join(",")}}`
}

const smallSectionsText = (sections: Pick<ThreadIndexChanges, "resumed" | "agents">) =>
  `"resumed":${sectionText(sections.resumed, resumedMember)},"agents":${sectionText(sections.agents, agentMember)}`

/** One journal line (with its newline): the changed entries, null for those that went. */
export const serializeJournalLine = (version: string, projectsRoot: string, changes: ThreadIndexChanges): string =>
  `${headerText(version, projectsRoot)},"sessions":${sectionText(changes.sessions, journalSessionMember)},${
    smallSectionsText(changes)
  }}\n`

const CHECKSUM_CHARS = 64

/**
 * The index file's bytes: the first line, then one line per thread's summary. Made in one buffer, each text
 * encoded once: the summary lines' bytes are hashed where they lie. They are ASCII but for a line read from a
 * file written by hand, which keeps its UTF-8; Latin-1 is a plain copy of an ASCII string, where UTF-8 costs
 * 15 ms on 2 MB, twice (for the checksum, then for the write) when both took the text.
 */
export const serializeThreadIndex = (version: string, projectsRoot: string, index: ThreadIndex): Buffer => {
  const summaries: Array<string> = []
  for (const entry of index.sessions.values()) if (entry.thread !== undefined) summaries.push(`${summaryText(entry.thread)}\n`)
  const summaryLines = summaries.join("")
  const before = `${headerText(version, projectsRoot)},"summaries":"`
  const after = `","sessions":${sectionText(index.sessions, sessionMember)},${smallSectionsText(index)}}\n`
  const firstBytes = before.length + CHECKSUM_CHARS + after.length
  const summaryBytes = Buffer.byteLength(summaryLines, "utf8")
  const bytes = Buffer.allocUnsafe(firstBytes + summaryBytes)
  bytes.write(summaryLines, firstBytes, summaryBytes === summaryLines.length ? "latin1" : "utf8")
  bytes.write(`${before}${checksumOf(bytes.subarray(firstBytes))}${after}`, 0, "latin1")
  return bytes
}

/**
 * Titles and paths outside ASCII are written as JSON escapes: a file of ASCII alone is decoded and parsed
 * at Node's fast one-byte pace (about twice as fast as the same text with a few thousand such characters).
 */
const NON_ASCII = /[\u0080-\uffff]/g
const escapeCharacter = (character: string) => `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`
const asciiJson = (value: unknown) => JSON.stringify(value).replace(NON_ASCII, escapeCharacter)
