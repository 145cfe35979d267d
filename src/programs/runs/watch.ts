import { type Duration, Effect, Option, Schedule, Stream } from "effect"
import { type RunState, TERMINAL_STATUSES } from "../../domain/runState.js"
import { RunStore } from "../../services/RunStore.js"
import { Settings } from "../../services/Settings.js"

// await and cancel

export interface AwaitRunOptions {
  /** How often another process's run is looked at again; 250 ms by default. This controller's runs need no looking. */
  readonly pollInterval?: Duration.DurationInput
}

const finalState = (state: RunState | undefined) =>
  state !== undefined && TERMINAL_STATUSES.has(state.status) ? Option.some(state) : Option.none()

/**
 * Waits until the run is `completed`, `failed` or `cancelled`, and answers its final state: a run
 * of this controller by following the run store, another process's run by reading it again.
 */
export const awaitRun = (runId: string, options: AwaitRunOptions = {}) =>
  Effect.gen(function*() {
    const runs = yield* RunStore
    const settings = yield* Settings
    const { state } = yield* runs.readAny(runId)
    if (TERMINAL_STATUSES.has(state.status)) return state
    if (state.controller_session_id === settings.controllerSessionId) {
      const final = yield* runs.changes.pipe(
        Stream.filterMap((snapshot) => finalState(snapshot.runs.get(runId)?.state)),
        Stream.runHead
      )
      if (Option.isSome(final)) return final.value
    }
    const interval = options.pollInterval ?? "250 millis"
    const read = Effect.map(runs.readAny(runId), ({ state }) => state)
    return yield* Effect.repeat(read, {
      schedule: Schedule.identity<RunState>().pipe(Schedule.addDelay(() => interval)),
      until: (state) => TERMINAL_STATUSES.has(state.status)
    }).pipe(Effect.delay(interval))
  }).pipe(Effect.withSpan("runs.awaitRun"))

/** Two reads of one unchanged state file are the same state, though not the same object. */
const sameState = (left: RunState, right: RunState) => left === right || JSON.stringify(left) === JSON.stringify(right)

/**
 * A run's state now and at every change the run store sees, ending with its final state: this
 * controller's runs as they change, another process's as the daemon looks at the run root again.
 */
export const watchRun = (runId: string) =>
  Stream.unwrap(Effect.gen(function*() {
    const runs = yield* RunStore
    const { state } = yield* runs.readAny(runId)
    const changes = runs.changes.pipe(Stream.filterMap((snapshot) => Option.fromNullable(snapshot.runs.get(runId)?.state)))
    return Stream.concat(Stream.make(state), changes).pipe(
      Stream.changesWith(sameState),
      Stream.takeUntil((state) => TERMINAL_STATUSES.has(state.status))
    )
  }))
