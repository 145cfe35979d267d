import { Effect, Layer } from "effect"
import { closeSync, type Dirent, openSync, readdirSync, readSync, statSync } from "node:fs"
import { createRequire } from "node:module"
import { availableParallelism } from "node:os"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { type ResourceLimits, Worker } from "node:worker_threads"
import { type ControllerError, invalidArgument, notFound, StorageError } from "../domain/errors.js"
import type { CapabilityEvidence } from "../domain/history/capabilities.js"
import { chunkRecord, chunkWindow, earlierFiles } from "../domain/history/chunkWork.js"
import { digestSession, responseKeysOf, type SessionDigest, type SessionFiles } from "../domain/history/reader.js"
import type { SummaryReply, SummaryTask } from "../domain/history/summaryWorker.js"
import {
  type AgentFile,
  analyzeSession,
  capabilityEvidenceOf,
  isThread,
  threadRecord,
  type ThreadRecord,
  type ThreadSummary
} from "../domain/history/session.js"
import {
  emptyIndex,
  hasChanges,
  indexChanges,
  type IndexedAgent,
  type IndexedSession,
  indexedSession,
  prepareAgentEntry,
  prepareSessionEntry,
  snapshotIndex,
  type StoredThread,
  storedThread,
  type ThreadIndex,
  threadIndexPath
} from "../domain/history/threadIndex.js"
import { THREAD_ID_PATTERN } from "../domain/ids.js"
import { describeError, isMissing } from "../domain/ioErrors.js"
import { VERSION } from "./internal/packageInfo.js"
import { readChunks, readTranscript } from "./internal/transcriptFiles.js"
import { type JournalState, type LoadedIndexFile, loadThreadIndex, saveThreadIndex } from "./internal/threadIndexFile.js"
import { Settings } from "./Settings.js"

export { readTranscript }

interface FileStamp {
  readonly path: string
  readonly size: number
  readonly mtimeMs: number
}

/** One session file with the sub-agent transcripts that belong to it (all three layouts). */
export interface SessionLocation {
  readonly threadId: string
  readonly main: FileStamp
  readonly agents: ReadonlyArray<FileStamp>
}

export interface ThreadInspection {
  readonly record: ThreadRecord
  readonly evidence: CapabilityEvidence
}

/** A thread of the listing: its id and cost (what paging and the cost order read) and its summary, read when asked for. */
export interface ListedThread {
  readonly imported_thread_id: string
  readonly cost_usd: number | null
  readonly summary: Effect.Effect<ThreadSummary, ControllerError>
}

/** A resumed session's summary with its predecessors' copies left out, valid while `key` holds. */
interface ResumedSummary {
  readonly key: string
  readonly summary: ThreadSummary | undefined
}

const PARSE_CONCURRENCY = 4
/** Below this much stale transcript data a cold listing parses on the main thread (starting workers costs more). */
const WORKER_MIN_BYTES = 64 * 1024 * 1024
const WORKER_MIN_FILES = 16
const MAX_WORKERS = 2
/**
 * The importer's peak-RSS budget. Measured on the 1 GB benchmark, a main-thread listing grows the process by
 * 25–35 MB and each worker adds 40–50 MB. So "auto" runs two workers when the process is small enough for both
 * (up to about 165 MB now), else one worker beside the main thread (up to about 210 MB), else the main thread.
 */
const RSS_BUDGET_BYTES = 300 * 1024 * 1024
const LISTING_GROWTH_BYTES = 45 * 1024 * 1024
const WORKER_RSS_BYTES = 45 * 1024 * 1024
/** Main-thread sessions in flight beside a worker (the rest of PARSE_CONCURRENCY's role). */
const SHARED_MAIN_THREAD_TASKS = 2
/**
 * Each worker is its own V8 heap; a bounded young generation keeps the listing's peak RSS in budget (lines die
 * young). 16 MB rather than 8: a session's summary state lives across many young collections, and halving
 * them cut a cold listing's CPU by 12% (8.9 s to 7.9 s on the benchmark, peak RSS 157 to 159 MB); 32 MB
 * was no faster and added 17 MB. A worker that runs out of memory (a giant line) stops, and its sessions are
 * summarised here.
 */
const WORKER_LIMITS: ResourceLimits = { maxYoungGenerationSizeMb: 16, maxOldGenerationSizeMb: 128 }
/** Sessions queued on each worker at once, so that none waits for the main thread between two files. */
const TASKS_PER_WORKER = 2
/** Sessions sent to each worker while discovery goes on (on the benchmark, 60 ms of parsing each). */
const EARLY_TASKS_PER_WORKER = 16
const RECORD_CACHE_SIZE = 16

const stampText = (stamp: FileStamp) => `${stamp.size}:${stamp.mtimeMs}`

/**
 * What a session's summary depends on, beside its main file's path (the key it is kept under): that file's
 * size and mtime, and each sub-agent file's, named from the main file's folder (short: the index holds 2,000
 * of these). NUL, which no path holds, separates the parts.
 */
const fingerprintOf = (location: SessionLocation) => {
  const folder = `${path.dirname(location.main.path)}${path.sep}`
  const parts = [stampText(location.main)]
  for (const agent of location.agents) {
    parts.push(agent.path.startsWith(folder) ? agent.path.slice(folder.length) : agent.path, stampText(agent))
  }
  return parts.join("\u0000")
}

/** What a resumed session's summary depends on: its fingerprint and its predecessors', paths included. */
const familyKey = (locations: ReadonlyArray<SessionLocation>) =>
  locations.map((location) => `${location.main.path}\u0000${fingerprintOf(location)}`).join("\n")

const FIRST_LINE_STEP_BYTES = 16 * 1024
const FIRST_LINE_MAX_BYTES = 256 * 1024

/** Reused by every read (they are synchronous): a fresh 16 KiB per file cost a cold listing 20 ms of page faults. */
let firstLineBuffer: Buffer | undefined

/**
 * The `sessionId` of a sibling `agent-*.jsonl`, read from its first line only: 16 KiB at a time, up to
 * 256 KiB. Synchronous, as discovery's stats are: a cold listing reads a thousand of these.
 */
const readAgentSessionId = (file: string): string | undefined => {
  let descriptor: number | undefined
  try {
    descriptor = openSync(file, "r")
    let buffer = firstLineBuffer ??= Buffer.allocUnsafe(FIRST_LINE_STEP_BYTES)
    let length = 0
    let newline = -1
    while (newline === -1 && length < FIRST_LINE_MAX_BYTES) {
      if (length === buffer.length) buffer = firstLineBuffer = Buffer.concat([buffer, Buffer.allocUnsafe(buffer.length)])
      const bytesRead = readSync(descriptor, buffer, length, Math.min(FIRST_LINE_STEP_BYTES, buffer.length - length), length)
      if (bytesRead === 0) break
      newline = buffer.subarray(0, length + bytesRead).indexOf(0x0a, length)
      length += bytesRead
    }
    const first = JSON.parse(buffer.toString("utf8", 0, newline === -1 ? length : newline)) as { sessionId?: unknown }
    return typeof first.sessionId === "string" ? first.sessionId : undefined
  } catch {
    return undefined
  } finally {
    if (descriptor !== undefined) closeSync(descriptor)
  }
}

/**
 * Discovery stats thousands of small files; synchronous calls (and no promise per file) avoid the
 * thread-pool round trips that dominate a warm listing (a few microseconds each instead of tens).
 */
const stampOf = (file: string): FileStamp | undefined => {
  const stat = statSync(file, { throwIfNoEntry: false })
  return stat?.isFile() ? { path: file, size: stat.size, mtimeMs: stat.mtimeMs } : undefined
}

/** An entry of the history that cannot even be looked at (a symlink loop, no permission): skipped and told. */
class UnreadableEntry {
  constructor(readonly message: string) {}
}

const errorCode = (error: unknown) =>
  typeof error === "object" && error !== null && typeof (error as { code?: unknown }).code === "string"
    ? (error as { code: string }).code
    : String(error)

/** `stampOf`, with an entry that cannot be looked at told apart from one that is simply not a file. */
const stampOrUnreadable = (file: string): FileStamp | UnreadableEntry | undefined => {
  try {
    return stampOf(file)
  } catch (error) {
    return new UnreadableEntry(`Skipped the unreadable Claude history entry ${path.basename(file)} (${errorCode(error)}).`)
  }
}

const readDirectory = (directory: string): Array<Dirent> => {
  try {
    return readdirSync(directory, { withFileTypes: true })
  } catch {
    return []
  }
}

/** A worker thread that stopped (or never started); its sessions are summarised on the main thread instead. */
class WorkerLost extends Error {}

interface SummaryPool {
  readonly size: number
  /** Whether a running worker has fewer than TASKS_PER_WORKER sessions queued. */
  readonly hasRoom: () => boolean
  readonly run: (files: SessionFiles) => Promise<SessionDigest>
  readonly close: () => Promise<void>
}

/**
 * The worker entry beside the pure summariser. In the command line's bundles (`dist/bundle/*.mjs`, and
 * `listing.cjs`) it is the bundle's own entry beside this chunk. From dist it is plain JavaScript. From src (tsx, vitest) it is
 * TypeScript: a small bootstrap registers tsx's loader in the worker first (`--import tsx` in a worker's
 * execArgv does not reach its module loader on Node 20).
 */
const workerEntry = (): { readonly script: string | URL; readonly eval: boolean } => {
  if (/\.[cm]js$/.test(import.meta.url)) return { script: new URL("./summaryWorker.mjs", import.meta.url), eval: false }
  if (!import.meta.url.endsWith(".ts")) {
    return { script: new URL("../domain/history/summaryWorker.js", import.meta.url), eval: false }
  }
  const source = new URL("../domain/history/summaryWorker.ts", import.meta.url).href
  // tsx's ESM API sits beside the CommonJS build that require.resolve finds.
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx/esm/api").replace(/\.cjs$/, ".mjs")).href
  return {
    script: `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(source)}) })`,
    eval: true
  }
}

const failureOf = (reply: Extract<SummaryReply, { ok: false }>) => {
  const error = new Error(reply.message) as Error & { code?: string }
  error.name = reply.name
  if (reply.code !== undefined) error.code = reply.code
  return error
}

/**
 * A small pool of summary workers; each takes the next session as soon as it has room.
 */
const startPool = (size: number, limits: ResourceLimits): SummaryPool => {
  const entry = workerEntry()
  let nextId = 0
  const workers = Array.from({ length: size }, () => {
    const pending = new Map<number, { resolve: (digest: SessionDigest) => void; reject: (error: unknown) => void }>()
    let worker: Worker | undefined
    try {
      worker = new Worker(entry.script, { eval: entry.eval, resourceLimits: limits })
    } catch {
      worker = undefined
    }
    const state = { worker, pending, alive: worker !== undefined }
    const lose = (reason: string) => {
      state.alive = false
      for (const task of pending.values()) task.reject(new WorkerLost(reason))
      pending.clear()
    }
    worker?.on("message", (reply: SummaryReply) => {
      const task = pending.get(reply.id)
      if (task === undefined) return
      pending.delete(reply.id)
      if (reply.ok) task.resolve(reply.digest)
      else task.reject(failureOf(reply))
    })
    worker?.on("error", (error) => lose(String(error)))
    worker?.on("exit", (code) => lose(`exited with code ${code}`))
    return state
  })
  return {
    size,
    hasRoom: () => workers.some((state) => state.alive && state.pending.size < TASKS_PER_WORKER),
    run: (files) => {
      const live = workers.filter((state) => state.alive)
      if (live.length === 0) return Promise.reject(new WorkerLost("no worker is running"))
      const state = live.reduce((best, candidate) => (candidate.pending.size < best.pending.size ? candidate : best))
      const id = nextId++
      return new Promise((resolve, reject) => {
        state.pending.set(id, { resolve, reject })
        state.worker!.postMessage({ id, files } satisfies SummaryTask)
      })
    },
    close: () => {
      return Promise.all(workers.map((state) => state.worker?.terminate())).then(() => undefined)
    }
  }
}

export interface ClaudeHistoryOptions {
  /** Worker threads for a large cold listing: "auto" (up to 2 when the machine has the cores) or an exact count. */
  readonly workers?: "auto" | number
  /** With an exact worker count: the main thread summarises sessions too (what "auto" does with one worker). */
  readonly mainThreadToo?: boolean
  /** Each worker's V8 heap limits (tests use tiny ones to make a worker run out of memory). */
  readonly workerLimits?: ResourceLimits
}

export interface ListingProgress {
  readonly reading: boolean
  /** Sessions parsed so far out of `total` (the sessions not answered from the index). */
  readonly done: number
  readonly total: number
}

/** How the last listing got its summaries (the benchmark reports it). */
export interface ListingStats {
  readonly parsed: number
  readonly parsedBytes: number
  readonly workers: number
  /** Sessions summarised on the main thread because their worker stopped (or never started). */
  readonly fallbacks: number
  /** Whether the main thread summarised sessions beside the worker (when memory allowed only one). */
  readonly mainThreadToo?: true
  /** Why the listing did not use workers (when it did not). */
  readonly mainThreadReason?: string
  /** Whether the workers started while discovery went on (a cold start's sessions settled the plan). */
  readonly startedDuringDiscovery?: true
}

/**
 * Whether `files` stale sessions of `bytes` found so far settle `workerPlan` (finding more cannot change it),
 * so that the workers can start while discovery goes on: "auto" has passed its thresholds, an exact count
 * has its files.
 */
export const planSettled = (option: "auto" | number, files: number, bytes: number) =>
  option === "auto" ? files >= WORKER_MIN_FILES && bytes >= WORKER_MIN_BYTES : files >= Math.floor(option)

/** How many workers a cold listing starts, and why none when none (exported for tests). */
export const workerPlan = (
  option: "auto" | number,
  files: number,
  bytes: number,
  rss: number,
  mainThreadToo = false
): { readonly workers: number; readonly mainThreadToo?: true; readonly mainThreadReason?: string } => {
  if (files === 0) return { workers: 0, mainThreadReason: "nothing to parse" }
  if (option !== "auto") {
    const workers = Math.max(0, Math.min(files, Math.floor(option)))
    if (workers === 0) return { workers, mainThreadReason: "workers disabled" }
    return mainThreadToo ? { workers, mainThreadToo } : { workers }
  }
  if (!planSettled("auto", files, bytes)) return { workers: 0, mainThreadReason: "little to parse" }
  if (availableParallelism() < 2) return { workers: 0, mainThreadReason: "one core" }
  const room = Math.floor((RSS_BUDGET_BYTES - rss - LISTING_GROWTH_BYTES) / WORKER_RSS_BYTES)
  if (room >= MAX_WORKERS) return { workers: MAX_WORKERS }
  if (room === 1) return { workers: 1, mainThreadToo: true }
  return {
    workers: 0,
    mainThreadReason: `RSS is ${Math.round(rss / 1024 / 1024)} MB, no room for a worker in the ${
      RSS_BUDGET_BYTES / 1024 / 1024
    } MB budget`
  }
}

type WorkerPlan = ReturnType<typeof workerPlan>

const sizeOf = (location: SessionLocation) =>
  location.main.size + location.agents.reduce((total, stamp) => total + stamp.size, 0)

/**
 * Code-unit order: the same in every locale (localeCompare follows the user's), and for the ISO times, ids and
 * paths sorted here free of the ICU collator that a process's first localeCompare sets up (15 ms of a listing
 * answered from the index).
 */
const byCodeUnits = (left: string, right: string) => (left < right ? -1 : left > right ? 1 : 0)

const storedOf = (summary: ThreadSummary | undefined) => (summary === undefined ? undefined : storedThread(summary))

/** `path.join` for a name read from its folder (which is already normal): thousands per listing, without normalising. */
const childPath = (folder: string, name: string) => `${folder}${path.sep}${name}`

const isTranscriptName = (name: string) => name.endsWith(".jsonl")
const isAgentName = (name: string) => name.startsWith("agent-") && isTranscriptName(name)

/**
 * Reads `$CLAUDE_CONFIG_DIR/projects`: discovery of sessions and their sub-agents, a per-file cache keyed
 * by path + size + mtime (a second listing re-parses nothing unchanged), and full thread records on demand.
 */
const makeClaudeHistory = (options: ClaudeHistoryOptions) =>
  Effect.gen(function*() {
    const settings = yield* Settings
    const projectsRoot = path.join(settings.claudeConfigDir, "projects")
    const summaries = new Map<string, IndexedSession>()
    const resumed = new Map<string, ResumedSummary>()
    const agentSessions = new Map<string, IndexedAgent>()
    const records = new Map<string, ThreadRecordEntry>()

    /** The session of a sibling agent file: read once, then known while the file is unchanged. */
    const agentSessionId = (stamp: FileStamp): string | undefined => {
      const key = `${stamp.size}:${stamp.mtimeMs}`
      const cached = agentSessions.get(stamp.path)
      if (cached?.stamp === key) return cached.sessionId
      const sessionId = readAgentSessionId(stamp.path)
      const entry: IndexedAgent = { stamp: key, sessionId }
      agentSessions.set(stamp.path, entry)
      prepareAgentEntry(stamp.path, entry)
      indexDirty = true
      return sessionId
    }

    /** The stamp of an entry; one that cannot be looked at is counted in `unreadable` and skipped. */
    const stampCounting = (file: string, unreadable: Array<string>) => {
      const stamp = stampOrUnreadable(file)
      if (!(stamp instanceof UnreadableEntry)) return stamp
      unreadable.push(stamp.message)
      return undefined
    }

    const discoverProject = (folder: string, unreadable: Array<string>, found: (location: SessionLocation) => void) => {
      const entries = readDirectory(folder)
      const directories = new Set(entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name))
      const files = entries.filter((entry) => !entry.isDirectory() && isTranscriptName(entry.name))
      const siblings = files.filter((entry) => isAgentName(entry.name)).map((entry) =>
        stampCounting(childPath(folder, entry.name), unreadable)
      )
      const siblingsBySession = new Map<string, Array<FileStamp>>()
      for (const stamp of siblings) {
        if (stamp === undefined) continue
        const sessionId = agentSessionId(stamp)
        if (sessionId === undefined) continue
        siblingsBySession.set(sessionId, [...(siblingsBySession.get(sessionId) ?? []), stamp])
      }
      const sessions: Array<SessionLocation> = []
      for (const entry of files) {
        if (isAgentName(entry.name)) continue
        const main = stampCounting(childPath(folder, entry.name), unreadable)
        if (main === undefined) continue
        const stem = entry.name.slice(0, -".jsonl".length)
        const nested = directories.has(stem) ? nestedAgents(childPath(childPath(folder, stem), "subagents"), unreadable) : []
        const location: SessionLocation = { threadId: stem, main, agents: [...(siblingsBySession.get(stem) ?? []), ...nested] }
        sessions.push(location)
        found(location)
      }
      return sessions
    }

    const nestedAgents = (directory: string, unreadable: Array<string>) => {
      const stamps = readDirectory(directory).filter((entry) => entry.isFile() && isAgentName(entry.name)).map((entry) =>
        stampCounting(childPath(directory, entry.name), unreadable)
      )
      return stamps.filter((stamp): stamp is FileStamp => stamp !== undefined).sort((a, b) => byCodeUnits(a.path, b.path))
    }

    /**
     * Every session file below the projects root; a thread id that appears twice is made unique. An entry
     * that cannot be looked at (a symlink loop, no permission) is skipped and described in `unreadable`.
     */
    const discoverWithUnreadable = Effect.fn("ClaudeHistory.discover")(function*(
      found: (location: SessionLocation) => void = () => {}
    ) {
      return yield* Effect.try({
        try: () => discoverLocations(found),
        catch: (error) => new StorageError({ message: `Cannot list the Claude history: ${describeError(error)}` })
      })
    })

    const discoverLocations = (found: (location: SessionLocation) => void) => {
      const unreadable: Array<string> = []
      const folders = readDirectory(projectsRoot).filter((entry) => entry.isDirectory())
      const perFolder = folders.map((entry) => discoverProject(childPath(projectsRoot, entry.name), unreadable, found))
      const seen = new Set<string>()
      const locations = perFolder.flat().map((location) => {
        let threadId = location.threadId
        for (let suffix = 2; seen.has(threadId); suffix++) threadId = `${location.threadId}.${suffix}`
        seen.add(threadId)
        return threadId === location.threadId ? location : { ...location, threadId }
      })
      return { locations, unreadable: unreadable.sort() }
    }

    const discover = () => Effect.map(discoverWithUnreadable(), ({ locations }) => locations)

    const readFailure = (location: SessionLocation) => (error: unknown) =>
      invalidArgument(
        isMissing(error)
          ? `The Claude thread file ${path.basename(location.main.path)} vanished while it was being read.`
          : `Cannot read the Claude thread file ${path.basename(location.main.path)}: ${String(error)}`
      )

    /** Every line of the session kept and analysed: what a full thread record needs. */
    const loadSession = (location: SessionLocation, copied?: ReadonlySet<string>) =>
      Effect.tryPromise({
        try: async () => {
          const main = await readTranscript(location.main.path)
          const agents: Array<AgentFile> = []
          for (const stamp of location.agents) {
            try {
              agents.push({ path: stamp.path, decoded: await readTranscript(stamp.path) })
            } catch (error) {
              if (!isMissing(error)) throw error
            }
          }
          return analyzeSession({
            threadId: location.threadId,
            mainPath: location.main.path,
            main,
            agents,
            ...(copied === undefined ? {} : { copied })
          })
        },
        catch: readFailure(location)
      })

    const filesOf = (location: SessionLocation): SessionFiles => ({
      threadId: location.threadId,
      mainPath: location.main.path,
      agentPaths: location.agents.map((stamp) => stamp.path)
    })

    /**
     * The listing's fast path: one streaming pass that keeps only what a summary needs, on a worker thread
     * when a pool is given (a session whose worker stopped is summarised here instead).
     */
    const summarize = (
      location: SessionLocation,
      pool: SummaryPool | undefined,
      sharesMainThread: boolean,
      sentEarly: Promise<SessionDigest> | undefined
    ) =>
      Effect.tryPromise({
        try: () => {
          const onWorker = sentEarly ??
            (pool === undefined || (sharesMainThread && !pool.hasRoom()) ? undefined : pool.run(filesOf(location)))
          if (onWorker === undefined) return digestSession(filesOf(location), readChunks)
          // A session sent during discovery is named by its stem, before a stem seen twice is made unique: the
          // listing names each thread by its location in any case.
          return onWorker.catch((error: unknown) => {
            if (!(error instanceof WorkerLost)) return Promise.reject(error)
            lastListing = { ...lastListing, fallbacks: lastListing.fallbacks + 1 }
            return digestSession(filesOf(location), readChunks)
          })
        },
        catch: readFailure(location)
      })

    const summaryOf = (
      location: SessionLocation,
      diagnostics: Array<string>,
      pool: SummaryPool | undefined,
      sharesMainThread = false,
      sentEarly?: Promise<SessionDigest>
    ) => {
      const fingerprint = fingerprintOf(location)
      const cached = summaries.get(location.main.path)
      if (cached?.fingerprint === fingerprint) return Effect.void
      return summarize(location, pool, sharesMainThread, sentEarly).pipe(
        Effect.map((digest) => {
          const entry = indexedSession(fingerprint, digest)
          summaries.set(location.main.path, entry)
          prepareSessionEntry(location.main.path, entry)
          progress = { ...progress, done: progress.done + 1 }
        }),
        Effect.catchAll((error) =>
          Effect.sync(() => {
            summaries.delete(location.main.path)
            diagnostics.push(error.message)
          })
        )
      )
    }

    let lastListing: ListingStats = { parsed: 0, parsedBytes: 0, workers: 0, fallbacks: 0 }

    const workerLimits = options.workerLimits ?? WORKER_LIMITS
    const newPool = (size: number) => startPool(size, workerLimits)

    /**
     * The threads stop while the listing goes on (writing the index): tearing down their heaps took 40 ms. The
     * pool is closed here and now, and waited for apart.
     */
    const stopPool = (pool: SummaryPool) =>
      Effect.suspend(() => {
        const closing = pool.close()
        return Effect.forkDaemon(Effect.tryPromise(() => closing).pipe(
          Effect.catchAll((error) => Effect.logWarning(`Cannot stop the listing's worker threads: ${describeError(error.error)}`))
        ))
      })

    /**
     * Starts the listing's workers during discovery, as soon as the sessions not in the index at all (a cold
     * start's) settle the plan, and sends them the next such sessions while discovery goes on (a few each, so
     * that the rest are still shared out as the workers free up): the workers parse instead of waiting for
     * discovery to end. Sessions that only grew are left to the plan made after discovery.
     */
    const earlyWorkers = () => {
      const option = options.workers ?? "auto"
      const unknown: Array<SessionLocation> = []
      let bytes = 0
      let settled = false
      let started: { readonly pool: SummaryPool; readonly plan: WorkerPlan } | undefined
      const sent = new Map<string, Promise<SessionDigest>>()
      const send = (location: SessionLocation) => {
        if (started === undefined || sent.size >= started.plan.workers * EARLY_TASKS_PER_WORKER) return
        const digest = started.pool.run(filesOf(location))
        // Collected by summaryOf; one that never is (discovery failed, the pool closed) must not go unhandled.
        digest.catch(() => {})
        sent.set(location.main.path, digest)
      }
      return {
        found: (location: SessionLocation) => {
          if (summaries.has(location.main.path)) return
          if (settled) return send(location)
          unknown.push(location)
          bytes += sizeOf(location)
          if (!planSettled(option, unknown.length, bytes)) return
          settled = true
          const plan = workerPlan(option, unknown.length, bytes, process.memoryUsage.rss(), options.mainThreadToo)
          if (plan.workers > 0) started = { pool: newPool(plan.workers), plan }
          unknown.forEach(send)
        },
        /** The digest a worker was sent this session for during discovery, if it was (the files it found then). */
        sent: (location: SessionLocation) => sent.get(location.main.path),
        plan: () => started?.plan,
        /** The started pool, now the caller's to close. */
        take: () => {
          const pool = started?.pool
          started = undefined
          return pool
        },
        stopUntaken: Effect.suspend(() => (started === undefined ? Effect.void : stopPool(started.pool)))
      }
    }

    type EarlyWorkers = ReturnType<typeof earlyWorkers>

    /** Summarises the stale sessions: on a few worker threads when there is a lot to parse, else here. */
    const summarizeStale = Effect.fn("ClaudeHistory.summarizeStale")(function*(
      stale: ReadonlyArray<SessionLocation>,
      diagnostics: Array<string>,
      early: EarlyWorkers
    ) {
      const bytes = stale.reduce((sum, location) => sum + sizeOf(location), 0)
      const earlyPlan = early.plan()
      const { workers, mainThreadToo, mainThreadReason } = earlyPlan ?? workerPlan(
        options.workers ?? "auto",
        stale.length,
        bytes,
        process.memoryUsage.rss(),
        options.mainThreadToo
      )
      lastListing = {
        parsed: stale.length,
        parsedBytes: bytes,
        workers,
        fallbacks: 0,
        ...(mainThreadToo === undefined ? {} : { mainThreadToo }),
        ...(mainThreadReason === undefined ? {} : { mainThreadReason }),
        ...(earlyPlan === undefined ? {} : { startedDuringDiscovery: true as const })
      }
      if (workers === 0) {
        return yield* Effect.forEach(stale, (location) => summaryOf(location, diagnostics, undefined), {
          concurrency: PARSE_CONCURRENCY,
          discard: true
        })
      }
      yield* Effect.acquireUseRelease(
        Effect.sync(() => early.take() ?? newPool(workers)),
        (pool) =>
          Effect.forEach(stale, (location) => summaryOf(location, diagnostics, pool, mainThreadToo === true, early.sent(location)), {
            concurrency: pool.size * TASKS_PER_WORKER + (mainThreadToo ? SHARED_MAIN_THREAD_TASKS : 0),
            discard: true
          }),
        stopPool
      )
    })

    /**
     * Sessions resumed into a new file start with a copy of their predecessor's history (reference §6.5): they
     * share the key of their first response. In each such family, ordered by end time, the copies a session
     * repeats from earlier members are counted in the earliest one only.
     */
    const predecessorsOf = (locations: ReadonlyArray<SessionLocation>) => {
      const families = new Map<string, Array<SessionLocation>>()
      for (const location of locations) {
        const key = summaries.get(location.main.path)?.firstResponseKey
        if (key === undefined) continue
        const family = families.get(key)
        if (family === undefined) families.set(key, [location])
        else family.push(location)
      }
      const predecessors = new Map<string, ReadonlyArray<SessionLocation>>()
      for (const family of families.values()) {
        if (family.length < 2) continue
        const endOf = (location: SessionLocation) => summaries.get(location.main.path)?.thread?.ended_at ?? ""
        family.sort((left, right) => byCodeUnits(endOf(left), endOf(right)) || byCodeUnits(left.main.path, right.main.path))
        family.forEach((location, index) => {
          if (index > 0) predecessors.set(location.main.path, family.slice(0, index))
        })
      }
      return predecessors
    }

    /**
     * The response keys of the earlier sessions of a family; one that cannot be read contributes none. `read`
     * keeps each file's keys for the caller: a listing that summarises every later session of a family of n
     * reads each file for its keys once, not up to n - 1 times.
     */
    const copiedKeys = (earlier: ReadonlyArray<SessionLocation>, read = new Map<string, Promise<Set<string>>>()) =>
      Effect.tryPromise(async () => {
        const copied = new Set<string>()
        for (const location of earlier) {
          let keys = read.get(location.main.path)
          if (keys === undefined) {
            keys = responseKeysOf(location.main.path, readChunks).catch(() => new Set<string>())
            read.set(location.main.path, keys)
          }
          for (const key of await keys) copied.add(key)
        }
        return copied
      }).pipe(Effect.orElseSucceed(() => new Set<string>()))

    /** Summaries of the resumed sessions with their copies left out (cached while no file of the family changes). */
    const resumedSummaries = Effect.fn("ClaudeHistory.resumedSummaries")(function*(
      locations: ReadonlyArray<SessionLocation>,
      diagnostics: Array<string>
    ) {
      const predecessors = predecessorsOf(locations)
      lastPredecessors = predecessors
      const result = new Map<string, ThreadSummary | undefined>()
      const keysRead = new Map<string, Promise<Set<string>>>()
      for (const [mainPath, earlier] of predecessors) {
        const location = locations.find((candidate) => candidate.main.path === mainPath)!
        const key = familyKey([location, ...earlier])
        const cached = resumed.get(mainPath)
        if (cached?.key === key) {
          result.set(mainPath, cached.summary)
          continue
        }
        const copied = yield* copiedKeys(earlier, keysRead)
        indexDirty = true
        const summary = yield* Effect.tryPromise({
          try: () => digestSession(filesOf(location), readChunks, copied),
          catch: readFailure(location)
        }).pipe(
          Effect.map((digest) => digest.summary),
          Effect.catchAll((error) => Effect.sync(() => (diagnostics.push(error.message), undefined)))
        )
        resumed.set(mainPath, { key, summary })
        result.set(mainPath, summary)
      }
      for (const mainPath of resumed.keys()) if (!predecessors.has(mainPath)) resumed.delete(mainPath)
      return result
    })

    let lastPredecessors = new Map<string, ReadonlyArray<SessionLocation>>()

    const indexFile = threadIndexPath(settings.cacheRoot)
    /** Whether memory holds what the index files do not (yet). */
    let indexDirty = false
    /** The index as this process last read or wrote it (entries are replaced, never changed in place). */
    let written: ThreadIndex = emptyIndex()
    /** The journal as last read or written; none when the next write must be the whole index. */
    let journal: JournalState | undefined

    const current = (): ThreadIndex => ({ sessions: summaries, resumed, agents: agentSessions })

    /** Seeds the in-memory cache from the persistent index, once per process (concurrent listings wait for it). */
    const readIndex = yield* Effect.cached(Effect.gen(function*() {
      const loaded = yield* Effect.tryPromise(() => loadThreadIndex(indexFile, VERSION, projectsRoot)).pipe(
        Effect.orElseSucceed((): LoadedIndexFile => ({ _tag: "Discarded", reason: "it cannot be read" }))
      )
      if (loaded._tag === "Discarded") {
        yield* Effect.logWarning(`The thread index ${indexFile} was discarded because ${loaded.reason}; it is being rebuilt.`)
      }
      if (loaded._tag !== "Loaded") {
        indexDirty = true
        return
      }
      for (const [mainPath, entry] of loaded.index.sessions) if (!summaries.has(mainPath)) summaries.set(mainPath, entry)
      for (const [mainPath, entry] of loaded.index.resumed) if (!resumed.has(mainPath)) resumed.set(mainPath, entry)
      for (const [agentPath, entry] of loaded.index.agents) if (!agentSessions.has(agentPath)) agentSessions.set(agentPath, entry)
      // The loaded maps are this process's alone: they are what was written, without a copy.
      written = loaded.index
      journal = loaded.journal
    }))

    /** What changed goes to the journal (or, past its size, the whole index: threadIndexFile.ts). */
    const writeIndex = Effect.gen(function*() {
      const changes = journal === undefined ? undefined : indexChanges(written, current())
      if (changes === undefined || hasChanges(changes)) {
        // Taken before the write: what a concurrent listing adds meanwhile is a change for the next write.
        const writing = snapshotIndex(current())
        journal = yield* Effect.try(() => saveThreadIndex(indexFile, VERSION, projectsRoot, writing, changes, journal))
        written = writing
      }
      indexDirty = false
    }).pipe(
      Effect.catchAll((error) =>
        Effect.zipRight(
          // The next write is the whole index, which also makes its folder again if it went.
          Effect.sync(() => { journal = undefined }),
          Effect.logWarning(`Cannot write the thread index ${indexFile}: ${String(error.error)}`)
        ))
    )

    /** Whether a known agent file still exists; one that can no longer be looked at counts as gone. */
    const stillThere = (file: string) => {
      try {
        return statSync(file, { throwIfNoEntry: false }) !== undefined
      } catch {
        return false
      }
    }

    let progress: ListingProgress = { reading: false, done: 0, total: 0 }

    /**
     * All imported threads, most recent first; unreadable files become diagnostics, never failures. A summary the
     * index holds is parsed only when the thread's `summary` is asked for (a page shows 100 of thousands).
     */
    const listing = Effect.fn("ClaudeHistory.listing")(function*() {
      yield* readIndex
      const early = earlyWorkers()
      return yield* listDiscovering(early).pipe(Effect.ensuring(early.stopUntaken))
    })

    const listDiscovering = Effect.fn("ClaudeHistory.listDiscovering")(function*(early: EarlyWorkers) {
      const { locations, unreadable } = yield* discoverWithUnreadable(early.found)
      const live = new Set(locations.map((location) => location.main.path))
      for (const key of summaries.keys()) {
        if (live.has(key)) continue
        summaries.delete(key)
        indexDirty = true
      }
      const liveAgents = new Set(locations.flatMap((location) => location.agents.map((stamp) => stamp.path)))
      for (const key of agentSessions.keys()) {
        // An agent file of no session stays known (else every listing would read it again).
        if (liveAgents.has(key) || stillThere(key)) continue
        agentSessions.delete(key)
        indexDirty = true
      }
      const diagnostics: Array<string> = [...unreadable]
      // Unchanged files are answered from the cache without scheduling any work.
      const stale = locations.filter((location) => summaries.get(location.main.path)?.fingerprint !== fingerprintOf(location))
      if (stale.length > 0) indexDirty = true
      progress = { reading: stale.length > 0, done: 0, total: stale.length }
      yield* summarizeStale(stale, diagnostics, early).pipe(Effect.ensuring(Effect.sync(() => {
        progress = { ...progress, reading: false }
      })))
      const resumedNow = yield* resumedSummaries(locations, diagnostics)
      if (indexDirty) yield* writeIndex
      const listed: Array<{ readonly endedAt: string; readonly thread: ListedThread }> = []
      for (const location of locations) {
        const stored = resumedNow.has(location.main.path)
          ? storedOf(resumedNow.get(location.main.path))
          : summaries.get(location.main.path)?.thread
        if (stored !== undefined) listed.push({ endedAt: stored.ended_at ?? "", thread: listedThread(location, stored) })
      }
      listed.sort((left, right) =>
        byCodeUnits(right.endedAt, left.endedAt) ||
        byCodeUnits(left.thread.imported_thread_id, right.thread.imported_thread_id)
      )
      return { threads: listed.map((entry) => entry.thread), diagnostics }
    })

    /** All imported threads, most recent first, each summary read at once (`listing` reads them when asked). */
    const list = () =>
      Effect.flatMap(listing(), ({ threads, diagnostics }) =>
        Effect.map(Effect.forEach(threads, (thread) => thread.summary), (read) => ({ threads: read, diagnostics })))

    /**
     * A thread as listed, named by its location (a stem seen in two folders is made unique there). Its summary
     * is read from the index when first asked for; one whose line does not read back as a summary (an index
     * written wrong, or edited) is read again from the session, and the index corrected.
     */
    const listedThread = (location: SessionLocation, stored: StoredThread): ListedThread => {
      let named: ThreadSummary | undefined
      // Summaries are never changed in place: one already named by its location is listed as it is.
      const name = (summary: ThreadSummary) =>
        (named = summary.imported_thread_id === location.threadId ? summary : { ...summary, imported_thread_id: location.threadId })
      return {
        imported_thread_id: location.threadId,
        cost_usd: stored.cost_usd,
        summary: Effect.suspend(() => {
          if (named !== undefined) return Effect.succeed(named)
          const summary = stored.summary()
          return summary === undefined ? Effect.map(reread(location), name) : Effect.succeed(name(summary))
        })
      }
    }

    const reread = Effect.fn("ClaudeHistory.reread")(function*(location: SessionLocation) {
      yield* Effect.logWarning(
        `The thread index ${indexFile} held a damaged summary of ${path.basename(location.main.path)}; the session was read again.`
      )
      const digest = yield* Effect.tryPromise({ try: () => digestSession(filesOf(location), readChunks), catch: readFailure(location) })
      const entry = indexedSession(fingerprintOf(location), digest)
      summaries.set(location.main.path, entry)
      prepareSessionEntry(location.main.path, entry)
      yield* writeIndex
      if (digest.summary !== undefined) return digest.summary
      return yield* invalidArgument(`The Claude session ${location.threadId} changed while it was listed; list the threads again.`)
    })

    const locate = Effect.fn("ClaudeHistory.locate")(function*(threadId: string) {
      if (!THREAD_ID_PATTERN.test(threadId)) {
        return yield* invalidArgument("thread_id is not a valid Claude thread ID.")
      }
      const locations = yield* discover()
      const location = locations.find((candidate) => candidate.threadId === threadId)
      if (location === undefined) return yield* notFound(`No imported Claude thread has the ID ${threadId}.`)
      return location
    })

    /** The full record of one thread (request turns, Claude's result, tokens, cost, time) and its evidence. */
    const inspect = Effect.fn("ClaudeHistory.inspect")(function*(threadId: string) {
      const location = yield* locate(threadId)
      // The listing finds the sessions this one resumed (answered from the cache when nothing changed).
      yield* listing()
      const earlier = lastPredecessors.get(location.main.path) ?? []
      const fingerprint = familyKey([location, ...earlier])
      const cached = records.get(threadId)
      if (cached?.fingerprint === fingerprint) return cached.inspection
      const analysis = yield* loadSession(location, earlier.length === 0 ? undefined : yield* copiedKeys(earlier))
      if (!isThread(analysis)) {
        return yield* invalidArgument(`The Claude session ${threadId} holds no human request, so it is not a thread.`)
      }
      const inspection: ThreadInspection = {
        record: { ...threadRecord(analysis), imported_thread_id: threadId },
        evidence: capabilityEvidenceOf(analysis)
      }
      records.delete(threadId)
      records.set(threadId, { fingerprint, inspection })
      if (records.size > RECORD_CACHE_SIZE) records.delete(records.keys().next().value!)
      return inspection
    })

    const thread = (threadId: string) => Effect.map(inspect(threadId), (inspection) => inspection.record)

    /**
     * Claude's work inside the chunk of split points `firstIndex`..`lastIndex` (1-based) and the files it
     * had changed before the chunk, read again from the session (a chunk is prepared and started, not listed).
     */
    const inspectChunk = Effect.fn("ClaudeHistory.inspectChunk")(function*(threadId: string, firstIndex: number, lastIndex: number) {
      const { record } = yield* inspect(threadId)
      const location = yield* locate(threadId)
      const earlier = lastPredecessors.get(location.main.path) ?? []
      const analysis = yield* loadSession(location, earlier.length === 0 ? undefined : yield* copiedKeys(earlier))
      const window = chunkWindow(record.split_points, firstIndex, lastIndex)
      return { record: chunkRecord(analysis, record, window), earlier: earlierFiles(analysis, record.project_dir, window) }
    })

    const listingStats = Effect.sync(() => lastListing)
    /** How far the current listing is (a cold start parses every session; the page and the CLI show it). */
    const listingProgress = Effect.sync(() => progress)

    return { projectsRoot, indexFile, discover, list, listing, listingStats, listingProgress, locate, inspect, inspectChunk, thread } as const
  })

export class ClaudeHistory extends Effect.Service<ClaudeHistory>()("codex-replay/ClaudeHistory", {
  effect: makeClaudeHistory({ workers: "auto" })
}) {
  /** The service with explicit options (tests and the benchmark pin the worker count). */
  static readonly layerWith = (options: ClaudeHistoryOptions) =>
    Layer.effect(ClaudeHistory, Effect.map(makeClaudeHistory(options), (service) => ClaudeHistory.make(service)))
}

interface ThreadRecordEntry {
  readonly fingerprint: string
  readonly inspection: ThreadInspection
}
