import { randomBytes } from "node:crypto"
import {
  appendFileSync,
  closeSync,
  fstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  writeFileSync
} from "node:fs"
import * as path from "node:path"
import {
  applyJournal,
  decodeText,
  olderThreadIndexFiles,
  type LoadedIndex,
  parseThreadIndex,
  serializeJournalLine,
  serializeThreadIndex,
  type ThreadIndex,
  type ThreadIndexChanges,
  threadIndexJournalPath
} from "../../domain/history/threadIndex.js"
import { describeError, isMissing } from "../../domain/ioErrors.js"

/** What the next write needs to know of the files: how long the journal and the index are, and whether a line may follow. */
export interface JournalState {
  readonly bytes: number
  readonly indexBytes: number
  readonly appendable: boolean
}

export type LoadedIndexFile =
  | Exclude<LoadedIndex, { readonly _tag: "Loaded" }>
  | { readonly _tag: "Loaded"; readonly index: ThreadIndex; readonly journal: JournalState }

/** Below this the journal is appended to whatever the index's size (a small history's index is small). */
const MIN_JOURNAL_BYTES = 64 * 1024

/**
 * One synchronous read (a couple of milliseconds even for thousands of sessions): the promise API reads it in
 * chunks through the thread pool, several times slower.
 */

/**
 * Reads and checks the persistent thread index and applies its journal; a missing index is `Missing` (its
 * journal alone means nothing), an unreadable or damaged one `Discarded`.
 */
export const loadThreadIndex = async (file: string, version: string, projectsRoot: string): Promise<LoadedIndexFile> => {
  let bytes: Buffer
  try {
    bytes = readFileSync(file)
  } catch (error) {
    if (isMissing(error)) return { _tag: "Missing" }
    return { _tag: "Discarded", reason: `it cannot be read (${describeError(error)})` }
  }
  const base = parseThreadIndex(bytes, version, projectsRoot)
  if (base._tag !== "Loaded") return base
  let journal = ""
  try {
    journal = decodeText(readFileSync(threadIndexJournalPath(file)))
  } catch (error) {
    if (!isMissing(error)) return { _tag: "Discarded", reason: `its journal cannot be read (${describeError(error)})` }
  }
  const applied = applyJournal(base.index, journal, version, projectsRoot)
  if (applied._tag === "Discarded") return applied
  // The journal is written in ASCII alone (threadIndex.ts), so its length is its size.
  return { _tag: "Loaded", index: applied.index, journal: { bytes: journal.length, indexBytes: bytes.length, appendable: applied.complete } }
}

/**
 * Whether a line appended now would start a line of its own: the journal is missing, empty, or ends with a
 * newline. A line cut off by a dying process (seen by this process or not) makes the next write whole.
 */
const endsWithWholeLine = (journalFile: string) => {
  let descriptor: number
  try {
    descriptor = openSync(journalFile, "r")
  } catch (error) {
    if (isMissing(error)) return true
    throw error
  }
  try {
    const { size } = fstatSync(descriptor)
    if (size === 0) return true
    const last = Buffer.alloc(1)
    readSync(descriptor, last, 0, 1, size - 1)
    return last[0] === 0x0a
  } finally {
    closeSync(descriptor)
  }
}

/**
 * Records what changed since the files were last read or written: one line appended to the journal while
 * the journal stays under a quarter of the index (`changes` and `journal` known), else the index written
 * whole and the journal removed. Returns the journal's state for the next write.
 *
 * The index is written atomically: a private temporary file with a unique name, then a rename, so that two
 * processes writing at once leave one whole index (the last rename wins) and a reader never sees half. A
 * line is one appending write, made only after a whole line; a line another process appends while the
 * index is rewritten may be lost, which costs only a parse later.
 *
 * Synchronous, as the read is: 2 MB reach the page cache in a few milliseconds, where the promise API's
 * thread-pool round trips (a chunked write, a rename, three removals) kept the end of a cold listing waiting.
 */
export const saveThreadIndex = (
  file: string,
  version: string,
  projectsRoot: string,
  index: ThreadIndex,
  changes?: ThreadIndexChanges,
  journal?: JournalState
): JournalState => {
  const journalFile = threadIndexJournalPath(file)
  if (changes !== undefined && journal?.appendable === true) {
    const line = serializeJournalLine(version, projectsRoot, changes)
    const bytes = journal.bytes + line.length
    if (bytes <= Math.max(MIN_JOURNAL_BYTES, journal.indexBytes / 4) && endsWithWholeLine(journalFile)) {
      appendFileSync(journalFile, line, { mode: 0o600 })
      return { ...journal, bytes }
    }
  }
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 })
  const content = serializeThreadIndex(version, projectsRoot, index)
  const temporary = `${file}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`
  try {
    writeFileSync(temporary, content, { mode: 0o600, flag: "wx" })
    renameSync(temporary, file)
  } catch (error) {
    rmSync(temporary, { force: true })
    throw error
  }
  for (const stale of [journalFile, ...olderThreadIndexFiles(file)]) rmSync(stale, { force: true })
  return { bytes: 0, indexBytes: content.length, appendable: true }
}
