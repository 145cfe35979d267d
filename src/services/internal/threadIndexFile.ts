import { randomBytes } from "node:crypto"
import { readFileSync } from "node:fs"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { type LoadedIndex, parseThreadIndex, serializeThreadIndex, type ThreadIndex } from "../../domain/history/threadIndex.js"
import { describeError, isMissing } from "../../domain/ioErrors.js"

/** Reads and checks the persistent thread index; a missing file is `Missing`, an unreadable one `Discarded`. */
export const loadThreadIndex = async (file: string, version: string, projectsRoot: string): Promise<LoadedIndex> => {
  let text: string
  try {
    // One synchronous read, decoded at once (a couple of milliseconds even for thousands of sessions): the
    // promise API reads it in chunks through the thread pool and decodes it chunk by chunk, several times slower.
    text = readFileSync(file).toString("utf8")
  } catch (error) {
    if (isMissing(error)) return { _tag: "Missing" }
    return { _tag: "Discarded", reason: `it cannot be read (${describeError(error)})` }
  }
  return parseThreadIndex(text, version, projectsRoot)
}

/**
 * Writes the index atomically: a private temporary file with a unique name, then a rename, so that two
 * processes writing at once leave one whole index (the last rename wins) and a reader never sees half.
 */
export const saveThreadIndex = async (file: string, version: string, projectsRoot: string, index: ThreadIndex) => {
  await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 })
  const temporary = `${file}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`
  try {
    await fs.writeFile(temporary, serializeThreadIndex(version, projectsRoot, index), { mode: 0o600, flag: "wx" })
    await fs.rename(temporary, file)
  } catch (error) {
    await fs.rm(temporary, { force: true })
    throw error
  }
}
