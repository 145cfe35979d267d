import * as fs from "node:fs"
import * as fsp from "node:fs/promises"
import type { JsonObject } from "./json.js"
import { LineSplitter, makeFileDecoder, type DecodedFile, parseEntry } from "./lines.js"
import { isBillableAssistant, responseKey } from "./entries.js"
import { skeletonOf } from "./skeleton.js"
import { makeSummaryBuilder } from "./summary.js"
import type { ThreadSummary } from "./session.js"

/**
 * The importer's file reading, shared by the ClaudeHistory service (asynchronous, on the main thread) and
 * the listing's worker threads (synchronous: a worker has nothing else to do while it reads).
 */

export const READ_CHUNK_BYTES = 1024 * 1024

export const isMissing = (error: unknown) =>
  typeof error === "object" && error !== null && (error as { code?: unknown }).code === "ENOENT"

type ChunkSink = (chunk: Buffer) => void

/**
 * Read buffers are reused: a fresh megabyte per file costs hundreds of page faults (most of a listing's
 * system time). A handful covers the service's concurrent reads.
 */
const spareBuffers: Array<Buffer> = []
const MAX_SPARE_BUFFERS = 8

/** Streams a file to `sink` chunk by chunk; memory is bounded by the chunk size (the sink copies what it keeps). */
export const readChunks = async (file: string, sink: ChunkSink): Promise<void> => {
  const handle = await fsp.open(file, "r")
  const buffer = spareBuffers.pop() ?? Buffer.allocUnsafe(READ_CHUNK_BYTES)
  try {
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null)
      if (bytesRead === 0) break
      sink(buffer.subarray(0, bytesRead))
    }
  } finally {
    if (spareBuffers.length < MAX_SPARE_BUFFERS) spareBuffers.push(buffer)
    await handle.close()
  }
}

let syncBuffer: Buffer | undefined

/** `readChunks` for a worker thread, reusing one buffer. */
export const readChunksSync = (file: string, sink: ChunkSink): void => {
  const buffer = syncBuffer ??= Buffer.allocUnsafe(READ_CHUNK_BYTES)
  const fd = fs.openSync(file, "r")
  try {
    for (;;) {
      const bytesRead = fs.readSync(fd, buffer, 0, buffer.length, null)
      if (bytesRead === 0) break
      sink(buffer.subarray(0, bytesRead))
    }
  } finally {
    fs.closeSync(fd)
  }
}

/** Streams a transcript through the lenient line decoder, keeping every entry (thread records). */
export const readTranscript = async (file: string): Promise<DecodedFile> => {
  const decoder = makeFileDecoder()
  await readChunks(file, decoder.push)
  return decoder.finish()
}

export interface SessionFiles {
  readonly threadId: string
  readonly mainPath: string
  readonly agentPaths: ReadonlyArray<string>
}

/** The listing's line reader: only the part of each line a summary reads is parsed (see skeleton.ts). */
const entrySplitter = (sink: (raw: JsonObject, line: number) => void) =>
  new LineSplitter((text, line) => {
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
  read: (file: string, sink: ChunkSink) => Promise<void> | void = readChunks,
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
  read: (file: string, sink: ChunkSink) => Promise<void> | void = readChunks
): Promise<ThreadSummary | undefined> => (await digestSession(files, read)).summary

/** The keys of every response in a session file (a resumed copy of it repeats them). */
export const responseKeysOf = async (file: string): Promise<Set<string>> => {
  const keys = new Set<string>()
  const splitter = entrySplitter((raw, line) => {
    const entry = { raw, line, file, origin: "main" as const }
    if (isBillableAssistant(entry)) keys.add(responseKey(entry))
  })
  await readChunks(file, (chunk) => splitter.push(chunk))
  splitter.end()
  return keys
}
