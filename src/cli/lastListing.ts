/**
 * The last `codex-replay threads` listing, kept so that its `#N` can name a thread on the next command:
 * `<cache>/cli/last-threads.json` beside the thread index, private (0600 in a 0700 folder).
 */
import { FileSystem } from "@effect/platform"
import { Effect, Option, Schema } from "effect"
import * as path from "node:path"
import { writeFileAtomic } from "../services/internal/atomicWrite.js"
import { Settings } from "../services/Settings.js"

export const LastListing = Schema.Struct({
  /** The `#N` of the first thread is `offset + 1`. */
  offset: Schema.Number,
  thread_ids: Schema.Array(Schema.String)
})
export type LastListing = typeof LastListing.Type

const MAX_BYTES = 64 * 1024

export const lastListingFile = (cacheRoot: string) => path.join(cacheRoot, "cli", "last-threads.json")

/** Keeps the listing; a listing that cannot be kept is only a `#N` the next command does not know, never a failure. */
export const saveLastListing = (listing: LastListing) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const file = lastListingFile((yield* Settings).cacheRoot)
    const directory = path.dirname(file)
    yield* fs.makeDirectory(directory, { recursive: true, mode: 0o700 })
    yield* fs.chmod(directory, 0o700)
    // Two listings at once (two terminals) each write a temporary file of their own; the last rename wins.
    yield* writeFileAtomic(fs, file, JSON.stringify(listing))
  }).pipe(Effect.catchAll((error) => Effect.logWarning(`Cannot keep the thread listing for #N: ${error.message}`)))

/** The last listing, or none when there was none (or it cannot be read). */
export const readLastListing = Effect.gen(function*() {
  const fs = yield* FileSystem.FileSystem
  const file = lastListingFile((yield* Settings).cacheRoot)
  const info = yield* Effect.option(fs.stat(file))
  if (Option.isNone(info) || Number(info.value.size) > MAX_BYTES) return Option.none<LastListing>()
  const text = yield* Effect.option(fs.readFileString(file))
  return Option.flatMap(text, (raw) => Schema.decodeUnknownOption(Schema.parseJson(LastListing))(raw))
})
