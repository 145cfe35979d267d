import { FileSystem } from "@effect/platform"
import { Effect, Layer, Ref, SynchronizedRef } from "effect"
import * as path from "node:path"
import type { ResourceLimits } from "node:worker_threads"
import { type ControllerError, invalidArgument, notFound } from "../../domain/errors.js"
import type { CapabilityEvidence } from "../../domain/history/capabilities.js"
import { chunkRecord, chunkWindow, earlierFiles } from "../../domain/history/chunkWork.js"
import { type AgentFile, analyzeSession, capabilityEvidenceOf, isThread, threadRecord, type ThreadRecord, type ThreadSummary } from "../../domain/history/session.js"
import { emptyIndex, type IndexedSession, type ThreadIndex, threadIndexPath } from "../../domain/history/threadIndex.js"
import { THREAD_ID_PATTERN } from "../../domain/ids.js"
import { isMissing } from "../../domain/ioErrors.js"
import { VERSION } from "../internal/packageInfo.js"
import { LinkSafeFiles } from "../platform/LinkSafeFiles.js"
import { NodeFilesLive } from "../platform/nodeFiles.js"
import { readTranscript } from "../platform/transcriptFiles.js"
import { Settings } from "../Settings.js"
import { byCodeUnits, discover, familyKey, fingerprintOf, type SessionLocation } from "./discovery.js"
import { loadIndex, saveIndex } from "./indexStore.js"
import { copiedKeysOf, type ListingStats, readFailure, resumedSummaries, summarizeStale } from "./summaries.js"

export type { FileStamp, SessionLocation } from "./discovery.js"
export type { ListingStats } from "./summaries.js"
export { workerPlan } from "./parsePool.js"
export { readTranscript }

export interface ThreadInspection {
  readonly record: ThreadRecord
  readonly evidence: CapabilityEvidence
}

/** A thread of the listing: its id and cost (what paging and the cost order read) and its summary. */
export interface ListedThread {
  readonly imported_thread_id: string
  readonly cost_usd: number | null
  readonly summary: Effect.Effect<ThreadSummary, ControllerError>
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

interface ThreadRecordEntry {
  readonly fingerprint: string
  readonly inspection: ThreadInspection
}

const RECORD_CACHE_SIZE = 16

/** What one listing found: the threads in order, the diagnostics, and each resumed session's predecessors. */
interface Listing {
  readonly threads: ReadonlyArray<ListedThread>
  readonly diagnostics: ReadonlyArray<string>
}

const sameEntries = <V>(left: ReadonlyMap<string, V>, right: ReadonlyMap<string, V>) =>
  left.size === right.size && [...left].every(([key, value]) => right.get(key) === value)

/**
 * Reads `$CLAUDE_CONFIG_DIR/projects` (docs/history.md): discovery (discovery.ts), summaries of what changed
 * on the parse pool (summaries.ts, parsePool.ts), the persistent index (indexStore.ts), and full thread
 * records on demand. Its state is the index in memory, loaded once per process; listings take turns on it.
 */
const makeClaudeHistory = (options: ClaudeHistoryOptions) =>
  Effect.gen(function*() {
    const settings = yield* Settings
    const fs = yield* FileSystem.FileSystem
    const links = yield* LinkSafeFiles
    const projectsRoot = path.join(settings.claudeConfigDir, "projects")
    const indexFile = threadIndexPath(settings.cacheRoot)
    /** The index in memory; undefined until the first listing reads the file. */
    const index = yield* SynchronizedRef.make<ThreadIndex | undefined>(undefined)
    const progress = yield* Ref.make<ListingProgress>({ reading: false, done: 0, total: 0 })
    const stats = yield* Ref.make<ListingStats>({ parsed: 0, parsedBytes: 0, workers: 0, fallbacks: 0 })
    const predecessors = yield* Ref.make<ReadonlyMap<string, ReadonlyArray<SessionLocation>>>(new Map())
    const records = yield* Ref.make<ReadonlyMap<string, ThreadRecordEntry>>(new Map())
    const provideFs = <A, E>(effect: Effect.Effect<A, E, FileSystem.FileSystem | LinkSafeFiles>) =>
      effect.pipe(Effect.provideService(FileSystem.FileSystem, fs), Effect.provideService(LinkSafeFiles, links))
    const parsing = { workers: options.workers ?? "auto", mainThreadToo: options.mainThreadToo ?? false, limits: options.workerLimits, progress, stats }

    /** The index as the file holds it, or an empty one (with one warning when the file was discarded). */
    const readIndex = Effect.gen(function*() {
      const loaded = yield* provideFs(loadIndex(indexFile, VERSION, projectsRoot))
      if (loaded._tag === "Discarded") {
        yield* Effect.logWarning(`The thread index ${indexFile} was discarded because ${loaded.reason}; it is being rebuilt.`)
      }
      return loaded._tag === "Loaded" ? { index: loaded.index, stored: true } : { index: emptyIndex(), stored: false }
    })

    const writeIndex = (next: ThreadIndex) =>
      provideFs(saveIndex(indexFile, VERSION, projectsRoot, next)).pipe(
        Effect.catchAll((error) => Effect.logWarning(`Cannot write the thread index ${indexFile}: ${error.message}`))
      )

    const discoverAll = (known: ThreadIndex) => discover(projectsRoot, known.agents)

    /** One listing over the index in memory: what changed is parsed, and the index written when anything did. */
    const listOver = (before: ThreadIndex | undefined) =>
      Effect.gen(function*() {
        const { index: known, stored } = before === undefined ? yield* readIndex : { index: before, stored: true }
        const found = yield* discoverAll(known)
        const live = new Set(found.locations.map((location) => location.main.path))
        const sessions = new Map<string, IndexedSession>()
        for (const [key, entry] of known.sessions) if (live.has(key)) sessions.set(key, entry)
        const diagnostics: Array<string> = [...found.unreadable]
        const stale = found.locations.filter((location) => sessions.get(location.main.path)?.fingerprint !== fingerprintOf(location))
        yield* summarizeStale(stale, sessions, diagnostics, parsing)
        const resumed = yield* resumedSummaries(found.locations, sessions, known.resumed, diagnostics)
        yield* Ref.set(predecessors, resumed.predecessors)
        const next: ThreadIndex = { sessions, resumed: resumed.entries, agents: found.agents }
        const changed = !stored || !sameEntries(known.sessions, sessions) || !sameEntries(known.resumed, next.resumed) ||
          !sameEntries(known.agents, next.agents)
        if (changed) yield* writeIndex(next)
        const listed: Array<{ readonly endedAt: string; readonly thread: ListedThread }> = []
        for (const location of found.locations) {
          const summary = resumed.predecessors.has(location.main.path)
            ? next.resumed.get(location.main.path)?.summary
            : sessions.get(location.main.path)?.summary
          if (summary !== undefined) listed.push({ endedAt: summary.ended_at ?? "", thread: listedThread(location, summary) })
        }
        listed.sort((left, right) =>
          byCodeUnits(right.endedAt, left.endedAt) ||
          byCodeUnits(left.thread.imported_thread_id, right.thread.imported_thread_id)
        )
        const listing: Listing = { threads: listed.map((entry) => entry.thread), diagnostics }
        return [listing, next] as const
      })

    /** A thread as listed, named by its location (a stem seen in two folders is made unique there). */
    const listedThread = (location: SessionLocation, summary: ThreadSummary): ListedThread => ({
      imported_thread_id: location.threadId,
      cost_usd: summary.cost_usd,
      summary: Effect.succeed(
        summary.imported_thread_id === location.threadId ? summary : { ...summary, imported_thread_id: location.threadId }
      )
    })

    /**
     * All imported threads, most recent first; unreadable files become diagnostics, never failures. Listings
     * take turns: one that waited finds what the one before it parsed.
     */
    const listing = Effect.fn("ClaudeHistory.listing")(function*() {
      return yield* SynchronizedRef.modifyEffect(index, listOver).pipe(
        Effect.ensuring(Ref.update(progress, (now) => ({ ...now, reading: false })))
      )
    })

    /** All imported threads, most recent first, each summary read at once. */
    const list = () =>
      Effect.flatMap(listing(), ({ threads, diagnostics }) =>
        Effect.map(Effect.forEach(threads, (thread) => thread.summary), (read) => ({ threads: read, diagnostics })))

    /** Every session file below the projects root; a thread id that appears twice is made unique. */
    const discoverLocations = () =>
      Effect.flatMap(SynchronizedRef.get(index), (known) => Effect.map(discoverAll(known ?? emptyIndex()), (found) => found.locations))

    const locate = Effect.fn("ClaudeHistory.locate")(function*(threadId: string) {
      if (!THREAD_ID_PATTERN.test(threadId)) return yield* invalidArgument("thread_id is not a valid Claude thread ID.")
      const locations = yield* discoverLocations()
      const location = locations.find((candidate) => candidate.threadId === threadId)
      if (location === undefined) return yield* notFound(`No imported Claude thread has the ID ${threadId}.`)
      return location
    })

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
          return analyzeSession({ threadId: location.threadId, mainPath: location.main.path, main, agents, ...(copied === undefined ? {} : { copied }) })
        },
        catch: readFailure(location)
      })

    /** The session's analysis with the copies of its predecessors left out. */
    const analysisOf = (location: SessionLocation) =>
      Effect.gen(function*() {
        const earlier = (yield* Ref.get(predecessors)).get(location.main.path) ?? []
        const copied = earlier.length === 0 ? undefined : yield* copiedKeysOf(earlier)
        return { earlier, analysis: yield* loadSession(location, copied) }
      })

    /** The full record of one thread (request turns, Claude's result, tokens, cost, time) and its evidence. */
    const inspect = Effect.fn("ClaudeHistory.inspect")(function*(threadId: string) {
      const location = yield* locate(threadId)
      // The listing finds the sessions this one resumed (answered from the index when nothing changed).
      yield* listing()
      const earlier = (yield* Ref.get(predecessors)).get(location.main.path) ?? []
      const fingerprint = familyKey([location, ...earlier])
      const cached = (yield* Ref.get(records)).get(threadId)
      if (cached?.fingerprint === fingerprint) return cached.inspection
      const { analysis } = yield* analysisOf(location)
      if (!isThread(analysis)) {
        return yield* invalidArgument(`The Claude session ${threadId} holds no human request, so it is not a thread.`)
      }
      const inspection: ThreadInspection = {
        record: { ...threadRecord(analysis), imported_thread_id: threadId },
        evidence: capabilityEvidenceOf(analysis)
      }
      yield* Ref.update(records, (now) => {
        const next = new Map(now)
        next.delete(threadId)
        next.set(threadId, { fingerprint, inspection })
        if (next.size > RECORD_CACHE_SIZE) next.delete(next.keys().next().value!)
        return next
      })
      return inspection
    })

    const thread = (threadId: string) => Effect.map(inspect(threadId), (inspection) => inspection.record)

    /**
     * Claude's work inside the chunk of split points `firstIndex`..`lastIndex` (1-based) and the files it
     * had changed before the chunk, read again from the session.
     */
    const inspectChunk = Effect.fn("ClaudeHistory.inspectChunk")(function*(threadId: string, firstIndex: number, lastIndex: number) {
      const { record } = yield* inspect(threadId)
      const location = yield* locate(threadId)
      const { analysis } = yield* analysisOf(location)
      const window = chunkWindow(record.split_points, firstIndex, lastIndex)
      return { record: chunkRecord(analysis, record, window), earlier: earlierFiles(analysis, record.project_dir, window) }
    })

    return {
      projectsRoot,
      indexFile,
      discover: discoverLocations,
      list,
      listing,
      /** How the last listing got its summaries (the benchmark reports it). */
      listingStats: Ref.get(stats),
      /** How far the current listing is (a cold start parses every session; the page and the CLI show it). */
      listingProgress: Ref.get(progress),
      locate,
      inspect,
      inspectChunk,
      thread
    } as const
  })

export class ClaudeHistory extends Effect.Service<ClaudeHistory>()("codex-replay/ClaudeHistory", {
  effect: makeClaudeHistory({ workers: "auto" }),
  dependencies: [NodeFilesLive]
}) {
  /** The service with explicit options (tests and the benchmark pin the worker count). */
  static readonly layerWith = (options: ClaudeHistoryOptions) =>
    Layer.effect(ClaudeHistory, Effect.map(makeClaudeHistory(options), (service) => ClaudeHistory.make(service))).pipe(
      Layer.provide(NodeFilesLive)
    )
}
