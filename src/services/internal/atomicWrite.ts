import type { FileSystem } from "@effect/platform/FileSystem"
import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import * as path from "node:path"

/** A private temporary name beside `file`, unique per call, hidden, ending in `.tmp`. */
export const temporaryNameFor = (file: string) =>
  path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString("hex")}.tmp`)

/**
 * The one atomic write (FileStore.writeTextAtomic, the thread index, a temporary root's owner file): a new private
 * temporary file beside `file`, renamed over it, so that two writers leave one whole file (the last rename wins) and
 * a reader never sees half; the temporary file is removed whatever happens. The folder must exist.
 */
export const writeFileAtomic = (fs: FileSystem, file: string, text: string, mode = 0o600) =>
  Effect.suspend(() => {
    const temporary = temporaryNameFor(file)
    return fs.writeFileString(temporary, text, { flag: "wx", mode }).pipe(
      Effect.zipRight(fs.rename(temporary, file)),
      Effect.ensuring(Effect.ignore(fs.remove(temporary, { force: true })))
    )
  })
