import * as fs from "node:fs"
import * as fsp from "node:fs/promises"
import type { ChunkSink } from "../../domain/history/reader.js"
import { type DecodedFile, makeFileDecoder } from "../../domain/history/lines.js"

/**
 * ClaudeHistory's file reading: asynchronous on the main thread, synchronous in the listing's worker threads
 * (src/services/history/parseWorker.ts; a worker has nothing else to do while it reads).
 */

export const READ_CHUNK_BYTES = 1024 * 1024

/** Never blocking: a FIFO named like a transcript would hold a reader until someone writes to it. */
const READ_PLAIN = fs.constants.O_RDONLY | fs.constants.O_NONBLOCK

const notRegular = (file: string) => Object.assign(new Error(`${file} is not a regular file`), { code: "ENOTREGULAR" })

/**
 * Read buffers are reused: a fresh megabyte per file costs hundreds of page faults (most of a listing's
 * system time). A handful covers the service's concurrent reads.
 */
const spareBuffers: Array<Buffer> = []
const MAX_SPARE_BUFFERS = 8

/** Streams a file to `sink` chunk by chunk; memory is bounded by the chunk size (the sink copies what it keeps). */
export const readChunks = async (file: string, sink: ChunkSink): Promise<void> => {
  const handle = await fsp.open(file, READ_PLAIN)
  if (!(await handle.stat().catch(() => undefined))?.isFile()) {
    await handle.close()
    throw notRegular(file)
  }
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
  const fd = fs.openSync(file, READ_PLAIN)
  try {
    if (!fs.fstatSync(fd).isFile()) throw notRegular(file)
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


/**
 * Discovery's view of the history folders (src/services/history/discovery.ts). Every call is synchronous:
 * a warm listing looks at thousands of small entries, and a synchronous `stat` costs a few microseconds
 * where a thread-pool round trip (and an effect) per file costs tens. Discovery runs them in one effect.
 */
export interface TranscriptTree {
  /** The names of a folder's files and sub-folders; none when it cannot be read. */
  readonly list: (directory: string) => { readonly files: ReadonlyArray<string>; readonly folders: ReadonlyArray<string> }
  /** A regular file's size and mtime; undefined when it is not a file (or is gone); the error's code when it cannot be looked at. */
  readonly stamp: (file: string) => { readonly size: number; readonly mtimeMs: number } | { readonly unreadable: string } | undefined
  /** The file's first line (up to `maxBytes`, read `stepBytes` at a time); undefined when it cannot be read. */
  readonly firstLine: (file: string, stepBytes: number, maxBytes: number) => string | undefined
}

const codeOf = (error: unknown) =>
  typeof error === "object" && error !== null && typeof (error as { code?: unknown }).code === "string"
    ? (error as { code: string }).code
    : String(error)

export const nodeTranscriptTree: TranscriptTree = {
  list: (directory) => {
    const files: Array<string> = []
    const folders: Array<string> = []
    try {
      for (const entry of fs.readdirSync(directory, { withFileTypes: true })) {
        ;(entry.isDirectory() ? folders : files).push(entry.name)
      }
    } catch {
      // A folder that cannot be read holds nothing the listing can use.
    }
    return { files, folders }
  },
  stamp: (file) => {
    try {
      const stat = fs.statSync(file, { throwIfNoEntry: false })
      return stat?.isFile() ? { size: stat.size, mtimeMs: stat.mtimeMs } : undefined
    } catch (error) {
      return { unreadable: codeOf(error) }
    }
  },
  firstLine: (file, stepBytes, maxBytes) => {
    let fd: number | undefined
    try {
      fd = fs.openSync(file, "r")
      const chunks: Array<Buffer> = []
      let length = 0
      while (length < maxBytes) {
        const chunk = Buffer.allocUnsafe(stepBytes)
        const read = fs.readSync(fd, chunk, 0, stepBytes, null)
        if (read === 0) break
        const newline = chunk.subarray(0, read).indexOf(10)
        chunks.push(chunk.subarray(0, newline === -1 ? read : newline))
        length += read
        if (newline !== -1) break
      }
      return Buffer.concat(chunks).toString("utf8")
    } catch {
      return undefined
    } finally {
      if (fd !== undefined) fs.closeSync(fd)
    }
  }
}
