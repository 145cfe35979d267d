import * as fs from "node:fs"
import * as fsp from "node:fs/promises"
import type { ChunkSink } from "../../domain/history/reader.js"
import { type DecodedFile, makeFileDecoder } from "../../domain/history/lines.js"

/**
 * ClaudeHistory's file reading: asynchronous on the main thread, synchronous in the listing's worker threads
 * (src/domain/history/summaryWorker.ts; a worker has nothing else to do while it reads).
 */

export const READ_CHUNK_BYTES = 1024 * 1024

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

