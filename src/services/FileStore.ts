import * as FileSystem from "@effect/platform/FileSystem"
import type { PlatformError } from "@effect/platform/Error"
import { Effect, Option, Schema } from "effect"
import * as path from "node:path"
import { ControllerError, invalidArgument, notFound, StorageError, UnreadableFile, unreadableFile } from "../domain/errors.js"
import { errnoOf } from "../domain/ioErrors.js"
import { describeStoredIssue } from "../domain/toolResult.js"
import { temporaryNameFor, writeFileAtomic } from "./internal/atomicWrite.js"
import { makeTemporaryRoots } from "./internal/temporaryRoot.js"
import { LinkSafeFiles } from "./platform/LinkSafeFiles.js"
import { NodeFilesLive } from "./platform/nodeFiles.js"

export { readStreamNoFollow } from "./platform/nodeFiles.js"

export type JsonObject = Record<string, unknown>

export interface FileIdentity {
  readonly size: number
  readonly mtimeMs: number
  readonly ino: number
}

export type LocatedFile =
  | { readonly _tag: "Found"; readonly path: string; readonly size: number }
  | { readonly _tag: "Outside" }
  | { readonly _tag: "Missing" }

/** The system's code of a platform failure (`ENOENT`, `ELOOP`…), from the Node error it wraps. */
export const codeOfFailure = (error: PlatformError): string | undefined =>
  errnoOf(error.cause) ?? (error._tag === "SystemError" && error.reason === "NotFound" ? "ENOENT" : undefined)

/** Nothing there, or a file where a directory of the path should be. */
export const isMissingFailure = (error: PlatformError) => {
  const code = codeOfFailure(error)
  return code === "ENOENT" || code === "ENOTDIR"
}

/** The system's own sentence for a platform failure (`EACCES: permission denied, open '…'`). */
export const describeFailure = (error: PlatformError) => (error.cause instanceof Error ? error.cause.message : error.message)

const storageError = (what: string, error: PlatformError | string) => {
  const code = typeof error === "string" ? undefined : codeOfFailure(error)
  return new StorageError({ message: `${what}: ${typeof error === "string" ? error : describeFailure(error)}`, ...(code === undefined ? {} : { code }) })
}

/**
 * The JSON object in the text of the file `name`, or why it is not one. The files read this way are the
 * controller's own (a run's state, an attempt, a batch record): a damaged one is the machine's failure
 * (`UnreadableFile`, 500), named by its base name only.
 */
export const parseJsonObject = (name: string, text: string): Effect.Effect<JsonObject, UnreadableFile> =>
  Effect.try({
    // A `__proto__` key would become the prototype of what decodes it, lending every field it names.
    try: () => JSON.parse(text, (key, value: unknown) => (key === "__proto__" ? undefined : value)) as unknown,
    catch: () => unreadableFile(`${name} does not contain valid JSON.`)
  }).pipe(
    Effect.filterOrFail(
      (value): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value),
      () => unreadableFile(`${name} does not contain an object.`)
    )
  )

/** A stored JSON object decoded with its Schema, or `UnreadableFile` naming the file and its first offending field. */
export const decodeStored = <A, I>(file: string, schema: Schema.Schema<A, I, never>) => (value: unknown) =>
  Schema.decodeUnknown(schema)(value).pipe(
    Effect.mapError((error) => unreadableFile(`${path.basename(file)}: ${describeStoredIssue(error)}.`))
  )

/** Lexical containment: `candidate` equals `root` or lies below it. */
export const isInside = (root: string, candidate: string) => {
  const relative = path.relative(root, candidate)
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative))
}

const orNone = <A>(effect: Effect.Effect<A, PlatformError>) =>
  effect.pipe(
    Effect.map(Option.some),
    Effect.catchIf(isMissingFailure, () => Effect.succeed(Option.none<A>()))
  )

/**
 * Private files on disk, over `@effect/platform`'s `FileSystem` (Node's in production, an in-memory one in
 * tests): atomic writes (temp file + rename, 0600), bounded and no-follow reads, per-path serialisation of
 * read-modify-write cycles, and containment checks that also follow symlinks. The one file service.
 */
export class FileStore extends Effect.Service<FileStore>()("codex-replay/FileStore", {
  effect: Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const links = yield* LinkSafeFiles
    const locks = new Map<string, Effect.Semaphore>()
    const lockFor = (file: string) => {
      const key = path.resolve(file)
      let lock = locks.get(key)
      if (lock === undefined) {
        lock = Effect.unsafeMakeSemaphore(1)
        locks.set(key, lock)
      }
      return lock
    }

    const write = <A>(what: string, effect: Effect.Effect<A, PlatformError>) =>
      Effect.mapError(effect, (error) => storageError(what, error))

    /** A file that is not there is the caller's to explain; any other failure to read is the machine's. */
    const read = <A>(what: string, effect: Effect.Effect<A, PlatformError>) =>
      Effect.mapError(effect, (error): ControllerError | StorageError => {
        const code = codeOfFailure(error)
        return isMissingFailure(error)
          ? notFound(`${what}: ${describeFailure(error)}`)
          : code === "ELOOP" || code === "ENOTREGULAR"
          ? invalidArgument(`${what}: it is a symbolic link or not a regular file, which is never followed.`)
          : storageError(what, error)
      })

    const temporaryName = temporaryNameFor

    const ensurePrivateDirectory = Effect.fn("FileStore.ensurePrivateDirectory")(function*(directory: string) {
      yield* write(`Cannot create ${directory}`, Effect.zipRight(
        fs.makeDirectory(directory, { recursive: true, mode: 0o700 }),
        fs.chmod(directory, 0o700)
      ))
    })

    /**
     * Creates `directory` (0700) below `root`, which must exist: every component from `root` down must be
     * a real directory, never a symlink, so files written there stay inside `root` (a run directory).
     */
    const ensurePrivateDirectoryInside = Effect.fn("FileStore.ensurePrivateDirectoryInside")(function*(
      root: string,
      directory: string
    ) {
      if (!isInside(root, directory)) return yield* storageError(`Cannot create ${path.basename(directory)}`, "it is outside its run directory")
      const segments = path.relative(root, directory).split(path.sep).filter((segment) => segment !== "")
      let current = root
      for (const segment of segments) {
        current = path.join(current, segment)
        const what = `Cannot create ${segment}`
        yield* write(what, fs.makeDirectory(current, { mode: 0o700 }).pipe(Effect.catchIf((error) => codeOfFailure(error) === "EEXIST", () => Effect.void)))
        const info = yield* write(what, links.lstat(current))
        if (Option.isNone(info) || info.value.type !== "Directory") {
          return yield* storageError(what, "it is a symbolic link or not a directory, which is never followed")
        }
        yield* write(what, fs.chmod(current, 0o700))
      }
    })

    /** The one atomic write (internal/atomicWrite.ts): a private temporary file beside `file`, renamed over it; never half a file. */
    const writeTextAtomic = Effect.fn("FileStore.writeTextAtomic")(function*(file: string, text: string, mode = 0o600) {
      yield* write(`Cannot create ${path.dirname(file)}`, fs.makeDirectory(path.dirname(file), { recursive: true, mode: 0o700 }))
      yield* write(`Cannot write ${path.basename(file)}`, writeFileAtomic(fs, file, text, mode))
    })

    const writeJson = (file: string, value: unknown) =>
      writeTextAtomic(file, `${JSON.stringify(value, null, 2)}\n`)

    /** Creates `file` with `value` only if it does not exist yet; answers whether it did. Atomic. */
    const createJsonExclusive = Effect.fn("FileStore.createJsonExclusive")(function*(file: string, value: unknown) {
      const temporary = temporaryName(file)
      return yield* write(`Cannot write ${path.basename(file)}`, fs.writeFileString(temporary, `${JSON.stringify(value, null, 2)}\n`, { flag: "wx", mode: 0o600 }).pipe(
        Effect.zipRight(fs.link(temporary, file)),
        Effect.as(true),
        Effect.catchIf((error) => codeOfFailure(error) === "EEXIST", () => Effect.succeed(false)),
        Effect.ensuring(Effect.ignore(fs.remove(temporary, { force: true })))
      ))
    })

    const readBounded = Effect.fn("FileStore.readBounded")(function*(file: string, maxBytes: number) {
      const name = path.basename(file)
      const text = yield* read(`Cannot read ${name}`, links.readRegular(file, maxBytes))
      // Every bounded read is of a file the controller keeps: one over its bound is damaged, not the user's doing.
      if (Option.isNone(text)) return yield* unreadableFile(`${name} is too large to read.`)
      return text.value
    })

    const readJson = (file: string, maxBytes: number) =>
      readBounded(file, maxBytes).pipe(Effect.flatMap((text) => parseJsonObject(path.basename(file), text)))

    /**
     * The file decoded with its Schema: one that does not decode is `UnreadableFile`, naming the file and
     * its first offending field.
     */
    const readDecoded = <A, I>(file: string, maxBytes: number, schema: Schema.Schema<A, I, never>) =>
      readJson(file, maxBytes).pipe(Effect.flatMap(decodeStored(file, schema)))

    /** Like `readDecoded`, but a missing file is `None` rather than an error. */
    const readDecodedOption = <A, I>(file: string, maxBytes: number, schema: Schema.Schema<A, I, never>) =>
      readJsonOption(file, maxBytes).pipe(
        Effect.flatMap(Option.match({
          onNone: () => Effect.succeed(Option.none<A>()),
          onSome: (value) => Effect.map(decodeStored(file, schema)(value), Option.some)
        }))
      )

    /** Like `readJson`, but a missing file is `None` rather than an error. */
    function readJsonOption(file: string, maxBytes: number) {
      return write(`Cannot read ${path.basename(file)}`, links.lstat(file)).pipe(
        Effect.flatMap(Option.match({
          onNone: () => Effect.succeed(Option.none<JsonObject>()),
          onSome: () => Effect.map(readJson(file, maxBytes), Option.some)
        }))
      )
    }

    /** The last `maxBytes` bytes of a text file (empty when it does not exist), cut at a line start. */
    const readTail = Effect.fn("FileStore.readTail")(function*(file: string, maxBytes: number) {
      return yield* read(`Cannot read ${path.basename(file)}`, links.readTail(file, maxBytes))
    })

    const realpathOption = (target: string) => Effect.option(fs.realPath(target))

    /**
     * Resolves `segments` below `root` and refuses anything that leaves it, lexically or through a
     * symlink. Segments that do not exist yet are allowed as long as their existing parent is inside.
     */
    const resolveInside = Effect.fn("FileStore.resolveInside")(function*(root: string, ...segments: string[]) {
      const candidate = path.resolve(root, ...segments)
      const outside = invalidArgument("The requested path is outside its root.")
      if (segments.some((segment) => segment.split(/[\\/]/).includes("..")) || !isInside(root, candidate)) {
        return yield* outside
      }
      // A path that cannot be resolved (missing, unreadable) is judged by its nearest resolvable parent.
      const realRoot = yield* realpathOption(root).pipe(Effect.map(Option.getOrElse(() => path.resolve(root))))
      let existing = candidate
      for (;;) {
        const real = Option.getOrUndefined(yield* realpathOption(existing))
        if (real !== undefined) {
          if (!isInside(realRoot, real)) return yield* outside
          break
        }
        const parent = path.dirname(existing)
        if (parent === existing) break
        existing = parent
      }
      return candidate
    })

    /** Uninterruptible inside: an interrupted write must not land after the next holder has read. */
    const withLock = <A, E, R>(file: string, effect: Effect.Effect<A, E, R>) =>
      lockFor(file).withPermits(1)(Effect.uninterruptible(effect))

    /** Serialised read-modify-write of a JSON object file. */
    const updateJson = <E, R>(
      file: string,
      maxBytes: number,
      update: (current: JsonObject) => Effect.Effect<JsonObject, E, R>
    ) =>
      withLock(
        file,
        readJson(file, maxBytes).pipe(
          Effect.flatMap(update),
          Effect.tap((next) => writeJson(file, next))
        )
      )

    /** Gives `from` the name `to` in one step (the same file system): what is at `to` is whole or not there. */
    const rename = (from: string, to: string) => write(`Cannot name ${path.basename(to)}`, fs.rename(from, to))

    /** Whether anything is at `file` (a link counts as itself); a missing file is `false`. */
    const exists = (file: string) => write(`Cannot look at ${path.basename(file)}`, Effect.map(links.lstat(file), Option.isSome))

    /** Whether `target` is a directory (following links); a missing one is `false`. */
    const isDirectory = (target: string) =>
      write(`Cannot look at ${path.basename(target)}`, Effect.map(orNone(fs.stat(target)), Option.exists((info) => info.type === "Directory")))

    /** The names of the directories in `directory` (links not followed); a missing directory has none. */
    const listDirectories = Effect.fn("FileStore.listDirectories")(function*(directory: string) {
      return yield* write(`Cannot list ${path.basename(directory)}`, orNone(fs.readDirectory(directory)).pipe(
        Effect.map(Option.getOrElse((): Array<string> => [])),
        Effect.flatMap((names) =>
          Effect.filter(names, (name) =>
            Effect.map(links.lstat(path.join(directory, name)), Option.exists((info) => info.type === "Directory"))))
      ))
    })

    /** The names in `directory` (files and folders alike); a missing directory has none. */
    const listNames = (directory: string) =>
      write(`Cannot list ${path.basename(directory)}`, Effect.map(orNone(fs.readDirectory(directory)), Option.getOrElse((): Array<string> => [])))

    /** What is at `target` itself (a final link not followed): `File`, `Directory`, `SymbolicLink`…; none when nothing is. */
    const linkType = (target: string) =>
      write(`Cannot look at ${path.basename(target)}`, Effect.map(links.lstat(target), Option.map((info) => info.type)))

    /** Copies `source` to `target` (its folders created), with the file's own contents and Node's default mode. */
    const copyFile = (source: string, target: string) =>
      write(`Cannot copy ${path.basename(source)}`, Effect.zipRight(
        fs.makeDirectory(path.dirname(target), { recursive: true }),
        fs.copyFile(source, target)
      ))

    /**
     * Writes `text` to `target` in place (its folders created, the process's default mode): for files of a workspace,
     * which an agent works on as it would in its own checkout, not for the controller's records.
     */
    const writeText = (target: string, text: string, mode?: number) =>
      write(`Cannot write ${path.basename(target)}`, Effect.zipRight(
        fs.makeDirectory(path.dirname(target), { recursive: true, ...(mode === undefined ? {} : { mode: 0o700 }) }),
        fs.writeFileString(target, text, mode === undefined ? {} : { mode })
      ))

    /** Appends `text` to a private file (created 0600), never through a symlink: a link could lead anywhere. */
    const appendText = Effect.fn("FileStore.appendText")(function*(file: string, text: string) {
      yield* write(`Cannot write ${path.basename(file)}`, links.append(file, text))
    })

    /** The size of what is at `file` without following a link (a link's own size), or none when nothing is. */
    const ownSize = (file: string) =>
      write(`Cannot look at ${path.basename(file)}`, Effect.map(links.lstat(file), Option.map((info) => info.size)))

    /** A file's size, modification time and inode, or none when it is not there. */
    const statOption = (file: string) =>
      write(`Cannot look at ${path.basename(file)}`, Effect.map(orNone(fs.stat(file)), Option.map((info): FileIdentity => ({
        size: Number(info.size),
        mtimeMs: Option.match(info.mtime, { onNone: () => 0, onSome: (date) => date.getTime() }),
        ino: Option.getOrElse(info.ino, () => 0)
      }))))

    const remove = (target: string) =>
      write(`Cannot remove ${path.basename(target)}`, fs.remove(target, { recursive: true, force: true }))

    /**
     * Where the file `name` of `root` really is: `Found` when it is a regular file whose real location is
     * inside `root` (links resolved), `Outside` when a link leads out or dangles, `Missing` otherwise.
     */
    const locateFileInside = (root: string, name: string) =>
      write(`Cannot look at ${name}`, Effect.gen(function*() {
        const realRoot = yield* fs.realPath(root)
        const candidate = path.join(root, name)
        const real = yield* fs.realPath(candidate).pipe(
          Effect.map(Option.some),
          Effect.catchIf((error) => codeOfFailure(error) === "ENOENT", () => Effect.succeed(Option.none<string>()))
        )
        if (Option.isNone(real)) return Option.isSome(yield* links.lstat(candidate)) ? { _tag: "Outside" } as const : { _tag: "Missing" } as const
        if (!isInside(realRoot, real.value)) return { _tag: "Outside" } as const
        const info = yield* fs.stat(real.value)
        return info.type === "File" ? { _tag: "Found", path: real.value, size: Number(info.size) } as const : { _tag: "Missing" } as const
      }))

    /** The real path of `target` (links resolved); `None` when it does not exist. */
    const realPath = (target: string) => write(`Cannot resolve ${path.basename(target)}`, orNone(fs.realPath(target)))

    /** A fresh private directory `<parent>/<prefix>XXXXXX`, removed with everything in it when the scope closes. */
    const temporaryDirectory = (parent: string, prefix: string) =>
      Effect.acquireRelease(
        write(`Cannot create a temporary directory in ${parent}`, fs.makeTempDirectory({ directory: parent, prefix })),
        (directory) => Effect.catchAll(remove(directory), (error) => Effect.logWarning(error.message))
      )

    const temporaryRoots = makeTemporaryRoots(fs, links)

    /**
     * This process's private folder in the system's temporary directory (made on first use, its owner
     * recorded so that a later controller removes it once this process is gone).
     */
    const privateTemporaryRoot = () => write("Cannot create the private temporary folder", temporaryRoots.current)

    return {
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
      ownSize,
      readTail,
      resolveInside,
      withLock,
      updateJson,
      exists,
      rename,
      isDirectory,
      listDirectories,
      listNames,
      linkType,
      copyFile,
      writeText,
      statOption,
      appendText,
      temporaryDirectory,
      privateTemporaryRoot,
      realPath,
      locateFileInside,
      remove
    } as const
  }),
  dependencies: [NodeFilesLive]
}) {}
