import { Effect, Ref } from "effect"
import * as path from "node:path"
import type { ResourceLimits } from "node:worker_threads"
import { type ControllerError, invalidArgument } from "../../domain/errors.js"
import { digestSession, responseKeysOf, type SessionDigest } from "../../domain/history/reader.js"
import type { ThreadSummary } from "../../domain/history/session.js"
import { type IndexedResumed, type IndexedSession, indexedSession } from "../../domain/history/threadIndex.js"
import { isMissing } from "../../domain/ioErrors.js"
import { readChunks } from "../platform/transcriptFiles.js"
import { byCodeUnits, familyKey, filesOf, fingerprintOf, type SessionLocation, sizeOf } from "./discovery.js"
import { type ParsePool, TASKS_PER_WORKER, withParsePool, WORKER_LIMITS, WorkerLost, workerPlan } from "./parsePool.js"

/** The listing's summaries: the stale sessions parsed (on the parse pool when there is a lot), and the resumed families. */

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
}

export interface Parsing {
  readonly workers: "auto" | number
  readonly mainThreadToo: boolean
  readonly limits: ResourceLimits | undefined
  readonly progress: Ref.Ref<{ readonly reading: boolean; readonly done: number; readonly total: number }>
  readonly stats: Ref.Ref<ListingStats>
}

/** Main-thread sessions in flight beside a worker, or alone. */
const MAIN_THREAD_TASKS = 2
const PARSE_CONCURRENCY = 4

export const readFailure = (location: SessionLocation) => (error: unknown) =>
  invalidArgument(
    isMissing(error)
      ? `The Claude thread file ${path.basename(location.main.path)} vanished while it was being read.`
      : `Cannot read the Claude thread file ${path.basename(location.main.path)}: ${error instanceof Error ? error.message : String(error)}`
  )

const onMainThread = (location: SessionLocation, copied?: ReadonlySet<string>) =>
  Effect.tryPromise({ try: () => digestSession(filesOf(location), readChunks, copied), catch: readFailure(location) })

/**
 * Summarises the stale sessions into `sessions` (an unreadable one is left out, and told in `diagnostics`):
 * on the parse pool when there is a lot to parse, else here.
 */
export const summarizeStale = (
  stale: ReadonlyArray<SessionLocation>,
  sessions: Map<string, IndexedSession>,
  diagnostics: Array<string>,
  parsing: Parsing
) =>
  Effect.gen(function*() {
    const bytes = stale.reduce((sum, location) => sum + sizeOf(location), 0)
    const plan = workerPlan(parsing.workers, stale.length, bytes, process.memoryUsage.rss(), parsing.mainThreadToo)
    yield* Ref.set(parsing.progress, { reading: stale.length > 0, done: 0, total: stale.length })
    yield* Ref.set(parsing.stats, {
      parsed: stale.length,
      parsedBytes: bytes,
      workers: plan.workers,
      fallbacks: 0,
      ...(plan.mainThreadToo === undefined ? {} : { mainThreadToo: plan.mainThreadToo }),
      ...(plan.mainThreadReason === undefined ? {} : { mainThreadReason: plan.mainThreadReason })
    })

    const fellBack = Ref.update(parsing.stats, (now) => ({ ...now, fallbacks: now.fallbacks + 1 }))
    const done = Ref.update(parsing.progress, (now) => ({ ...now, done: now.done + 1 }))

    /** On a worker (the main thread takes what a stopped worker held), else here. */
    const onWorker = (location: SessionLocation, pool: ParsePool): Effect.Effect<SessionDigest, ControllerError> =>
      Effect.catchAll(pool.digest(filesOf(location)), (error) =>
        error instanceof WorkerLost
          ? Effect.zipRight(fellBack, onMainThread(location))
          : Effect.fail(readFailure(location)(Object.assign(new Error(error.message), { code: error.code }))))

    const digestOf = (location: SessionLocation, pool: ParsePool | undefined): Effect.Effect<SessionDigest, ControllerError> =>
      pool === undefined
        ? onMainThread(location)
        : plan.mainThreadToo === true
        ? Effect.flatMap(pool.hasRoom, (room) => (room ? onWorker(location, pool) : onMainThread(location)))
        : onWorker(location, pool)

    const summarize = (pool: ParsePool | undefined) => (location: SessionLocation) =>
      Effect.matchEffect(digestOf(location, pool), {
        onSuccess: (digest) => {
          sessions.set(location.main.path, indexedSession(fingerprintOf(location), digest))
          return done
        },
        onFailure: (error) =>
          Effect.sync(() => {
            sessions.delete(location.main.path)
            diagnostics.push(error.message)
          })
      })

    if (plan.workers === 0) {
      return yield* Effect.forEach(stale, summarize(undefined), { concurrency: PARSE_CONCURRENCY, discard: true })
    }
    yield* withParsePool(plan.workers, parsing.limits ?? WORKER_LIMITS, (pool) =>
      Effect.forEach(stale, summarize(pool), {
        concurrency: pool.size * TASKS_PER_WORKER + (plan.mainThreadToo ? MAIN_THREAD_TASKS : 0),
        discard: true
      }))
  })

/**
 * The response keys of the earlier sessions of a family; one that cannot be read contributes none. `read`
 * keeps each file's keys, so that a family of n is read once per file, not up to n - 1 times.
 */
export const copiedKeysOf = (earlier: ReadonlyArray<SessionLocation>, read = new Map<string, Promise<Set<string>>>()) =>
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

/**
 * Sessions resumed into a new file start with a copy of their predecessor's history: they share the key of
 * their first response. In each such family, ordered by end time, each later session's predecessors.
 */
const predecessorsOf = (locations: ReadonlyArray<SessionLocation>, sessions: ReadonlyMap<string, IndexedSession>) => {
  const families = new Map<string, Array<SessionLocation>>()
  for (const location of locations) {
    const key = sessions.get(location.main.path)?.firstResponseKey
    if (key === undefined) continue
    families.set(key, [...(families.get(key) ?? []), location])
  }
  const predecessors = new Map<string, ReadonlyArray<SessionLocation>>()
  for (const family of families.values()) {
    if (family.length < 2) continue
    const endOf = (location: SessionLocation) => sessions.get(location.main.path)?.summary?.ended_at ?? ""
    family.sort((left, right) => byCodeUnits(endOf(left), endOf(right)) || byCodeUnits(left.main.path, right.main.path))
    family.forEach((location, index) => {
      if (index > 0) predecessors.set(location.main.path, family.slice(0, index))
    })
  }
  return predecessors
}

/**
 * Summaries of the resumed sessions with the copies they repeat from earlier members left out, kept (in
 * `known`) while no file of the family changes.
 */
export const resumedSummaries = (
  locations: ReadonlyArray<SessionLocation>,
  sessions: ReadonlyMap<string, IndexedSession>,
  known: ReadonlyMap<string, IndexedResumed>,
  diagnostics: Array<string>
) =>
  Effect.gen(function*() {
    const predecessors = predecessorsOf(locations, sessions)
    const entries = new Map<string, IndexedResumed>()
    const keysRead = new Map<string, Promise<Set<string>>>()
    const byPath = new Map(locations.map((location) => [location.main.path, location]))
    for (const [mainPath, earlier] of predecessors) {
      const location = byPath.get(mainPath)!
      const key = familyKey([location, ...earlier])
      const cached = known.get(mainPath)
      if (cached?.key === key) {
        entries.set(mainPath, cached)
        continue
      }
      const copied = yield* copiedKeysOf(earlier, keysRead)
      const summary: ThreadSummary | undefined = yield* onMainThread(location, copied).pipe(
        Effect.map((digest) => digest.summary),
        Effect.catchAll((error) => Effect.sync(() => (diagnostics.push(error.message), undefined)))
      )
      entries.set(mainPath, { key, summary })
    }
    return { predecessors, entries }
  })
