import { Worker } from "@effect/platform"
import * as NodeWorker from "@effect/platform-node/NodeWorker"
import { Deferred, Effect, Exit, Logger, LogLevel, Scope } from "effect"
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

interface Slot {
  /** False once its thread stopped (or could not start): nothing more is sent to it. */
  alive: boolean
  /** Sessions sent to it and not answered yet. */
  inFlight: number
  worker: Worker.Worker<SessionFiles, SessionDigest, ParseFailure> | undefined
  readonly stopped: Deferred.Deferred<void>
  readonly scope: Scope.CloseableScope
}

/**
 * Runs `use` with `size` workers, closed when it ends. Each session goes to the live worker with the fewest
 * sessions in flight. A worker that stops (it ran out of memory, or never started) fails only the sessions it
 * held (`WorkerLost`: the caller parses them on the main thread); the other workers go on, and it is not
 * started again (the platform would restart it a second later and send it the next sessions).
 */
export const withParsePool = <A, E, R>(size: number, limits: ResourceLimits, use: (pool: ParsePool) => Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const entry = workerEntry()
    const slots: Array<Slot> = []
    for (let index = 0; index < size; index++) {
      slots.push({ alive: true, inFlight: 0, worker: undefined, stopped: yield* Deferred.make<void>(), scope: yield* Scope.make() })
    }
    yield* Effect.addFinalizer(() => Effect.forEach(slots, (slot) => Scope.close(slot.scope, Exit.void), { discard: true }))
    const poolScope = yield* Effect.scope
    /**
     * A stopped worker's scope is closed once the platform has failed the sessions it held (closing it earlier
     * would interrupt them rather than fail them): that ends the platform's restarts. The close runs in a fiber of
     * the pool's scope, so that the session that finished last does not wait for it.
     */
    const closeIfIdle = (slot: Slot) =>
      Effect.forkIn(
        Effect.suspend(() => (!slot.alive && slot.inFlight === 0 ? Scope.close(slot.scope, Exit.void) : Effect.void)),
        poolScope
      )
    // A worker stops in a thread's listener, outside any fiber: it only completes `stopped`, which this fiber awaits.
    yield* Effect.forEach(slots, (slot) => Effect.forkIn(Effect.flatMap(Deferred.await(slot.stopped), () => closeIfIdle(slot)), poolScope), {
      discard: true
    })
    const stop = (slot: Slot) => {
      if (!slot.alive) return
      slot.alive = false
      Deferred.unsafeDone(slot.stopped, Exit.void)
    }
    const spawn = (id: number) => {
      const slot = slots[id]!
      const thread = new NodeThread(entry.script, { eval: entry.eval, resourceLimits: limits })
      // Registered before the platform's own listeners: a stopped worker is given nothing more.
      thread.once("error", () => stop(slot))
      thread.once("exit", () => stop(slot))
      return thread
    }
    yield* Effect.gen(function*() {
      const manager = yield* Worker.WorkerManager
      yield* Effect.forEach(slots, (slot) =>
        Effect.raceFirst(
          Effect.map(Scope.extend(manager.spawn<SessionFiles, SessionDigest, ParseFailure>({}), slot.scope), (worker) => {
            slot.worker = worker
          }),
          Deferred.await(slot.stopped)
        ).pipe(Effect.catchAll(() => Effect.sync(() => stop(slot)))), { concurrency: "unbounded", discard: true })
    }).pipe(
      Effect.provide(NodeWorker.layer(spawn)),
      // The platform logs each stop of a worker; here a stop is handled (its sessions parse on the main thread).
      Logger.withMinimumLogLevel(LogLevel.None)
    )
    const live = () => slots.filter((slot) => slot.alive && slot.worker !== undefined)
    return yield* use({
      size,
      hasRoom: Effect.sync(() => live().some((slot) => slot.inFlight < TASKS_PER_WORKER)),
      digest: (files) =>
        Effect.suspend(() => {
          const slot = live().reduce<Slot | undefined>((best, candidate) =>
            best === undefined || candidate.inFlight < best.inFlight ? candidate : best, undefined)
          if (slot === undefined) return Effect.fail(new WorkerLost())
          slot.inFlight++
          return slot.worker!.executeEffect(files).pipe(
            Effect.catchTag("WorkerError", () => Effect.fail(new WorkerLost())),
            Effect.ensuring(Effect.zipRight(Effect.sync(() => void slot.inFlight--), closeIfIdle(slot)))
          )
        })
    })
  }).pipe(Effect.scoped)
