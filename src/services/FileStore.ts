import { Effect, Option } from "effect"
import { randomBytes } from "node:crypto"
import { createReadStream } from "node:fs"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { controllerError, ControllerError, notFound, StorageError } from "../domain/errors.js"

export type JsonObject = Record<string, unknown>

/** Nothing there, or a file where a directory of the path should be (`runs/notes.txt/…`). */
const isMissing = (error: unknown) => {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined
  return code === "ENOENT" || code === "ENOTDIR"
}

const isSymlinkRefusal = (error: unknown) =>
  typeof error === "object" && error !== null && (error as { code?: unknown }).code === "ELOOP"

/**
 * Opens a file without following a symlink as its last component (`O_NOFOLLOW`): files of run
 * directories are never read or appended through a link, which could lead anywhere (SPEC §2).
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

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error))

const storageError = (what: string, error: unknown) => new StorageError({ message: `${what}: ${describe(error)}` })

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
            ? notFound(`${what}: ${describe(error)}`)
            : isSymlinkRefusal(error) || (error as { code?: unknown }).code === "ENOTREGULAR"
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

    const parseObject = (name: string, text: string): Effect.Effect<JsonObject, ControllerError> =>
      Effect.try({
        try: () => JSON.parse(text) as unknown,
        catch: () => controllerError(`${name} does not contain valid JSON.`)
      }).pipe(
        Effect.filterOrFail(
          (value): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value),
          () => controllerError(`${name} does not contain an object.`)
        )
      )

    const readJson = (file: string, maxBytes: number) =>
      readBounded(file, maxBytes).pipe(Effect.flatMap((text) => parseObject(path.basename(file), text)))

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
      const realRoot = yield* Effect.promise(() => fs.realpath(root).catch(() => path.resolve(root)))
      let existing = candidate
      for (;;) {
        const real = yield* Effect.promise(() => fs.realpath(existing).then((value) => value, () => undefined))
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

    const exists = (file: string) =>
      Effect.promise(() => fs.lstat(file).then(() => true, () => false))

    const isDirectory = (target: string) =>
      Effect.promise(() => fs.stat(target).then((stat) => stat.isDirectory(), () => false))

    const listDirectories = Effect.fn("FileStore.listDirectories")(function*(directory: string) {
      return yield* Effect.promise(() =>
        fs.readdir(directory, { withFileTypes: true }).then(
          (entries) => entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name),
          () => [] as string[]
        )
      )
    })

    const remove = (target: string) =>
      write(`Cannot remove ${path.basename(target)}`, () => fs.rm(target, { recursive: true, force: true }))

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
      isDirectory,
      listDirectories,
      remove
    } as const
  }
}) {}
