import { Clock, DateTime, Duration, Effect, Either, Option } from "effect"
import { statSync } from "node:fs"
import * as path from "node:path"
import { conflict, controllerError, ControllerError, isControllerError, notFound, RunCancelled, StateTransitionConflict, StorageError } from "../domain/errors.js"
import { isRunId } from "../domain/ids.js"
import { MAX_STATE_BYTES, STATE_FILE } from "../domain/product.js"
import {
  applyStateUpdate,
  initialRunState,
  type InitialRun,
  isRunState,
  type RunState,
  TERMINAL_STATUSES,
  type StateUpdate
} from "../domain/runState.js"
import { FileStore, type JsonObject } from "./FileStore.js"
import { cachedFor } from "./internal/cachedFor.js"
import { isSameProcess, startTimeOf } from "./internal/procfs.js"
import { RunLog } from "./RunLog.js"
import { Settings } from "./Settings.js"

const ACTIVE_COUNT_TTL = Duration.millis(250)

/** A local stat is cheaper done at once than through the thread pool; this runs on every `get_state`. */
const statOrUndefined = (file: string) => statSync(file, { throwIfNoEntry: false })

/**
 * An identity for a file's content, or undefined while it changed too recently to tell: file
 * timestamps advance in coarse ticks, so two changes within one tick can share an mtime.
 */
const settledStamp = (stat: { readonly mtimeMs: number; readonly size: number; readonly ino: number }) =>
  Date.now() - stat.mtimeMs < 1000 ? undefined : `${stat.size}:${stat.mtimeMs}:${stat.ino}`

export const nowIso = Effect.map(Clock.currentTimeMillis, (millis) => DateTime.formatIso(DateTime.unsafeMake(millis)))

const asRunState = (name: string, value: JsonObject): Effect.Effect<RunState, ControllerError> =>
  isRunState(value) ? Effect.succeed(value) : Effect.fail(controllerError(`${name} is not a replay run state.`))

/** Run directories under the run root and their durable `controller-state.json` (SPEC §7.3). */
export class RunStore extends Effect.Service<RunStore>()("codex-replay/RunStore", {
  effect: Effect.gen(function*() {
    const settings = yield* Settings
    const files = yield* FileStore
    const runLog = yield* RunLog
    const owner = settings.controllerSessionId

    /** The directory of a run id from a request: validated, contained, and not a symlink leading out. */
    const resolveDirectory = Effect.fn("RunStore.resolveDirectory")(function*(runId: string) {
      if (!isRunId(runId)) return yield* controllerError("The run ID is invalid.")
      return yield* files.resolveInside(settings.runRoot, runId).pipe(
        Effect.mapError(() => controllerError("The run directory is outside the configured run root."))
      )
    })

    const existingDirectory = Effect.fn("RunStore.existingDirectory")(function*(runId: string) {
      const directory = yield* resolveDirectory(runId)
      if (!(yield* files.isDirectory(directory))) return yield* notFound("The replay run is unavailable.")
      return directory
    })

    const statePath = (directory: string) => path.join(directory, STATE_FILE)

    const readStateAt = (directory: string) =>
      files.readJson(statePath(directory), MAX_STATE_BYTES).pipe(Effect.flatMap((value) => asRunState(STATE_FILE, value)))

    /**
     * Final states the disk refused (it was full): the run has ended all the same, in memory at once, and
     * `flushUnwritten` writes them as soon as the disk takes them. Reads see these states, not the file.
     */
    const unwritten = new Map<string, RunState>()

    /** Every state write goes through here, so the shared listing (below) never hides one of ours. */
    const writeState = (directory: string, state: RunState) =>
      files.writeJson(statePath(directory), state).pipe(
        Effect.tap(() => Effect.sync(() => unwritten.delete(directory))),
        Effect.ensuring(Effect.sync(() => forgetListing()))
      )

    /** A final state that cannot be written is kept in memory; any other refused write fails the update. */
    const writeOrRemember = (directory: string, state: RunState) =>
      writeState(directory, state).pipe(
        Effect.catchTag("StorageError", (error) =>
          TERMINAL_STATUSES.has(state.status)
            ? Effect.zipRight(
              Effect.sync(() => {
                unwritten.set(directory, state)
                forgetListing()
              }),
              Effect.logWarning(`Run ${state.run_id} ended ${state.status}; its state will be written when the disk allows: ${error.message}`)
            )
            : Effect.fail(error))
      )

    /** Writes the final states the disk refused earlier; those it still refuses stay for the next try. */
    const flushUnwritten = Effect.suspend(() =>
      Effect.forEach([...unwritten.keys()], (directory) =>
        files.withLock(
          statePath(directory),
          Effect.suspend(() => {
            const state = unwritten.get(directory)
            return state === undefined ? Effect.void : Effect.ignore(writeState(directory, state))
          })
        ), { discard: true })
    )

    /** The state of any run in the run root (runs outlive their controller); a missing run is a user error. */
    const readAny = Effect.fn("RunStore.readAny")(function*(runId: string) {
      const directory = yield* existingDirectory(runId)
      const remembered = unwritten.get(directory)
      const state = remembered !== undefined
        ? Option.some<JsonObject>(remembered)
        : yield* files.readJsonOption(statePath(directory), MAX_STATE_BYTES)
      if (Option.isNone(state)) return yield* notFound("The replay run state is unavailable.")
      return { directory, state: yield* asRunState(STATE_FILE, state.value) }
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
      const directory = yield* resolveDirectory(run.runId)
      if (yield* files.exists(directory)) return yield* conflict(`The run ${run.runId} already exists.`)
      const state = initialRunState({
        ...run,
        details: { ...run.details, coordinator_start_time: startTimeOf(run.coordinatorPid) ?? null },
        controllerSessionId: owner,
        now: yield* nowIso
      })
      // A run that could not be created whole (a full disk) leaves nothing behind, least of all a `running` state.
      yield* Effect.gen(function*() {
        yield* files.ensurePrivateDirectory(directory)
        yield* writeState(directory, state)
        yield* runLog.append(directory, "controller", "run approved")
      }).pipe(Effect.tapError(() => Effect.ignore(files.remove(directory))))
      return { directory, state }
    })

    /** Serialised, atomic transition; the summary also goes to the run log. */
    const update = (
      directory: string,
      change: StateUpdate
    ): Effect.Effect<RunState, ControllerError | StorageError | StateTransitionConflict | RunCancelled> =>
      Effect.gen(function*() {
        const next = yield* files.withLock(
          statePath(directory),
          Effect.gen(function*() {
            const current = unwritten.get(directory) ?? (yield* readStateAt(directory))
            const applied = applyStateUpdate(current, change, yield* nowIso)
            if (Either.isLeft(applied)) return yield* applied.left
            yield* writeOrRemember(directory, applied.right)
            return applied.right
          })
        )
        // The transition is recorded once the state is written; a log that cannot take the line does not undo it.
        if (change.summary !== undefined) {
          yield* runLog.append(directory, "controller", `${next.phase} [${next.status}]: ${change.summary}`).pipe(
            Effect.catchAll((error) => Effect.logWarning(error.message))
          )
        }
        return next
      }).pipe(Effect.withSpan("RunStore.update"))

    /** Parsed states by path, reused while the file's size and mtime are unchanged (atomic writes replace it). */
    const parsed = new Map<string, { readonly stamp: string; readonly state: Option.Option<RunState> }>()
    const readStateCached = (directory: string): Effect.Effect<Option.Option<RunState>> =>
      Effect.suspend(() => {
        const file = statePath(directory)
        const stat = statOrUndefined(file)
        if (stat === undefined) return Effect.succeed(Option.none())
        const stamp = settledStamp(stat)
        const known = parsed.get(file)
        if (stamp !== undefined && known?.stamp === stamp) return Effect.succeed(known.state)
        // A read that failed (the disk, not the content) is not remembered: the next look tries again.
        return readStateAt(directory).pipe(
          Effect.map(Option.some),
          Effect.catchIf(isControllerError, () => Effect.succeed(Option.none<RunState>())),
          Effect.tap((state) => {
            if (stamp === undefined) parsed.delete(file)
            else parsed.set(file, { stamp, state })
          }),
          Effect.orElseSucceed(() => Option.none<RunState>())
        )
      })

    /** The run directory names, read again only when the run root's mtime says an entry came or went. */
    let knownNames: { readonly stamp: string; readonly names: ReadonlyArray<string> } | undefined
    const runDirectoryNames = Effect.gen(function*() {
      const stat = statOrUndefined(settings.runRoot)
      if (stat === undefined) return []
      const stamp = settledStamp(stat)
      if (stamp !== undefined && knownNames?.stamp === stamp) return knownNames.names
      const names = (yield* files.listDirectories(settings.runRoot)).filter(isRunId)
      knownNames = stamp === undefined ? undefined : { stamp, names }
      return names
    })

    const newestFirst = (a: RunState, b: RunState) => b.started_at.localeCompare(a.started_at) || b.run_id.localeCompare(a.run_id)

    /**
     * Every readable run state in the run root, whichever controller ran it, newest first; a final state
     * that a full disk has not taken yet is answered from memory.
     */
    const listEveryNow = Effect.gen(function*() {
      const names = yield* runDirectoryNames
      // One after another: nearly every state is a cache hit answered at once, where forking readers costs more.
      const states = yield* Effect.forEach(names, (name) => {
        const directory = path.join(settings.runRoot, name)
        const remembered = unwritten.get(directory)
        return remembered === undefined ? readStateCached(directory) : Effect.succeed(Option.some(remembered))
      })
      return states.flatMap((state) => (Option.isSome(state) ? [state.value] : [])).sort(newestFirst)
    })
    const listAll = (): Effect.Effect<ReadonlyArray<RunState>> => listEveryNow

    // Not an `Effect.fn`: its span and call-site capture would double the cost of `get_state`.
    const listOwnedNow = Effect.map(listEveryNow, (states) => states.filter((state) => state.controller_session_id === owner))

    /**
     * Every readable run state of this controller, newest first; unreadable directories are skipped.
     * Requests handled in one turn of the event loop share one look at the disk (a look costs a stat
     * per run): a listing is kept only if it finished before the loop's next check phase (where
     * `setImmediate` runs), and only until then. This process's own state writes drop it at once.
     */
    let listedThisTurn: ReadonlyArray<RunState> | undefined
    let listingGeneration = 0
    let turnEndPending = false
    const forgetListing = () => {
      listedThisTurn = undefined
      listingGeneration++
    }
    const endTurn = () => {
      turnEndPending = false
      forgetListing()
    }
    const listOwned = (): Effect.Effect<ReadonlyArray<RunState>> =>
      Effect.suspend(() => {
        if (listedThisTurn !== undefined) return Effect.succeed(listedThisTurn)
        if (!turnEndPending) {
          turnEndPending = true
          setImmediate(endTurn)
        }
        const generation = listingGeneration
        return Effect.tap(listOwnedNow, (states) => {
          if (listingGeneration === generation) listedThisTurn = states
        })
      })

    /** A run is active while it is `running` and its coordinator process is alive (SPEC §5). */
    const isActive = (state: RunState) =>
      state.status === "running" && isSameProcess(state.coordinator_pid, state.coordinator_start_time)

    /**
     * How many owned runs are active. It reads every state file, so answers are reused for a moment:
     * `/health` and the idle rule ask often, and a run's start or end shows up within that moment.
     */
    const countActiveNow = Effect.map(listOwned(), (states) => states.filter(isActive).length)
    const countActive = yield* cachedFor(countActiveNow, ACTIVE_COUNT_TTL)

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
      flushUnwritten,
      isActive,
      countActive,
      countActiveNow,
      statePath
    } as const
  }),
  dependencies: [FileStore.Default, RunLog.Default]
}) {}
