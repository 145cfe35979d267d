import { Clock, DateTime, Effect, Either, Option, Random, Ref, Schedule, Stream, SubscriptionRef } from "effect"
import * as path from "node:path"
import { diskRetrySchedule, RUN_STATE_DISK_WAIT } from "../domain/diskRetry.js"
import { conflict, type ControllerError, invalidArgument, isOutOfSpace, notFound, type RunCancelled, type StateTransitionConflict, type StorageError, type UnreadableFile, unreadableFile } from "../domain/errors.js"
import { isRunId } from "../domain/ids.js"
import { MAX_STATE_BYTES, STATE_FILE } from "../domain/product.js"
import {
  applyStateUpdate,
  initialRunState,
  type InitialRun,
  RunState,
  TERMINAL_STATUSES,
  type StateUpdate
} from "../domain/runState.js"
import { type FileIdentity, FileStore } from "./FileStore.js"
import { isSameProcess, startTimeOf } from "./platform/procfs.js"
import { RunLog } from "./RunLog.js"
import { Settings } from "./Settings.js"

export const nowIso = Effect.map(Clock.currentTimeMillis, (millis) => DateTime.formatIso(DateTime.unsafeMake(millis)))

/** One run as the store knows it. */
interface StoredRun {
  readonly directory: string
  readonly state: RunState
  /**
   * The state file as last read from disk, or undefined when it must be read again: this process
   * wrote it, or it changed too recently to tell (file times advance in coarse ticks).
   */
  readonly stamp: string | undefined
  /** A final state the disk refused (it was full): it stands all the same, and is written later. */
  readonly unwritten: boolean
}

/** Every run of the run root at one moment, and this controller's own, newest first. */
export interface RunsSnapshot {
  readonly runs: ReadonlyMap<string, StoredRun>
  readonly owned: ReadonlyArray<RunState>
}

const newestFirst = (a: RunState, b: RunState) => b.started_at.localeCompare(a.started_at) || b.run_id.localeCompare(a.run_id)

const snapshotOf = (runs: ReadonlyMap<string, StoredRun>, owner: string): RunsSnapshot => ({
  runs,
  owned: [...runs.values()].flatMap(({ state }) => (state.controller_session_id === owner ? [state] : [])).sort(newestFirst)
})

const SETTLE_MILLIS = 1000

/** A run is made in `.creating-<run id>.<6 hex>` (no run id starts with a dot), then renamed to its id. */
const STAGING_PREFIX = ".creating-"
/** Making a run takes milliseconds: a staging directory this old belongs to a controller that was killed. */
const ABANDONED_AFTER_MS = 10 * 60 * 1000

const stampOf = (file: FileIdentity, now: number) =>
  now - file.mtimeMs < SETTLE_MILLIS ? undefined : `${file.size}:${file.mtimeMs}:${file.ino}`

/** A run is active while it is `running` and its coordinator process is alive (docs/controller.md). */
export const isActive = (state: RunState) =>
  state.status === "running" && isSameProcess(state.coordinator_pid, state.coordinator_start_time)

/**
 * The runs of the run root (docs/controller.md), held in memory and written through to each run's
 * `controller-state.json`. This controller's runs change only through it, so memory is their truth;
 * runs other processes write are noticed by `rescan`, which the daemon repeats in the background.
 */
export class RunStore extends Effect.Service<RunStore>()("codex-replay/RunStore", {
  effect: Effect.gen(function*() {
    const settings = yield* Settings
    const files = yield* FileStore
    const runLog = yield* RunLog
    const owner = settings.controllerSessionId
    const ref = yield* SubscriptionRef.make(snapshotOf(new Map(), owner))

    const statePath = (directory: string) => path.join(directory, STATE_FILE)
    const runIdOf = (directory: string) => path.basename(directory)
    const stagingOf = (runId: string) =>
      Effect.map(Random.nextIntBetween(0, 0x1000000), (suffix) =>
        path.join(settings.runRoot, `${STAGING_PREFIX}${runId}.${suffix.toString(16).padStart(6, "0")}`))

    /** The directory of a run id from a request: validated, contained, and not a symlink leading out. */
    const resolveDirectory = Effect.fn("RunStore.resolveDirectory")(function*(runId: string) {
      if (!isRunId(runId)) return yield* invalidArgument("The run ID is invalid.")
      return yield* files.resolveInside(settings.runRoot, runId).pipe(
        Effect.mapError(() => invalidArgument("The run directory is outside the configured run root."))
      )
    })

    const existingDirectory = Effect.fn("RunStore.existingDirectory")(function*(runId: string) {
      const directory = yield* resolveDirectory(runId)
      if (!(yield* files.isDirectory(directory))) return yield* notFound("The replay run is unavailable.")
      return directory
    })

    /** A state is its directory's only when it names it: one that names another run is damaged too. */
    const readStateAt = (directory: string) =>
      files.readDecoded(statePath(directory), MAX_STATE_BYTES, RunState).pipe(
        Effect.filterOrFail(
          (state) => state.run_id === runIdOf(directory),
          () => unreadableFile(`${STATE_FILE}: run_id names another run.`)
        )
      )

    /** Run directories whose state does not decode, with what is wrong: left out of every listing, named once in the log. */
    const damaged = yield* Ref.make(new Map<string, string>())
    const noteDamaged = (runId: string, problem: string | undefined) =>
      Ref.modify(damaged, (current) => {
        if (current.get(runId) === problem) return [false, current] as const
        const next = new Map(current)
        if (problem === undefined) next.delete(runId)
        else next.set(runId, problem)
        return [problem !== undefined, next] as const
      }).pipe(Effect.flatMap((isNew) =>
        isNew ? Effect.logWarning(`Run ${runId} is left out of the run history: ${problem}`) : Effect.void
      ))

    /** Applies changes to the runs, each only if its run is still as `before` saw it (a write of ours may have come first). */
    const publish = (changes: ReadonlyMap<string, StoredRun | undefined>, before?: ReadonlyMap<string, StoredRun>) =>
      SubscriptionRef.update(ref, (current) => {
        const runs = new Map(current.runs)
        let changed = false
        for (const [runId, run] of changes) {
          if (before !== undefined && current.runs.get(runId) !== before.get(runId)) continue
          if (run === undefined ? runs.delete(runId) : runs.set(runId, run)) changed = true
        }
        return changed ? snapshotOf(runs, owner) : current
      })

    const remember = (run: StoredRun) => publish(new Map([[runIdOf(run.directory), run]]))

    /** A run's state as it is on disk now, or none when it has no readable state (a damaged one is noted). */
    const lookAt = (directory: string, now: number) =>
      Effect.gen(function*() {
        const identity = yield* files.statOption(statePath(directory))
        if (Option.isNone(identity)) return Option.none<StoredRun>()
        const state = yield* Effect.either(readStateAt(directory))
        yield* noteDamaged(runIdOf(directory), Either.isLeft(state) ? state.left.message : undefined)
        return Either.isLeft(state)
          ? Option.none<StoredRun>()
          : Option.some<StoredRun>({ directory, state: state.right, stamp: stampOf(identity.value, now), unwritten: false })
      })

    /**
     * Looks at the run root again: runs that appeared, changed or went since the last look. A state
     * file whose size, time and inode are unchanged is not read again.
     */
    const rescan = Effect.gen(function*() {
      const before = (yield* SubscriptionRef.get(ref)).runs
      const now = yield* Clock.currentTimeMillis
      const names = new Set<string>((yield* files.listDirectories(settings.runRoot)).filter(isRunId))
      const changes = new Map<string, StoredRun | undefined>()
      for (const runId of before.keys()) if (!names.has(runId) && !before.get(runId)!.unwritten) changes.set(runId, undefined)
      yield* Ref.update(damaged, (current) => new Map([...current].filter(([runId]) => names.has(runId))))
      yield* Effect.forEach(names, (runId) =>
        Effect.gen(function*() {
          const known = before.get(runId)
          if (known?.unwritten === true) return
          const directory = path.join(settings.runRoot, runId)
          if (known?.stamp !== undefined) {
            const identity = yield* files.statOption(statePath(directory))
            if (Option.isSome(identity) && stampOf(identity.value, now) === known.stamp) return
          }
          const seen = Option.getOrUndefined(yield* lookAt(directory, now))
          if (seen !== undefined || known !== undefined) changes.set(runId, seen)
        }), { concurrency: 16, discard: true })
      if (changes.size > 0) yield* publish(changes, before)
    }).pipe(
      // The run root could not be looked at: what the store holds stands until the next look.
      Effect.catchAll((error) => Effect.logWarning(`Cannot look at the run root: ${error.message}`)),
      Effect.withSpan("RunStore.rescan")
    )

    /** The first use of the store reads the run root. */
    const loaded = yield* Effect.cached(rescan)

    /** Every state write goes through here. */
    const writeState = (directory: string, state: RunState) => files.writeJson(statePath(directory), state)

    /** A final state that cannot be written is kept in memory; any other refused write fails the update. */
    const writeThrough = (directory: string, state: RunState) =>
      writeState(directory, state).pipe(
        Effect.as(false),
        Effect.catchTag("StorageError", (error) =>
          TERMINAL_STATUSES.has(state.status)
            ? Effect.as(
              Effect.logWarning(`Run ${state.run_id} ended ${state.status}; its state will be written when the disk allows: ${error.message}`),
              true
            )
            : Effect.fail(error)),
        Effect.tap((unwritten) => remember({ directory, state, stamp: undefined, unwritten }))
      )

    /** Writes the final states the disk refused earlier; those it still refuses stay for the next try. */
    const flushUnwritten = Effect.gen(function*() {
      const pending = [...(yield* SubscriptionRef.get(ref)).runs.values()].filter((run) => run.unwritten)
      yield* Effect.forEach(pending, ({ directory }) =>
        files.withLock(
          statePath(directory),
          Effect.gen(function*() {
            const run = (yield* SubscriptionRef.get(ref)).runs.get(runIdOf(directory))
            if (run === undefined || !run.unwritten) return
            yield* writeState(directory, run.state).pipe(
              Effect.zipRight(remember({ ...run, unwritten: false })),
              Effect.ignore
            )
          })
        ), { discard: true })
    })

    /**
     * The staging directories of runs that were never named: their controller was killed while it made them.
     * One is removed once it is old enough that no controller can still be making it.
     */
    const removeAbandonedCreations = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const names = (yield* files.listDirectories(settings.runRoot)).filter((name) => name.startsWith(STAGING_PREFIX))
      yield* Effect.forEach(names, (name) =>
        Effect.gen(function*() {
          const staging = path.join(settings.runRoot, name)
          const identity = yield* files.statOption(staging)
          if (Option.isSome(identity) && now - identity.value.mtimeMs > ABANDONED_AFTER_MS) yield* files.remove(staging)
        }), { discard: true })
    }).pipe(
      Effect.catchAll((error) => Effect.logWarning(`Cannot remove the runs that were never created: ${error.message}`)),
      Effect.withSpan("RunStore.removeAbandonedCreations")
    )

    /** The state of any run in the run root (runs outlive their controller); a missing run is a user error. */
    const readAny = Effect.fn("RunStore.readAny")(function*(runId: string) {
      yield* loaded
      const directory = yield* existingDirectory(runId)
      const known = (yield* SubscriptionRef.get(ref)).runs.get(runId)
      // Another process's run may have changed since the last look; this controller's has not.
      if (known !== undefined && (known.unwritten || known.state.controller_session_id === owner)) {
        return { directory, state: known.state }
      }
      if (Option.isNone(yield* files.statOption(statePath(directory)))) return yield* notFound("The replay run state is unavailable.")
      const state = yield* readStateAt(directory).pipe(
        Effect.catchTag("UnreadableFile", (error) => unreadableFile(`The state of run ${runId} is damaged (${error.message})`))
      )
      return { directory, state }
    })

    /** The state of a run this controller supervises (only it may change the run); a foreign run is a user error. */
    const readOwned = Effect.fn("RunStore.readOwned")(function*(runId: string) {
      const run = yield* readAny(runId)
      if (run.state.controller_session_id !== owner) {
        return yield* conflict(
          `The replay belongs to a different controller session (${run.state.controller_session_id}); only that controller can change it.`
        )
      }
      return run
    })

    const create = Effect.fn("RunStore.create")(function*(run: Omit<InitialRun, "controllerSessionId" | "now">) {
      yield* loaded
      const directory = yield* resolveDirectory(run.runId)
      if (yield* files.exists(directory)) return yield* conflict(`The run ${run.runId} already exists.`)
      const state = initialRunState({
        ...run,
        details: { ...run.details, coordinator_start_time: startTimeOf(run.coordinatorPid) ?? null },
        controllerSessionId: owner,
        now: yield* nowIso
      })
      // Made whole under a name of its own that no run id has, then named: a run directory always holds its
      // state, even when the controller is killed half way (a batch that resumes creates the run again, in a
      // staging directory of its own). A run that could not be created whole (a full disk) leaves nothing
      // behind, least of all a `running` state.
      const staging = yield* stagingOf(run.runId)
      yield* Effect.gen(function*() {
        yield* files.ensurePrivateDirectory(staging)
        yield* writeState(staging, state)
        yield* runLog.append(staging, "controller", "run approved")
        yield* files.rename(staging, directory)
      }).pipe(Effect.tapError(() => Effect.ignore(files.remove(staging))))
      yield* remember({ directory, state, stamp: undefined, unwritten: false })
      return { directory, state }
    })

    /** The state an update starts from: the store's for this controller's runs, else the file's. */
    const currentState = (directory: string) =>
      Effect.gen(function*() {
        const known = (yield* SubscriptionRef.get(ref)).runs.get(runIdOf(directory))
        if (known !== undefined && (known.unwritten || known.state.controller_session_id === owner)) return known.state
        return yield* readStateAt(directory)
      })

    /** Serialised, atomic transition, written through; the summary also goes to the run log. */
    const update = (
      directory: string,
      change: StateUpdate
    ): Effect.Effect<RunState, ControllerError | UnreadableFile | StorageError | StateTransitionConflict | RunCancelled> =>
      Effect.gen(function*() {
        yield* loaded
        const next = yield* files.withLock(
          statePath(directory),
          Effect.gen(function*() {
            const applied = applyStateUpdate(yield* currentState(directory), change, yield* nowIso)
            if (Either.isLeft(applied)) return yield* applied.left
            yield* writeThrough(directory, applied.right)
            return applied.right
          })
        ).pipe(
          // A state the disk refuses for want of space is tried again for a while, the lock let go between tries.
          Effect.retry({ schedule: diskRetrySchedule.pipe(Schedule.upTo(RUN_STATE_DISK_WAIT)), while: isOutOfSpace })
        )
        // The transition is recorded once the state is written; a log that cannot take the line does not undo it.
        if (change.summary !== undefined) {
          yield* runLog.append(directory, "controller", `${next.phase} [${next.status}]: ${change.summary}`).pipe(
            Effect.catchAll((error) => Effect.logWarning(error.message))
          )
        }
        return next
      }).pipe(Effect.withSpan("RunStore.update"))

    const snapshot = Effect.zipRight(loaded, SubscriptionRef.get(ref))

    /** This controller's runs, newest first. */
    const listOwned = (): Effect.Effect<ReadonlyArray<RunState>> => Effect.map(snapshot, (current) => current.owned)

    /** Every readable run state in the run root, whichever controller ran it, newest first (looked at afresh). */
    const listAll = (): Effect.Effect<ReadonlyArray<RunState>> =>
      Effect.gen(function*() {
        yield* loaded
        yield* rescan
        const { runs } = yield* SubscriptionRef.get(ref)
        return [...runs.values()].map((run) => run.state).sort(newestFirst)
      })

    /** The run directories left out of `listAll` because their state does not decode, each with why. */
    const listDamaged = Effect.map(Effect.zipRight(loaded, Ref.get(damaged)), (current) =>
      [...current].sort(([a], [b]) => a.localeCompare(b)).map(([runId, problem]) => `Run ${runId}: ${problem}`))

    /** How many of this controller's runs are active. */
    const countActive = Effect.map(listOwned(), (owned) => owned.filter(isActive).length)

    /** The snapshot now and at every change; this controller's own writes show at once, others' after a rescan. */
    const changes: Stream.Stream<RunsSnapshot> = Stream.unwrap(Effect.as(loaded, ref.changes))

    return {
      runRoot: settings.runRoot,
      resolveDirectory,
      existingDirectory,
      readAny,
      readOwned,
      create,
      update,
      listOwned,
      listAll,
      listDamaged,
      rescan: Effect.zipRight(loaded, rescan),
      changes,
      flushUnwritten,
      removeAbandonedCreations,
      isActive,
      countActive,
      statePath
    } as const
  }),
  dependencies: [FileStore.Default, RunLog.Default]
}) {}
