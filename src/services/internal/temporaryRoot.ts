import type { PlatformError } from "@effect/platform/Error"
import type { FileSystem } from "@effect/platform/FileSystem"
import { Effect, Option } from "effect"
import * as path from "node:path"
import { systemTemporaryDirectory } from "../platform/environment.js"
import type { LinkSafeFiles } from "../platform/LinkSafeFiles.js"
import { writeFileAtomic } from "./atomicWrite.js"
import { isSameProcess, startTimeOf } from "../platform/procfs.js"

/**
 * This process's private folder in the system's temporary directory (0700): reviewer workspaces and
 * implementers' temporary directories are made inside it. Its `.owner` file names the process that
 * made it (pid and start time), so that the next controller removes what a killed one left behind.
 * Neither name tells an agent anything about the run, the order or the authors.
 */

const PREFIX = "private-"
const OWNER_FILE = ".owner"
const OWNER_KIND = "codex-replay temporary root"

/** One folder per process and file system, whichever service asks. */
const known = new WeakMap<FileSystem, string>()

export const makeTemporaryRoots = (fs: FileSystem, links: LinkSafeFiles["Type"]) => {
  const create = Effect.gen(function*() {
    const directory = yield* fs.makeTempDirectory({ directory: systemTemporaryDirectory(), prefix: PREFIX })
    yield* fs.chmod(directory, 0o700)
    const owner = { kind: OWNER_KIND, pid: process.pid, start_time: startTimeOf(process.pid) ?? null }
    yield* writeFileAtomic(fs, path.join(directory, OWNER_FILE), JSON.stringify(owner))
    const real = yield* fs.realPath(directory)
    known.set(fs, real)
    return real
  })

  /** The folder, made on first use (again if something removed it). */
  const current: Effect.Effect<string, PlatformError> = Effect.suspend(() => {
    const root = known.get(fs)
    if (root === undefined) return create
    return Effect.flatMap(fs.exists(path.join(root, OWNER_FILE)), (there) => (there ? Effect.succeed(root) : create))
  })

  /** A folder's owner, if it is one of ours: the process recorded in its `.owner` file. */
  const ownerOf = (directory: string) =>
    fs.readFileString(path.join(directory, OWNER_FILE)).pipe(
      Effect.flatMap((text) => Effect.try(() => JSON.parse(text) as Record<string, unknown>)),
      Effect.map((owner) => (owner.kind === OWNER_KIND ? Option.some(owner) : Option.none())),
      Effect.orElseSucceed(() => Option.none<Record<string, unknown>>())
    )

  /**
   * Removes every private folder (ours or another user's never) whose owning process is gone, or is now
   * a different process with the same pid. Answers how many were removed.
   */
  const removeAbandoned: Effect.Effect<number> = Effect.gen(function*() {
    const parent = systemTemporaryDirectory()
    const entries = yield* fs.readDirectory(parent).pipe(Effect.orElseSucceed((): Array<string> => []))
    const uid = process.getuid?.()
    let removed = 0
    for (const entry of entries.filter((name) => name.startsWith(PREFIX))) {
      const directory = path.join(parent, entry)
      const info = yield* links.lstat(directory).pipe(Effect.orElseSucceed(() => Option.none()))
      if (Option.isNone(info) || info.value.type !== "Directory" || (uid !== undefined && info.value.uid !== uid)) continue
      const owner = yield* ownerOf(directory)
      if (Option.isNone(owner) || isSameProcess(owner.value.pid, owner.value.start_time)) continue
      yield* fs.remove(directory, { recursive: true, force: true }).pipe(
        Effect.match({ onFailure: () => undefined, onSuccess: () => void removed++ })
      )
    }
    return removed
  })

  return { current, removeAbandoned } as const
}
