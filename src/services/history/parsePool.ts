import { Worker } from "@effect/platform"
import * as NodeWorker from "@effect/platform-node/NodeWorker"
import { Deferred, Effect, Either, Exit, Ref } from "effect"
import { createRequire } from "node:module"
import { availableParallelism } from "node:os"
import { pathToFileURL } from "node:url"
import { type ResourceLimits, Worker as NodeThread } from "node:worker_threads"
import type { SessionDigest, SessionFiles } from "../../domain/history/reader.js"

/**
 * The cold listing's parse pool: a few worker threads on `@effect/platform`'s Worker, each summarising one
 * session at a time (parseWorker.ts). A session whose worker stopped (it ran out of memory on a giant line,
 * or never started) is summarised on the main thread instead; the caller does that on `WorkerLost`.
 */

/** Why a worker could not read a session (a plain object: it crosses the thread boundary). */
export interface ParseFailure {
  readonly message: string
  readonly code: string | undefined
}

/** The worker stopped, or never started. */
export class WorkerLost {
  readonly _tag = "WorkerLost"
}

export interface ParsePool {
  readonly size: number
  /** Whether a worker has fewer than TASKS_PER_WORKER sessions queued. */
  readonly hasRoom: Effect.Effect<boolean>
  readonly digest: (files: SessionFiles) => Effect.Effect<SessionDigest, ParseFailure | WorkerLost>
}

/** Below this much stale transcript data a cold listing parses on the main thread (starting workers costs more). */
const WORKER_MIN_BYTES = 64 * 1024 * 1024
const WORKER_MIN_FILES = 16
const MAX_WORKERS = 2
/**
 * The importer's peak-RSS budget. A main-thread listing grows the process by 25–35 MB and each worker adds
 * 40–50 MB. So "auto" runs two workers when the process is small enough for both, else one worker beside the
 * main thread, else the main thread.
 */
const RSS_BUDGET_BYTES = 300 * 1024 * 1024
const LISTING_GROWTH_BYTES = 45 * 1024 * 1024
const WORKER_RSS_BYTES = 45 * 1024 * 1024
/** Sessions queued on each worker at once, so that none waits for the main thread between two files. */
export const TASKS_PER_WORKER = 2
/**
 * Each worker is its own V8 heap; a bounded young generation keeps the listing's peak RSS in budget (lines die
 * young). 16 MB: halving it cost a cold listing 12% of its CPU, doubling it gained nothing and added 17 MB.
 */
export const WORKER_LIMITS: ResourceLimits = { maxYoungGenerationSizeMb: 16, maxOldGenerationSizeMb: 128 }

/** How many workers a cold listing starts, and why none when none. */
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
  if (files < WORKER_MIN_FILES || bytes < WORKER_MIN_BYTES) return { workers: 0, mainThreadReason: "little to parse" }
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

/**
 * The worker entry. In the bundle (`dist/bundle/main.mjs`) it is the bundle's `parseWorker.mjs` beside this
 * chunk; from dist it is plain JavaScript; from src (tsx, vitest) it is TypeScript, so a small bootstrap
 * registers tsx's loader in the worker first (`--import tsx` in a worker's execArgv does not reach its loader
 * on Node 20).
 */
const workerEntry = (): { readonly script: string | URL; readonly eval: boolean } => {
  if (/\.[cm]js$/.test(import.meta.url)) return { script: new URL("./parseWorker.mjs", import.meta.url), eval: false }
  if (!import.meta.url.endsWith(".ts")) return { script: new URL("./parseWorker.js", import.meta.url), eval: false }
  const source = new URL("./parseWorker.ts", import.meta.url).href
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx/esm/api").replace(/\.cjs$/, ".mjs")).href
  return {
    script: `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(source)}) })`,
    eval: true
  }
}

/**
 * Runs `use` with a pool of `size` workers, closed when it ends. Once a worker has stopped (or could not
 * start), the rest of the listing stays on the main thread: the platform would start it again and again.
 */
export const withParsePool = <A, E, R>(size: number, limits: ResourceLimits, use: (pool: ParsePool) => Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const entry = workerEntry()
    const stopped = yield* Deferred.make<void>()
    const spawn = () => {
      const thread = new NodeThread(entry.script, { eval: entry.eval, resourceLimits: limits })
      thread.once("exit", () => Deferred.unsafeDone(stopped, Exit.void))
      return thread
    }
    const lost = Effect.zipRight(Deferred.await(stopped), Effect.fail(new WorkerLost()))
    return yield* Effect.gen(function*() {
      const started = yield* Effect.either(Effect.raceFirst(
        Effect.disconnect(Worker.makePool<SessionFiles, SessionDigest, ParseFailure>({ size, concurrency: TASKS_PER_WORKER })),
        lost
      ))
      if (Either.isLeft(started)) return yield* use(lostPool(size))
      const pool = started.right
      const queued = yield* Ref.make(0)
      return yield* use({
        size,
        hasRoom: Effect.map(Ref.get(queued), (count) => count < size * TASKS_PER_WORKER),
        digest: (files) =>
          Effect.zipRight(
            Ref.update(queued, (count) => count + 1),
            Effect.raceFirst(Effect.disconnect(Effect.catchTag(pool.executeEffect(files), "WorkerError", () => Effect.fail(new WorkerLost()))), lost)
          ).pipe(Effect.ensuring(Ref.update(queued, (count) => count - 1)))
      })
    }).pipe(Effect.provide(NodeWorker.layer(spawn)))
  }).pipe(Effect.scoped)

/** A pool whose workers could not start: every session goes back to the main thread. */
const lostPool = (size: number): ParsePool => ({
  size,
  hasRoom: Effect.succeed(false),
  digest: () => Effect.fail(new WorkerLost())
})
