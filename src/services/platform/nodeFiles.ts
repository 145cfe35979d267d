import { SystemError, type SystemErrorReason } from "@effect/platform/Error"
import { Effect, Layer, Option } from "effect"
import { closeSync, createReadStream, fstatSync, openSync, readdirSync, readFileSync } from "node:fs"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { errnoOf, isMissing } from "../../domain/ioErrors.js"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import { LinkSafeFiles } from "./LinkSafeFiles.js"

/**
 * The Node adapter for files: the `O_NOFOLLOW` operations `FileSystem` lacks, and the few synchronous reads made
 * once at a boundary (the package's own files at module load, a handed-over descriptor). Everything else goes
 * through `FileStore` over `@effect/platform-node`'s `NodeFileSystem`.
 */

const REASONS: Record<string, SystemErrorReason> = {
  ENOENT: "NotFound",
  EACCES: "PermissionDenied",
  EPERM: "PermissionDenied",
  EEXIST: "AlreadyExists",
  EISDIR: "BadResource",
  ENOTDIR: "BadResource",
  ELOOP: "BadResource",
  ENOTREGULAR: "BadResource",
  EBUSY: "Busy"
}

const attempt = <A>(method: string, file: string, run: () => Promise<A>) =>
  Effect.tryPromise({
    try: run,
    catch: (error) =>
      new SystemError({
        reason: REASONS[errnoOf(error) ?? ""] ?? "Unknown",
        module: "FileSystem",
        method,
        pathOrDescriptor: file,
        description: error instanceof Error ? error.message : String(error),
        cause: error
      })
  })

/**
 * Never through a link, and never blocking: opening a FIFO planted where a file belongs would wait for a writer (or
 * a reader) on one of libuv's few threads, and with them every other file operation of the daemon. A regular file
 * ignores `O_NONBLOCK`; anything else is refused once open (`ENOTREGULAR`).
 */
const READ_NO_FOLLOW = fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK
const APPEND_NO_FOLLOW = fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT | fs.constants.O_NOFOLLOW |
  fs.constants.O_NONBLOCK

const notRegular = (file: string) =>
  Object.assign(new Error(`${path.basename(file)} is not a regular file`), { code: "ENOTREGULAR" })

/** A directory is refused as reading one fails (EISDIR); a FIFO, socket or device as not a regular file. */
const refuseUnlessFile = (file: string, stat: import("node:fs").Stats) => {
  if (stat.isFile()) return
  if (stat.isDirectory()) throw Object.assign(new Error(`EISDIR: illegal operation on a directory, read`), { code: "EISDIR" })
  throw notRegular(file)
}

/** Opens `file` with `flags`; a socket, or a FIFO nobody reads, refuses to open (`ENXIO`): not a regular file. */
const openPlain = (file: string, flags: number, mode?: number) =>
  fs.open(file, flags, mode).catch((error: unknown) => {
    throw errnoOf(error) === "ENXIO" ? notRegular(file) : error
  })

const readRegular = async (file: string, maxBytes: number): Promise<Option.Option<string>> => {
  const handle = await openPlain(file, READ_NO_FOLLOW)
  try {
    const stat = await handle.stat()
    refuseUnlessFile(file, stat)
    if (stat.size > maxBytes) return Option.none()
    return Option.some(await handle.readFile("utf8"))
  } finally {
    await handle.close()
  }
}

const readTail = async (file: string, maxBytes: number): Promise<string> => {
  let handle: fs.FileHandle
  try {
    handle = await openPlain(file, READ_NO_FOLLOW)
  } catch (error) {
    if (isMissing(error)) return ""
    throw error
  }
  try {
    const stat = await handle.stat()
    refuseUnlessFile(file, stat)
    const size = stat.size
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
}

const typeOf = (stat: import("node:fs").Stats) =>
  stat.isFile() ? "File" : stat.isDirectory() ? "Directory" : stat.isSymbolicLink() ? "SymbolicLink" : "Unknown"

/** `LinkSafeFiles` on Node. */
export const NodeLinkSafeFilesLive = Layer.succeed(LinkSafeFiles, LinkSafeFiles.of({
  lstat: (file) =>
    attempt("lstat", file, () =>
      fs.lstat(file).then(
        (stat) => Option.some({ type: typeOf(stat), uid: stat.uid, size: stat.size } as const),
        (error: unknown) => {
          if (isMissing(error)) return Option.none()
          throw error
        }
      )),
  readRegular: (file, maxBytes) => attempt("readRegular", file, () => readRegular(file, maxBytes)),
  readTail: (file, maxBytes) => attempt("readTail", file, () => readTail(file, maxBytes)),
  append: (file, text) =>
    attempt("append", file, async () => {
      const handle = await openPlain(file, APPEND_NO_FOLLOW, 0o600)
      try {
        refuseUnlessFile(file, await handle.stat())
        await handle.appendFile(text)
      } finally {
        await handle.close()
      }
    }),
  isExecutable: (file) =>
    Effect.promise(async () => {
      try {
        const stat = await fs.stat(file)
        await fs.access(file, fs.constants.X_OK)
        return stat.isFile()
      } catch {
        return false
      }
    })
}))

/** A read stream opened with `O_NOFOLLOW` (Node takes numeric open flags here; its types say string). */
export const readStreamNoFollow = (file: string) =>
  createReadStream(file, { flags: READ_NO_FOLLOW as unknown as string })

/** A file read once at a boundary (module load, start-up), synchronously. */
export const readFileAtBoundary = (file: string | URL): Buffer => readFileSync(file)

/** The names in a folder read once at a boundary, synchronously. */
export const listFolderAtBoundary = (folder: string): Array<string> => readdirSync(folder)

/**
 * Runs `use` with a descriptor of `file` opened for appending (created 0600), closed afterwards: the output a
 * detached child is handed, which keeps its own copy.
 */
export const withAppendDescriptor = <A>(file: string, use: (fd: number) => A): A => {
  const fd = openSync(file, "a", 0o600)
  try {
    return use(fd)
  } finally {
    closeSync(fd)
  }
}

/** Whether `fd` is an open socket (a launcher's reserved listener); anything else, or nothing, is not. */
export const isSocketDescriptor = (fd: number) => {
  try {
    return fstatSync(fd).isSocket()
  } catch {
    return false
  }
}

/** Node's `FileSystem` and `LinkSafeFiles`: what `FileStore` and the worker's checks run on in production. */
export const NodeFilesLive = Layer.merge(NodeFileSystem.layer, NodeLinkSafeFilesLive)
