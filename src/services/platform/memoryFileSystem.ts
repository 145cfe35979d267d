import { SystemError, type SystemErrorReason } from "@effect/platform/Error"
import * as FileSystem from "@effect/platform/FileSystem"
import { Effect, Layer, Option } from "effect"
import * as path from "node:path"
import { LinkSafeFiles } from "./LinkSafeFiles.js"

/**
 * An in-memory file system for tests: `FileSystem.layerNoop` with the operations `FileStore` uses over a map of
 * absolute paths, and `LinkSafeFiles` over the same map (it holds no links, so nothing is ever followed).
 */

type Entry =
  | { readonly type: "File"; data: Uint8Array; mode: number; mtime: Date; readonly ino: number }
  | { readonly type: "Directory"; mode: number; mtime: Date; readonly ino: number }

const CODES: Record<SystemErrorReason, string> = {
  NotFound: "ENOENT",
  AlreadyExists: "EEXIST",
  BadResource: "ENOTDIR",
  PermissionDenied: "EACCES",
  Busy: "EBUSY",
  InvalidData: "EINVAL",
  TimedOut: "ETIMEDOUT",
  UnexpectedEof: "EIO",
  Unknown: "EIO",
  WouldBlock: "EAGAIN",
  WriteZero: "EIO"
}

const failure = (reason: SystemErrorReason, method: string, file: string) =>
  new SystemError({
    reason,
    module: "FileSystem",
    method,
    pathOrDescriptor: file,
    description: `${CODES[reason]}: ${method} '${file}'`,
    cause: Object.assign(new Error(`${CODES[reason]}: ${method} '${file}'`), { code: CODES[reason] })
  })

const encoder = new TextEncoder()
const decoder = new TextDecoder()

/** The file system's state: what a test may look at directly. */
export interface MemoryFiles {
  readonly entries: Map<string, Entry>
}

export const makeMemoryFileSystem = (): { readonly fileSystem: FileSystem.FileSystem; readonly linkSafe: LinkSafeFiles["Type"]; readonly state: MemoryFiles } => {
  const entries = new Map<string, Entry>([["/", { type: "Directory", mode: 0o755, mtime: new Date(0), ino: 1 }]])
  let nextIno = 2
  let nextTemp = 0
  const key = (file: string) => path.resolve("/", file)
  const get = (method: string, file: string) =>
    Effect.suspend(() => {
      const entry = entries.get(key(file))
      return entry === undefined ? Effect.fail(failure("NotFound", method, file)) : Effect.succeed(entry)
    })
  const parentIsDirectory = (method: string, file: string) =>
    Effect.flatMap(get(method, path.dirname(key(file))), (parent) =>
      parent.type === "Directory" ? Effect.void : Effect.fail(failure("BadResource", method, file)))
  const childrenOf = (directory: string) =>
    [...entries.keys()].filter((name) => name !== directory && path.dirname(name) === directory)

  const makeDirectory = (file: string, options?: FileSystem.MakeDirectoryOptions): Effect.Effect<void, SystemError> =>
    Effect.suspend(() => {
      const target = key(file)
      const existing = entries.get(target)
      if (existing !== undefined) {
        return options?.recursive === true && existing.type === "Directory" ? Effect.void : Effect.fail(failure("AlreadyExists", "makeDirectory", file))
      }
      const parent = path.dirname(target)
      const ensureParent = options?.recursive === true && !entries.has(parent) ? makeDirectory(parent, options) : Effect.void
      return ensureParent.pipe(
        Effect.zipRight(parentIsDirectory("makeDirectory", file)),
        Effect.tap(() => entries.set(target, { type: "Directory", mode: options?.mode ?? 0o755, mtime: new Date(), ino: nextIno++ }))
      )
    })

  const writeFile = (file: string, data: Uint8Array, options?: FileSystem.WriteFileOptions) =>
    parentIsDirectory("writeFile", file).pipe(Effect.flatMap(() => {
      const target = key(file)
      const existing = entries.get(target)
      if (existing !== undefined && options?.flag?.includes("x") === true) return Effect.fail(failure("AlreadyExists", "writeFile", file))
      if (existing?.type === "Directory") return Effect.fail(failure("BadResource", "writeFile", file))
      const appended = options?.flag?.startsWith("a") === true && existing?.type === "File" ? new Uint8Array([...existing.data, ...data]) : data
      entries.set(target, { type: "File", data: appended, mode: existing?.mode ?? options?.mode ?? 0o644, mtime: new Date(), ino: existing?.ino ?? nextIno++ })
      return Effect.void
    }))

  const remove = (file: string, options?: FileSystem.RemoveOptions): Effect.Effect<void, SystemError> =>
    Effect.suspend(() => {
      const target = key(file)
      const entry = entries.get(target)
      if (entry === undefined) return options?.force === true ? Effect.void : Effect.fail(failure("NotFound", "remove", file))
      const below = [...entries.keys()].filter((name) => name.startsWith(`${target}/`))
      if (below.length > 0 && options?.recursive !== true) return Effect.fail(failure("Busy", "remove", file))
      for (const name of [target, ...below]) entries.delete(name)
      return Effect.void
    })

  const info = (entry: Entry): FileSystem.File.Info => ({
    type: entry.type,
    mtime: Option.some(entry.mtime),
    atime: Option.some(entry.mtime),
    birthtime: Option.some(entry.mtime),
    dev: 1,
    ino: Option.some(entry.ino),
    mode: entry.mode,
    nlink: Option.some(1),
    uid: Option.some(0),
    gid: Option.some(0),
    rdev: Option.none(),
    size: FileSystem.Size(entry.type === "File" ? entry.data.length : 0),
    blksize: Option.none(),
    blocks: Option.none()
  })

  const fileSystem = FileSystem.makeNoop({
    access: (file) => Effect.asVoid(get("access", file)),
    exists: (file) => Effect.sync(() => entries.has(key(file))),
    chmod: (file, mode) => Effect.map(get("chmod", file), (entry) => void (entry.mode = mode)),
    makeDirectory,
    makeTempDirectory: (options) =>
      Effect.suspend(() => {
        const directory = path.join(options?.directory ?? "/tmp", `${options?.prefix ?? ""}${String(nextTemp++).padStart(6, "0")}`)
        return Effect.as(makeDirectory(directory, { mode: 0o700 }), directory)
      }),
    readDirectory: (file) =>
      Effect.flatMap(get("readDirectory", file), (entry) =>
        entry.type === "Directory" ? Effect.succeed(childrenOf(key(file)).map((name) => path.basename(name))) : Effect.fail(failure("BadResource", "readDirectory", file))),
    readFile: (file) =>
      Effect.flatMap(get("readFile", file), (entry) => entry.type === "File" ? Effect.succeed(entry.data) : Effect.fail(failure("BadResource", "readFile", file))),
    readFileString: (file) =>
      Effect.flatMap(get("readFile", file), (entry) => entry.type === "File" ? Effect.succeed(decoder.decode(entry.data)) : Effect.fail(failure("BadResource", "readFile", file))),
    realPath: (file) => Effect.as(get("realPath", file), key(file)),
    remove,
    rename: (from, to) =>
      Effect.flatMap(get("rename", from), (entry) =>
        Effect.flatMap(parentIsDirectory("rename", to), () =>
          Effect.sync(() => {
            const source = key(from)
            const target = key(to)
            const moved = [...entries.entries()].filter(([name]) => name === source || name.startsWith(`${source}/`))
            for (const [name] of moved) entries.delete(name)
            for (const name of [...entries.keys()].filter((name) => name.startsWith(`${target}/`))) entries.delete(name)
            entries.set(target, entry)
            for (const [name, below] of moved) if (name !== source) entries.set(target + name.slice(source.length), below)
          })
        )),
    link: (from, to) =>
      Effect.flatMap(get("link", from), (entry) =>
        entries.has(key(to)) ? Effect.fail(failure("AlreadyExists", "link", to)) : Effect.map(parentIsDirectory("link", to), () => void entries.set(key(to), entry))),
    stat: (file) => Effect.map(get("stat", file), info),
    copyFile: (from, to) =>
      Effect.flatMap(get("copyFile", from), (entry) =>
        entry.type === "File" ? writeFile(to, entry.data) : Effect.fail(failure("BadResource", "copyFile", from))),
    writeFile,
    writeFileString: (file, text, options) => writeFile(file, encoder.encode(text), options)
  })

  const linkSafe = LinkSafeFiles.of({
    lstat: (file) => Effect.sync(() => Option.map(Option.fromNullable(entries.get(key(file))), (entry) => ({ type: entry.type, uid: 0, size: entry.type === "File" ? entry.data.length : 0 }))),
    readRegular: (file, maxBytes) =>
      Effect.flatMap(get("readRegular", file), (entry) =>
        entry.type !== "File"
          ? Effect.fail(failure("BadResource", "readRegular", file))
          : Effect.succeed(entry.data.length > maxBytes ? Option.none() : Option.some(decoder.decode(entry.data)))),
    readTail: (file, maxBytes) =>
      Effect.sync(() => {
        const entry = entries.get(key(file))
        if (entry?.type !== "File") return ""
        const text = decoder.decode(entry.data.slice(Math.max(0, entry.data.length - maxBytes)))
        if (entry.data.length <= maxBytes) return text
        const newline = text.indexOf("\n")
        return newline >= 0 ? text.slice(newline + 1) : text
      }),
    append: (file, text) => writeFile(file, encoder.encode(text), { flag: "a", mode: 0o600 }),
    isExecutable: () => Effect.succeed(false)
  })

  return { fileSystem, linkSafe, state: { entries } }
}

/** A fresh in-memory `FileSystem` and `LinkSafeFiles` for one test layer. */
export const MemoryFileSystemLive = Layer.unwrapEffect(Effect.sync(() => {
  const { fileSystem, linkSafe } = makeMemoryFileSystem()
  return Layer.merge(Layer.succeed(FileSystem.FileSystem, fileSystem), Layer.succeed(LinkSafeFiles, linkSafe))
}))
