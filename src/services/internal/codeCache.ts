import { createHash, randomBytes } from "node:crypto"
import * as fs from "node:fs"
import { createRequire, Module } from "node:module"
import * as path from "node:path"
import * as vm from "node:vm"
import { cacheRootOf, type Environment, indexDirectory, runRootOf } from "../../domain/cacheRoot.js"

/**
 * V8's code cache for the listing's CommonJS bundle (`dist/bundle/listing.cjs`). Node 20 compiles an ES
 * module from its source on every start; a script given the bytecode of its last run skips parsing and
 * compiling the functions that run compiled (most of a listing answered from the thread index).
 *
 * The cache is private (0600, in the 0700 index folder), keyed by the bundle's hash and checked by its own:
 * a cache of another build, a damaged one, one that others could have written, or one V8 refuses (another
 * Node, other flags) is not used and is written again when the command succeeds. It never changes what the command does, only how fast it starts.
 *
 * The build ships one beside the bundle (`listing-code-v1.bin`, made by scripts/bundle.js with the Node that
 * built it), so that even the first listing skips compiling: it is used when the user has none, and trusted as
 * far as the bundle is (the same owner, and no one else may write it).
 */

// v2's header is 96 bytes, so that the bytecode starts 8-byte aligned: V8 copies cached data that is not (the
// 1.6 MB of v1, whose header was 91). The file keeps its name, so that a v1 cache is replaced rather than left.
const MAGIC = Buffer.from(`${"codex-replay code cache v2".padEnd(31)}\n`)
const HASH_BYTES = 32
const HEADER_BYTES = MAGIC.length + 2 * HASH_BYTES

const CACHE_NAME = "listing-code-v1.bin"

export const codeCachePath = (env: Environment, home: string) =>
  path.join(indexDirectory(cacheRootOf(runRootOf(env, home))), CACHE_NAME)

/** The cache the build made for a bundle, beside it. */
export const shippedCodeCachePath = (bundleFile: string) => path.join(path.dirname(bundleFile), CACHE_NAME)

const sha256 = (data: Buffer) => createHash("sha256").update(data).digest()

/**
 * Only a cache that `uid` owns (this user for their own cache, the bundle's owner for the shipped one) and no
 * one else can change is run: its bytecode is code. (The hashes are not secret; they tell a damaged cache, not
 * a planted one.)
 */
const ownedBy = (uid: number | undefined) => (stat: fs.Stats) =>
  (stat.mode & 0o022) === 0 && (uid === undefined || stat.uid === uid)

/** The cached bytecode of this bundle, or undefined when there is none that can be trusted. */
const readCodeCache = (file: string, bundleHash: Buffer, trusted: (stat: fs.Stats) => boolean): Buffer | undefined => {
  let content: Buffer
  try {
    const descriptor = fs.openSync(file, "r")
    try {
      const stat = fs.fstatSync(descriptor)
      if (!trusted(stat) || stat.size <= HEADER_BYTES) return undefined
      content = Buffer.allocUnsafe(stat.size)
      // The header first: a cache of another build or format (one left from before an upgrade) is not read whole.
      if (!readFully(descriptor, content, 0, HEADER_BYTES) || !isThisBuilds(content, bundleHash)) return undefined
      if (!readFully(descriptor, content, HEADER_BYTES, stat.size)) return undefined
    } finally {
      fs.closeSync(descriptor)
    }
  } catch {
    return undefined
  }
  const payload = content.subarray(HEADER_BYTES)
  return content.subarray(MAGIC.length + HASH_BYTES, HEADER_BYTES).equals(sha256(payload)) ? payload : undefined
}

/** Bytes `from` to `to` of the file into the same bytes of `content`; false when the file ends before. */
const readFully = (descriptor: number, content: Buffer, from: number, to: number) =>
  fs.readSync(descriptor, content, from, to - from, from) === to - from

const isThisBuilds = (content: Buffer, bundleHash: Buffer) =>
  content.subarray(0, MAGIC.length).equals(MAGIC) &&
  content.subarray(MAGIC.length, MAGIC.length + HASH_BYTES).equals(bundleHash)

/** Written like the thread index: a private temporary file, then a rename. A failure only costs speed. */
const writeCodeCache = (file: string, bundleHash: Buffer, payload: Buffer) => {
  const temporary = `${file}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 })
    fs.writeFileSync(temporary, Buffer.concat([MAGIC, bundleHash, sha256(payload), payload]), { mode: 0o600, flag: "wx" })
    fs.renameSync(temporary, file)
  } catch {
    try {
      fs.rmSync(temporary, { force: true })
    } catch {
      // The folder itself is unusable: nothing was left in it.
    }
  }
}

/**
 * Runs a CommonJS bundle as Node's loader would, with the user's code cache or else the shipped one; answers
 * which it used. A bundle run without a usable cache writes the user's when the process exits with 0, so that
 * the bytecode of every function it ran is in it.
 */
export const runWithCodeCache = (bundleFile: string, cacheFile: string): "cached" | "shipped" | "compiled" => {
  const source = fs.readFileSync(bundleFile)
  const bundleHash = sha256(source)
  const own = readCodeCache(cacheFile, bundleHash, ownedBy(process.getuid?.()))
  const cachedData = own ??
    readCodeCache(shippedCodeCachePath(bundleFile), bundleHash, ownedBy(fs.statSync(bundleFile).uid))
  const script = new vm.Script(Module.wrap(source.toString("utf8")), {
    filename: bundleFile,
    ...(cachedData === undefined ? {} : { cachedData }),
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER
  })
  const cached = cachedData !== undefined && script.cachedDataRejected !== true
  if (!cached) {
    process.once("exit", (code) => {
      if (code === 0) writeCodeCache(cacheFile, bundleHash, script.createCachedData())
    })
  }
  const module = { exports: {} }
  const body = script.runInThisContext() as (...args: ReadonlyArray<unknown>) => void
  body.call(module.exports, module.exports, createRequire(bundleFile), module, bundleFile, path.dirname(bundleFile))
  return !cached ? "compiled" : own !== undefined ? "cached" : "shipped"
}
