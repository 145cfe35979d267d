import { isMissing } from "../ioErrors.js"
import type { JsonObject } from "./json.js"
import { LineSplitter, parseEntry } from "./lines.js"
import { isBillableAssistant, responseKey } from "./entries.js"
import { isInertLine, skeletonOf } from "./skeleton.js"
import { makeSummaryBuilder } from "./summary.js"
import type { ThreadSummary } from "./session.js"

/**
 * The importer's streaming summaries over a chunk reader: the ClaudeHistory service reads asynchronously on
 * the main thread, the listing's worker threads synchronously (src/services/platform/transcriptFiles.ts).
 */

export type ChunkSink = (chunk: Buffer) => void
/** Streams a file to its sink chunk by chunk; rejects (or throws) with Node's error, ENOENT for a vanished file. */
export type ChunkReader = (file: string, sink: ChunkSink) => Promise<void> | void


export interface SessionFiles {
  readonly threadId: string
  readonly mainPath: string
  readonly agentPaths: ReadonlyArray<string>
}

/** The listing's line reader: only the lines, and the parts of them, that a summary reads are parsed (see skeleton.ts). */
const entrySplitter = (sink: (raw: JsonObject, line: number) => void) =>
  new LineSplitter((text, line) => {
    if (isInertLine(text)) return
    const raw = parseEntry(skeletonOf(text))
    if (raw !== undefined) sink(raw, line)
  }, () => {})

/** What the listing keeps of one session: its summary and the key that links it to a resumed copy. */
export interface SessionDigest {
  readonly summary: ThreadSummary | undefined
  readonly firstResponseKey: string | undefined
}

/**
 * A session's list summary, streamed line by line (no parsed line outlives its chunk). A sub-agent file
 * that vanished is left out, as in a full parse; a vanished session file rejects with ENOENT. Responses
 * whose key is in `copied` belong to an earlier session and are not counted.
 */
export const digestSession = async (
  files: SessionFiles,
  read: ChunkReader,
  copied?: ReadonlySet<string>
): Promise<SessionDigest> => {
  const builder = makeSummaryBuilder(files.threadId, files.mainPath, copied)
  const main = entrySplitter(builder.main)
  await read(files.mainPath, (chunk) => main.push(chunk))
  main.end()
  for (const agentPath of files.agentPaths) {
    const agent = entrySplitter(builder.agent(agentPath))
    try {
      await read(agentPath, (chunk) => agent.push(chunk))
    } catch (error) {
      if (!isMissing(error)) throw error
      continue
    }
    agent.end()
  }
  return { summary: builder.finish(), firstResponseKey: builder.firstResponseKey() }
}

export const summarizeSession = async (
  files: SessionFiles,
  read: ChunkReader
): Promise<ThreadSummary | undefined> => (await digestSession(files, read)).summary

/** The keys of every response in a session file (a resumed copy of it repeats them). */
export const responseKeysOf = async (file: string, read: ChunkReader): Promise<Set<string>> => {
  const keys = new Set<string>()
  const splitter = entrySplitter((raw, line) => {
    const entry = { raw, line, file, origin: "main" as const }
    if (isBillableAssistant(entry)) keys.add(responseKey(entry))
  })
  await read(file, (chunk) => splitter.push(chunk))
  splitter.end()
  return keys
}
