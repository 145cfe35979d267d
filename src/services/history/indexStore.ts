import { FileSystem } from "@effect/platform"
import { Effect, Either, Option, ParseResult, Schema } from "effect"
import * as path from "node:path"
import {
  foreignReason,
  indexFileOf,
  indexOfFile,
  olderThreadIndexFiles,
  type ThreadIndex,
  ThreadIndexFile
} from "../../domain/history/threadIndex.js"
import { describeFailure, isMissingFailure } from "../FileStore.js"
import { writeFileAtomic } from "../internal/atomicWrite.js"
import { LinkSafeFiles } from "../platform/LinkSafeFiles.js"

/** The persistent thread index on disk: one Schema-encoded JSON file, read once per process and written whole. */

export type LoadedIndex =
  | { readonly _tag: "Loaded"; readonly index: ThreadIndex }
  | { readonly _tag: "Missing" }
  | { readonly _tag: "Discarded"; readonly reason: string }

const decodeFile = Schema.decodeUnknownEither(Schema.parseJson(ThreadIndexFile))
/**
 * `ThreadIndexFile` has no transformation, so its encoded form is the value itself (the types say so): the write
 * skips `Schema.encode`, which would only check again what the types guarantee and cost a fresh process's one
 * write of 2,000 sessions about 40 ms of its 60–90.
 */
const encodeFile = (file: typeof ThreadIndexFile.Encoded) => JSON.stringify(file)

/**
 * The largest index read. The file holds a few hundred bytes per session (2,000 sessions make 1.8 MB), so this
 * bound is far above any real history; a larger file is discarded and rebuilt rather than read into memory.
 */
const MAX_INDEX_BYTES = 256 * 1024 * 1024

/** Reads and checks the index (one read of the whole file, opened without following a link); a missing one is `Missing`, one that cannot be read or used `Discarded`. */
export const loadIndex = (file: string, version: string, projectsRoot: string) =>
  Effect.gen(function*() {
    const links = yield* LinkSafeFiles
    const read = yield* Effect.either(links.readRegular(file, MAX_INDEX_BYTES))
    if (Either.isLeft(read)) {
      const error = read.left
      if (isMissingFailure(error)) return { _tag: "Missing" } as LoadedIndex
      return { _tag: "Discarded", reason: `it cannot be read (${describeFailure(error)})` } as LoadedIndex
    }
    if (Option.isNone(read.right)) {
      return { _tag: "Discarded", reason: `it is larger than ${MAX_INDEX_BYTES / 1024 / 1024} MiB` } as LoadedIndex
    }
    const decoded = decodeFile(read.right.value)
    if (Either.isLeft(decoded)) {
      const issue = ParseResult.TreeFormatter.formatErrorSync(decoded.left).split("\n")[0]
      return { _tag: "Discarded", reason: `it is not a thread index of this format (${issue})` } as LoadedIndex
    }
    const reason = foreignReason(decoded.right, version, projectsRoot)
    if (reason !== undefined) return { _tag: "Discarded", reason } as LoadedIndex
    return { _tag: "Loaded", index: indexOfFile(decoded.right) } as LoadedIndex
  })

/**
 * Writes the whole index atomically (internal/atomicWrite.ts): a private temporary file with a unique name, then a rename, so that two
 * processes writing at once leave one whole index (the last rename wins) and a reader never sees half. The
 * files of earlier formats beside it are removed.
 */
export const saveIndex = (file: string, version: string, projectsRoot: string, index: ThreadIndex) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const text = encodeFile(indexFileOf(version, projectsRoot, index))
    yield* fs.makeDirectory(path.dirname(file), { recursive: true, mode: 0o700 })
    yield* writeFileAtomic(fs, file, text)
    yield* Effect.forEach(olderThreadIndexFiles(file), (older) => Effect.ignore(fs.remove(older, { force: true })), {
      discard: true
    })
  })
