import { type Context, Effect, Layer, Option, Ref, type Schema } from "effect"
import * as path from "node:path"
import { type InvalidArgument, invalidArgument, StorageError, type UnreadableFile, unreadableFile } from "../../src/domain/errors.js"
import { decodeStored, type FileIdentity, FileStore, isInside, type JsonObject, type LocatedFile } from "../../src/services/FileStore.js"
import { ProcessRunner } from "../../src/services/ProcessRunner.js"
import { changedFilesFromPatch } from "../../src/domain/review/anonymize.js"
import { archivedWorkspaceName, type CollectedChanges, IMPLEMENTATION_WORKSPACE, type MaterialisedWorkspace, Workspace, WORKSPACES_DIRECTORY } from "../../src/services/Workspace.js"

/**
 * A layer of `tag` from the methods a test needs; touching any other member fails the test at once with
 * the service and member named (a fake that silently answers `undefined` hides what a test relies on).
 */
export const makeTestLayer = <I, S extends object>(tag: Context.Tag<I, S>) => (implemented: Partial<S>): Layer.Layer<I> =>
  Layer.succeed(
    tag,
    new Proxy(implemented as S, {
      get(target, member) {
        if (member in target || typeof member === "symbol" || member === "then" || member === "toJSON") {
          return (target as Record<PropertyKey, unknown>)[member]
        }
        throw new Error(`${tag.key}.${member} is not implemented by this test layer.`)
      }
    })
  )

type Entry = { readonly kind: "directory" } | { readonly kind: "file"; readonly text: string; readonly version: number }

/** The controller's private temporary folder, in memory. */
const PRIVATE_TEMPORARY_ROOT = "/memory/tmp/private-000000"

/**
 * The FileStore in memory: the same answers and errors for the paths a test uses, nothing on disk and no
 * asynchronous I/O, so a fiber that is not waiting for the clock always gets on with its work.
 */
export class MemoryFiles {
  private readonly entries = new Map<string, Entry>([["/", { kind: "directory" }]])
  private readonly locks = new Map<string, Effect.Semaphore>()
  private temporaryCount = 0
  private writes = 0

  private mkdirs(directory: string) {
    const resolved = path.resolve(directory)
    for (let current = resolved; !this.entries.has(current); current = path.dirname(current)) {
      this.entries.set(current, { kind: "directory" })
    }
  }

  text(file: string): string | undefined {
    const entry = this.entries.get(path.resolve(file))
    return entry?.kind === "file" ? entry.text : undefined
  }

  json(file: string): JsonObject | undefined {
    const text = this.text(file)
    return text === undefined ? undefined : JSON.parse(text) as JsonObject
  }

  has(target: string) {
    return this.entries.has(path.resolve(target))
  }

  isDirectory(target: string) {
    return this.entries.get(path.resolve(target))?.kind === "directory"
  }

  /** The names directly inside `directory`, sorted. */
  list(directory: string): Array<string> {
    const resolved = path.resolve(directory)
    return [...this.entries.keys()].filter((key) => key !== resolved && path.dirname(key) === resolved).map((key) => path.basename(key)).sort()
  }

  /** Every file below `directory`, relative to it, sorted. */
  filesBelow(directory: string): Array<string> {
    const resolved = path.resolve(directory)
    return [...this.entries].filter(([key, entry]) => entry.kind === "file" && isInside(resolved, key) && key !== resolved)
      .map(([key]) => path.relative(resolved, key)).sort()
  }

  mkdir(directory: string) {
    this.mkdirs(directory)
  }

  writeText(file: string, text: string) {
    this.mkdirs(path.dirname(file))
    this.entries.set(path.resolve(file), { kind: "file", text, version: ++this.writes })
  }

  /** Like a stat: every write makes a new file (as an atomic rename does), told apart by its inode. */
  identity(file: string): FileIdentity | undefined {
    const entry = this.entries.get(path.resolve(file))
    return entry?.kind === "file" ? { size: Buffer.byteLength(entry.text), mtimeMs: 0, ino: entry.version } : undefined
  }

  rename(from: string, to: string) {
    const source = path.resolve(from)
    const target = path.resolve(to)
    if (!this.entries.has(source)) throw new Error(`${from} does not exist`)
    for (const [key, entry] of [...this.entries]) {
      if (key === source || isInside(source, key)) {
        this.entries.delete(key)
        this.entries.set(path.join(target, path.relative(source, key)), entry)
      }
    }
  }

  remove(target: string) {
    const resolved = path.resolve(target)
    for (const key of [...this.entries.keys()]) if (key === resolved || isInside(resolved, key)) this.entries.delete(key)
  }

  readonly layer: Layer.Layer<FileStore> = Layer.sync(FileStore, () => this.service())

  private service() {
    const files = this
    const lockFor = (file: string) => {
      const key = path.resolve(file)
      let lock = files.locks.get(key)
      if (lock === undefined) {
        lock = Effect.unsafeMakeSemaphore(1)
        files.locks.set(key, lock)
      }
      return lock
    }
    const missing = (file: string) => invalidArgument(`Cannot read ${path.basename(file)}: ENOENT: no such file or directory, open '${file}'`)
    const ensurePrivateDirectory = (directory: string) => Effect.sync((): undefined => void files.mkdirs(directory))
    const ensurePrivateDirectoryInside = (root: string, directory: string) =>
      Effect.suspend(() => {
        if (!isInside(root, directory)) return Effect.fail(new StorageError({ message: `Cannot create ${path.basename(directory)}: it is outside its run directory` }))
        if (!files.isDirectory(root)) return Effect.fail(new StorageError({ message: `Cannot create ${path.basename(directory)}: ENOENT` }))
        return Effect.sync((): undefined => void files.mkdirs(directory))
      })
    const writeTextAtomic = (file: string, text: string) => Effect.sync(() => files.writeText(file, text))
    const writeJson = (file: string, value: unknown) => writeTextAtomic(file, `${JSON.stringify(value, null, 2)}\n`)
    const createJsonExclusive = (file: string, value: unknown) =>
      Effect.suspend(() => (files.has(file) ? Effect.succeed(false) : Effect.as(writeJson(file, value), true)))
    const readBounded = (file: string, maxBytes: number) =>
      Effect.suspend((): Effect.Effect<string, InvalidArgument | UnreadableFile> => {
        const text = files.text(file)
        if (text === undefined) return Effect.fail(missing(file))
        if (Buffer.byteLength(text) > maxBytes) return Effect.fail(unreadableFile(`${path.basename(file)} is too large to read.`))
        return Effect.succeed(text)
      })
    const readJson = (file: string, maxBytes: number) =>
      Effect.flatMap(readBounded(file, maxBytes), (text) =>
        Effect.try({ try: () => JSON.parse(text) as unknown, catch: () => unreadableFile(`${path.basename(file)} does not contain valid JSON.`) }).pipe(
          Effect.filterOrFail(
            (value): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value),
            () => unreadableFile(`${path.basename(file)} does not contain an object.`)
          )
        ))
    const readJsonOption = (file: string, maxBytes: number) =>
      Effect.suspend(() => (files.has(file) ? Effect.map(readJson(file, maxBytes), Option.some) : Effect.succeed(Option.none<JsonObject>())))
    const readDecoded = <A, I>(file: string, maxBytes: number, schema: Schema.Schema<A, I, never>) =>
      Effect.flatMap(readJson(file, maxBytes), decodeStored(file, schema))
    const readDecodedOption = <A, I>(file: string, maxBytes: number, schema: Schema.Schema<A, I, never>) =>
      Effect.suspend(() => (files.has(file) ? Effect.map(readDecoded(file, maxBytes, schema), Option.some) : Effect.succeed(Option.none<A>())))
    const readTail = (file: string, maxBytes: number) =>
      Effect.sync(() => {
        const text = files.text(file) ?? ""
        if (Buffer.byteLength(text) <= maxBytes) return text
        const tail = Buffer.from(text).subarray(-maxBytes).toString("utf8")
        const newline = tail.indexOf("\n")
        return newline >= 0 ? tail.slice(newline + 1) : tail
      })
    const resolveInside = (root: string, ...segments: Array<string>) =>
      Effect.suspend(() => {
        const candidate = path.resolve(root, ...segments)
        if (segments.some((segment) => segment.split(/[\\/]/).includes("..")) || !isInside(root, candidate)) {
          return Effect.fail(invalidArgument("The requested path is outside its root."))
        }
        return Effect.succeed(candidate)
      })
    const withLock = <A, E, R>(file: string, effect: Effect.Effect<A, E, R>) => lockFor(file).withPermits(1)(Effect.uninterruptible(effect))
    const updateJson = <E, R>(file: string, maxBytes: number, update: (current: JsonObject) => Effect.Effect<JsonObject, E, R>) =>
      withLock(file, readJson(file, maxBytes).pipe(Effect.flatMap(update), Effect.tap((next) => writeJson(file, next))))
    const appendText = (file: string, text: string) =>
      Effect.suspend(() =>
        files.isDirectory(path.dirname(file))
          ? Effect.sync(() => files.writeText(file, (files.text(file) ?? "") + text))
          : Effect.fail(new StorageError({ message: `Cannot write ${path.basename(file)}: ENOENT` })))
    const remove = (target: string) => Effect.sync(() => files.remove(target))
    const temporaryDirectory = (parent: string, prefix: string) =>
      Effect.acquireRelease(
        Effect.sync(() => {
          const directory = path.join(parent, `${prefix}${String(++files.temporaryCount).padStart(6, "0")}`)
          files.mkdirs(directory)
          return directory
        }),
        remove
      )
    const privateTemporaryRoot = () =>
      Effect.sync(() => {
        files.mkdirs(PRIVATE_TEMPORARY_ROOT)
        return PRIVATE_TEMPORARY_ROOT
      })
    return FileStore.make({
      ensurePrivateDirectory,
      ensurePrivateDirectoryInside,
      writeTextAtomic,
      writeJson,
      createJsonExclusive,
      readBounded,
      readJson,
      readJsonOption,
      readDecoded,
      readDecodedOption,
      readTail,
      resolveInside,
      withLock,
      updateJson,
      exists: (file: string) => Effect.sync(() => files.has(file)),
      rename: (from: string, to: string) =>
        Effect.try({ try: () => files.rename(from, to), catch: (error) => new StorageError({ message: `Cannot name ${path.basename(to)}: ${String(error)}` }) }),
      isDirectory: (target: string) => Effect.sync(() => files.isDirectory(target)),
      statOption: (file: string) => Effect.sync(() => Option.fromNullable(files.identity(file))),
      ownSize: (file: string) => Effect.sync(() => Option.map(Option.fromNullable(files.identity(file)), (identity) => identity.size)),
      listDirectories: (directory: string) => Effect.sync(() => files.list(directory).filter((name) => files.isDirectory(path.join(directory, name)))),
      listNames: (directory: string) => Effect.sync(() => files.list(directory)),
      linkType: (target: string) =>
        Effect.sync(() => (files.has(target) ? Option.some(files.isDirectory(target) ? "Directory" as const : "File" as const) : Option.none())),
      copyFile: (source: string, target: string) =>
        Effect.suspend(() => {
          const text = files.text(source)
          if (text === undefined) return Effect.fail(new StorageError({ message: `Cannot copy ${path.basename(source)}: ENOENT` }))
          return Effect.sync(() => {
            files.mkdirs(path.dirname(target))
            files.writeText(target, text)
          })
        }),
      writeText: (target: string, text: string) =>
        Effect.sync(() => {
          files.mkdirs(path.dirname(target))
          files.writeText(target, text)
        }),
      appendText,
      temporaryDirectory,
      privateTemporaryRoot,
      locateFileInside: (root: string, name: string) =>
        Effect.sync((): LocatedFile => {
          const file = path.join(root, name)
          const text = files.text(file)
          return text === undefined ? { _tag: "Missing" } : { _tag: "Found", path: path.resolve(file), size: Buffer.byteLength(text) }
        }),
      realPath: (target: string) => Effect.sync(() => (files.has(target) ? Option.some(path.resolve(target)) : Option.none<string>())),
      remove
    })
  }
}

/** The patch of a workspace in memory: every file in it, as a new file (what `git diff` against an empty tree shows). */
const patchOf = (files: MemoryFiles, directory: string) =>
  files.filesBelow(directory).map((relative) => {
    const lines = (files.text(path.join(directory, relative)) ?? "").split("\n").filter((line, index, all) => index < all.length - 1 || line !== "")
    return [
      `diff --git a/${relative} b/${relative}`,
      "new file mode 100644",
      "--- /dev/null",
      `+++ b/${relative}`,
      `@@ -0,0 +1,${lines.length} @@`,
      ...lines.map((line) => `+${line}`),
      ""
    ].join("\n")
  }).join("")

export interface WorkspaceHooks {
  /** Runs before each workspace is created (block it to hold a run in `creating_workspace`). */
  readonly beforeMaterialise?: Effect.Effect<void>
  /** Runs before each diff (block it to hold a run in `collecting`). */
  readonly beforeDiff?: Effect.Effect<void>
}

/** Workspaces in `files`: empty directories, archived by renaming, diffed as new files; no git. */
export const memoryWorkspaces = (files: MemoryFiles, hooks: WorkspaceHooks = {}) =>
  makeTestLayer(Workspace)({
    materialise: (runDirectory: string, _plan: unknown, runTag?: string) =>
      Effect.gen(function*() {
        yield* hooks.beforeMaterialise ?? Effect.void
        const directory = path.join(runDirectory, WORKSPACES_DIRECTORY, IMPLEMENTATION_WORKSPACE)
        if (files.has(directory)) return yield* invalidArgument("The implementation workspace already exists.")
        yield* Effect.sync(() => files.mkdir(directory))
        return { directory, gitDir: `${directory}.git`, base: "base", runTag } satisfies MaterialisedWorkspace
      }),
    archiveFailed: (runDirectory: string, attempt: number) =>
      Effect.sync(() => {
        const parent = path.join(runDirectory, WORKSPACES_DIRECTORY)
        const archived = path.join(parent, archivedWorkspaceName(attempt))
        files.rename(path.join(parent, IMPLEMENTATION_WORKSPACE), archived)
        return archived
      }),
    collect: (workspace: MaterialisedWorkspace) =>
      Effect.zipRight(
        hooks.beforeDiff ?? Effect.void,
        Effect.sync(() => {
          const patch = patchOf(files, workspace.directory)
          return { patch, files: [...changedFilesFromPatch(patch)], cuts: [], patch_bytes: Buffer.byteLength(patch) } satisfies CollectedChanges
        })
      )
  } as Partial<Workspace>)

/** No process is ever started; the tags swept are recorded in `swept`. */
export const recordingProcesses = (swept: Ref.Ref<ReadonlyArray<string>>) =>
  makeTestLayer(ProcessRunner)({
    graceMillis: 0,
    sweepTag: (tag: string) => Effect.as(Ref.update(swept, (tags) => [...tags, tag]), 0),
    sweepRecorded: () => Effect.succeed(0)
  } as Partial<ProcessRunner>)
