import { Either } from "effect"
import type { PhaseRow, RunState } from "./contracts/index.js"
import { RunCancelled, StateTransitionConflict } from "./errors.js"

export const PHASES = [
  ["preparing", "Configuration approved"],
  ["queued", "Waiting to run"],
  ["creating_workspace", "Creating workspace"],
  ["implementing", "Implementing with Codex"],
  ["collecting", "Collecting results"],
  ["checking", "Running the checks"],
  ["reviewing", "Blind review"],
  ["reporting", "Writing the report"]
] as const

export type PhaseId = (typeof PHASES)[number][0]
export type RunStatus = "running" | "completed" | "failed" | "cancelled"
export const TERMINAL_STATUSES: ReadonlySet<string> = new Set(["completed", "failed", "cancelled"])

/** The tag on every process of a run (the run id when the state predates tags). */
export const runTagOf = (state: RunState) => (typeof state.run_tag === "string" ? state.run_tag : state.run_id)
export const MAX_EVENTS = 200
export const MAX_SUMMARY_CHARS = 1000
export const STATE_SCHEMA_VERSION = 1

export { type PhaseRow, type RunEvent, RunState } from "./contracts/index.js"

export interface InitialRun {
  readonly runId: string
  readonly controllerSessionId: string
  readonly coordinatorPid: number
  readonly now: string
  readonly details?: Readonly<Record<string, unknown>>
}

export const initialRunState = (run: InitialRun): RunState => ({
  ...run.details,
  schema_version: STATE_SCHEMA_VERSION,
  controller_session_id: run.controllerSessionId,
  run_id: run.runId,
  coordinator_pid: run.coordinatorPid,
  status: "running",
  phase: "queued",
  phases: PHASES.map(([id, label]) => ({
    id,
    label,
    status: id === "preparing" ? "complete" : id === "queued" ? "running" : "waiting"
  })),
  events: [{ at: run.now, phase: "preparing", status: "complete", summary: "Configuration approved." }],
  started_at: run.now,
  updated_at: run.now,
  completed_at: null,
  error: null
})

export interface StateUpdate {
  readonly phase?: PhaseId
  readonly status?: RunStatus
  /** Fails with a conflict, writing nothing, unless the run currently has this status. */
  readonly expectedStatus?: RunStatus
  readonly summary?: string
  readonly details?: Readonly<Record<string, unknown>>
}

/** A phase passed over (the checks of a run that approved none) is `skipped`, never left `waiting`. */
const markPhases = (phases: ReadonlyArray<PhaseRow>, previous: string, next: string, status: string) => {
  const from = phases.findIndex((row) => row.id === previous)
  const to = phases.findIndex((row) => row.id === next)
  return phases.map((row, index) =>
    row.id === next
      ? { ...row, status: status === "running" ? "running" : status }
      : row.id === previous && row.status === "running"
      ? { ...row, status: "complete" }
      : from !== -1 && index > from && index < to && row.status === "waiting"
      ? { ...row, status: "skipped" }
      : row
  )
}

const closePhase = (phases: ReadonlyArray<PhaseRow>, phase: string, status: string) =>
  phases.map((row) => (row.id === phase ? { ...row, status: status === "completed" ? "complete" : status } : row))

/**
 * Applies one transition. A cancelled run never leaves `cancelled`; an `expectedStatus` that does not
 * match is a conflict. Both leave the state untouched.
 */
export const applyStateUpdate = (
  state: RunState,
  update: StateUpdate,
  now: string
): Either.Either<RunState, StateTransitionConflict | RunCancelled> => {
  if (update.expectedStatus !== undefined && state.status !== update.expectedStatus) {
    return Either.left(
      new StateTransitionConflict({
        run_id: state.run_id,
        expected: update.expectedStatus,
        found: state.status,
        message: `The run is ${state.status}, not ${update.expectedStatus}.`
      })
    )
  }
  if (state.status === "cancelled" && update.status !== "cancelled") {
    return Either.left(new RunCancelled({ run_id: state.run_id, message: "The replay was cancelled." }))
  }
  const status = update.status ?? state.status
  const phase = update.phase ?? state.phase
  let phases = update.phase === undefined ? state.phases : markPhases(state.phases, state.phase, phase, status)
  const terminal = update.status !== undefined && TERMINAL_STATUSES.has(update.status)
  if (terminal) phases = closePhase(phases, phase, status)
  const summary = update.summary?.slice(0, MAX_SUMMARY_CHARS)
  const events = summary === undefined
    ? state.events
    : [...state.events, { at: now, phase, status, summary }].slice(-MAX_EVENTS)
  return Either.right({
    ...state,
    ...update.details,
    status,
    phase,
    phases,
    events,
    updated_at: now,
    ...(terminal ? { completed_at: now } : {})
  })
}

/** `list_runs` filters and paging (docs/controller.md, run history). */
export { DEFAULT_RUNS_PAGE, MAX_RUNS_PAGE, RUN_STATUSES, RUN_WINNERS } from "./contracts/index.js"
