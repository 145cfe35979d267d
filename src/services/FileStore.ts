import { Effect, Option } from "effect"
import { randomBytes } from "node:crypto"
import { createReadStream } from "node:fs"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { controllerError, ControllerError, notFound, StorageError } from "../domain/errors.js"
import { describeError, errnoOf, isMissing } from "../domain/ioErrors.js"
import { existsPath, isDirectoryPath } from "./internal/paths.js"
import { temporaryRoot } from "./internal/temporaryRoot.js"

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

const isSymlinkRefusal = (error: unknown) => errnoOf(error) === "ELOOP"

/**
 * Opens a file without following a symlink as its last component (`O_NOFOLLOW`): files of run
 * directories are never read or appended through a link, which could lead anywhere (README.md#configuration).
 */
export const openNoFollow = (file: string, flags: number, mode?: number) =>
  fs.open(file, flags | fs.constants.O_NOFOLLOW, mode)

export const READ_NO_FOLLOW = fs.constants.O_RDONLY

/** A read stream opened with `O_NOFOLLOW` (Node takes numeric open flags here; its types say string). */
export const readStreamNoFollow = (file: string) =>
  createReadStream(file, { flags: (fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW) as unknown as string })
export const APPEND_NO_FOLLOW = fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT

/** Reads a whole regular file opened with `O_NOFOLLOW`; larger than `maxBytes` is `undefined`. */
const readRegularFile = async (file: string, maxBytes: number): Promise<string | undefined> => {
  const handle = await openNoFollow(file, READ_NO_FOLLOW)
  try {
    const stat = await handle.stat()
    if (!stat.isFile()) throw Object.assign(new Error(`${path.basename(file)} is not a regular file`), { code: "ENOTREGULAR" })
    if (stat.size > maxBytes) return undefined
    return await handle.readFile("utf8")
  } finally {
    await handle.close()
  }
}

const storageError = (what: string, error: unknown) => new StorageError({ message: `${what}: ${describeError(error)}` })

/** The JSON object in the text of the file `name`, or why it is not one. */
export const parseJsonObject = (name: string, text: string): Effect.Effect<JsonObject, ControllerError> =>
  Effect.try({
    try: () => JSON.parse(text) as unknown,
    catch: () => controllerError(`${name} does not contain valid JSON.`)
  }).pipe(
    Effect.filterOrFail(
      (value): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value),
      () => controllerError(`${name} does not contain an object.`)
    )
  )

/** Lexical containment: `candidate` equals `root` or lies below it. */
export const isInside = (root: string, candidate: string) => {
  const relative = path.relative(root, candidate)
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative))
}

/**
 * Private files on disk: atomic JSON writes (temp file + rename, 0600), bounded reads, per-path
 * serialisation of read-modify-write cycles, and containment checks that also follow symlinks.
 */
export class FileStore extends Effect.Service<FileStore>()("codex-replay/FileStore", {
  sync: () => {
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

    const write = <A>(what: string, run: () => Promise<A>) =>
      Effect.tryPromise({ try: run, catch: (error) => storageError(what, error) })

    /** A file that is not there is the caller's to explain; any other failure to read is the machine's. */
    const read = <A>(what: string, run: () => Promise<A>) =>
      Effect.tryPromise({
        try: run,
        catch: (error): ControllerError | StorageError =>
          isMissing(error)
            ? notFound(`${what}: ${describeError(error)}`)
            : isSymlinkRefusal(error) || errnoOf(error) === "ENOTREGULAR"
            ? controllerError(`${what}: it is a symbolic link or not a regular file, which is never followed.`)
            : storageError(what, error)
      })

    const ensurePrivateDirectory = Effect.fn("FileStore.ensurePrivateDirectory")(function*(directory: string) {
      yield* write(`Cannot create ${directory}`, async () => {
        await fs.mkdir(directory, { recursive: true, mode: 0o700 })
        await fs.chmod(directory, 0o700)
      })
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
        const target = current
        yield* write(`Cannot create ${segment}`, async () => {
          await fs.mkdir(target, { mode: 0o700 }).catch((error: NodeJS.ErrnoException) => {
            if (error.code !== "EEXIST") throw error
          })
          const stat = await fs.lstat(target)
          if (!stat.isDirectory()) throw new Error("it is a symbolic link or not a directory, which is never followed")
          await fs.chmod(target, 0o700)
        })
      }
    })

    const writeTextAtomic = Effect.fn("FileStore.writeTextAtomic")(function*(file: string, text: string) {
      yield* write(`Cannot create ${path.dirname(file)}`, () =>
        fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 }))
      const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString("hex")}.tmp`)
      yield* write(`Cannot write ${path.basename(file)}`, async () => {
        try {
          await fs.writeFile(temporary, text, { flag: "wx", mode: 0o600 })
          await fs.rename(temporary, file)
        } finally {
          await fs.rm(temporary, { force: true })
        }
      })
    })

    const writeJson = (file: string, value: unknown) =>
      writeTextAtomic(file, `${JSON.stringify(value, null, 2)}\n`)

    /** Creates `file` with `value` only if it does not exist yet; answers whether it did. Atomic. */
    const createJsonExclusive = Effect.fn("FileStore.createJsonExclusive")(function*(file: string, value: unknown) {
      const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString("hex")}.tmp`)
      return yield* write(`Cannot write ${path.basename(file)}`, async () => {
        try {
          await fs.writeFile(temporary, `${JSON.stringify(value, null, 2)}\n`, { flag: "wx", mode: 0o600 })
          await fs.link(temporary, file)
          return true
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === "EEXIST") return false
          throw error
        } finally {
          await fs.rm(temporary, { force: true })
        }
      })
    })

    const readBounded = Effect.fn("FileStore.readBounded")(function*(file: string, maxBytes: number) {
      const name = path.basename(file)
      const text = yield* read(`Cannot read ${name}`, () => readRegularFile(file, maxBytes))
      if (text === undefined) return yield* controllerError(`${name} is too large to read.`)
      return text
    })

    const readJson = (file: string, maxBytes: number) =>
      readBounded(file, maxBytes).pipe(Effect.flatMap((text) => parseJsonObject(path.basename(file), text)))

    /** Like `readJson`, but a missing file is `None` rather than an error. */
    const readJsonOption = (file: string, maxBytes: number) =>
      Effect.tryPromise(() => fs.lstat(file)).pipe(
        Effect.matchEffect({
          onFailure: (error) =>
            isMissing(error.error)
              ? Effect.succeed(Option.none<JsonObject>())
              : Effect.fail(storageError(`Cannot read ${path.basename(file)}`, error.error)),
          onSuccess: () => Effect.map(readJson(file, maxBytes), Option.some)
        })
      )

    /** The last `maxBytes` bytes of a text file (empty when it does not exist), cut at a line start. */
    const readTail = Effect.fn("FileStore.readTail")(function*(file: string, maxBytes: number) {
      return yield* read(`Cannot read ${path.basename(file)}`, async () => {
        let handle: fs.FileHandle
        try {
          handle = await openNoFollow(file, READ_NO_FOLLOW)
        } catch (error) {
          if (isMissing(error)) return ""
          throw error
        }
        try {
          const { size } = await handle.stat()
          const length = Math.min(size, maxBytes)
          const buffer = Buffer.alloc(length)
          await handle.read(buffer, 0, length, size - length)
          const text = buffer.toString("utf8")
          if (length === size) return text
          const newline = text.indexOf("\n")
          return newline >= 0 ? text.slice(newline + 1) : text
        } finally {
          await handle.close()
        }
      })
    })

    const realpathOption = (target: string) => Effect.option(Effect.tryPromise(() => fs.realpath(target)))

    /**
     * Resolves `segments` below `root` and refuses anything that leaves it, lexically or through a
     * symlink. Segments that do not exist yet are allowed as long as their existing parent is inside.
     */
    const resolveInside = Effect.fn("FileStore.resolveInside")(function*(root: string, ...segments: string[]) {
      const candidate = path.resolve(root, ...segments)
      const outside = controllerError("The requested path is outside its root.")
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
    const rename = (from: string, to: string) => write(`Cannot name ${path.basename(to)}`, () => fs.rename(from, to))

    /** Whether anything is at `file` (a link counts as itself); a missing file is `false`. */
    const exists = (file: string) => write(`Cannot look at ${path.basename(file)}`, () => existsPath(file))

    /** Whether `target` is a directory (following links); a missing one is `false`. */
    const isDirectory = (target: string) => write(`Cannot look at ${path.basename(target)}`, () => isDirectoryPath(target))

    /** The names of the directories in `directory`; a missing directory has none. */
    const listDirectories = Effect.fn("FileStore.listDirectories")(function*(directory: string) {
      return yield* write(`Cannot list ${path.basename(directory)}`, () =>
        fs.readdir(directory, { withFileTypes: true }).then(
          (entries) => entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name),
          (error: unknown) => {
            if (isMissing(error)) return [] as Array<string>
            throw error
          }
        ))
    })

    /** Appends `text` to a private file (created 0600), never through a symlink: a link could lead anywhere. */
    const appendText = Effect.fn("FileStore.appendText")(function*(file: string, text: string) {
      yield* write(`Cannot write ${path.basename(file)}`, async () => {
        const handle = await openNoFollow(file, APPEND_NO_FOLLOW, 0o600)
        try {
          await handle.appendFile(text)
        } finally {
          await handle.close()
        }
      })
    })

    /** A file's size, modification time and inode, or none when it is not there. */
    const statOption = (file: string) =>
      write(`Cannot look at ${path.basename(file)}`, () =>
        fs.stat(file).then(
          (stat) => Option.some<FileIdentity>({ size: stat.size, mtimeMs: stat.mtimeMs, ino: stat.ino }),
          (error: unknown) => {
            if (isMissing(error)) return Option.none<FileIdentity>()
            throw error
          }
        ))

    const remove = (target: string) =>
      write(`Cannot remove ${path.basename(target)}`, () => fs.rm(target, { recursive: true, force: true }))

    /**
     * Where the file `name` of `root` really is: `Found` when it is a regular file whose real location is
     * inside `root` (links resolved), `Outside` when a link leads out or dangles, `Missing` otherwise.
     */
    const locateFileInside = (root: string, name: string) =>
      write(`Cannot look at ${name}`, async (): Promise<LocatedFile> => {
        const realRoot = await fs.realpath(root)
        const candidate = path.join(root, name)
        const real = await fs.realpath(candidate).catch((error: unknown) => {
          if (errnoOf(error) !== "ENOENT") throw error
          return undefined
        })
        if (real === undefined) return (await existsPath(candidate)) ? { _tag: "Outside" } : { _tag: "Missing" }
        if (!isInside(realRoot, real)) return { _tag: "Outside" }
        const stat = await fs.stat(real)
        return stat.isFile() ? { _tag: "Found", path: real, size: stat.size } : { _tag: "Missing" }
      })

    /** The real path of `target` (links resolved); `None` when it does not exist. */
    const realPath = (target: string) =>
      write(`Cannot resolve ${path.basename(target)}`, () =>
        fs.realpath(target).then(Option.some, (error: unknown) => {
          if (isMissing(error)) return Option.none<string>()
          throw error
        }))

    /** A fresh private directory `<parent>/<prefix>XXXXXX`, removed with everything in it when the scope closes. */
    const temporaryDirectory = (parent: string, prefix: string) =>
      Effect.acquireRelease(
        write(`Cannot create a temporary directory in ${parent}`, () => fs.mkdtemp(path.join(parent, prefix))),
        (directory) => Effect.catchAll(remove(directory), (error) => Effect.logWarning(error.message))
      )

    /**
     * This process's private folder in the system's temporary directory (made on first use, its owner
     * recorded so that a later controller removes it once this process is gone).
     */
    const privateTemporaryRoot = () => write("Cannot create the private temporary folder", temporaryRoot)

    return {
      ensurePrivateDirectory,
      ensurePrivateDirectoryInside,
      writeTextAtomic,
      writeJson,
      createJsonExclusive,
      readBounded,
      readJson,
      readJsonOption,
      readTail,
      resolveInside,
      withLock,
      updateJson,
      exists,
      rename,
      isDirectory,
      listDirectories,
      statOption,
      appendText,
      temporaryDirectory,
      privateTemporaryRoot,
      realPath,
      locateFileInside,
      remove
    } as const
  }
}) {}
