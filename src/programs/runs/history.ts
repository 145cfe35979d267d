import { Effect, Option, Schema } from "effect"
import { SpendLine, TokenTotals } from "../../domain/spend.js"
import * as path from "node:path"
import { isControllerSessionId } from "../../domain/ids.js"
import { MAX_RUNTIME_FILE_BYTES, RUNTIME_FILE, controllerOrigin } from "../../domain/product.js"
import { type ListRunsArguments, RuntimeFileAddress } from "../../domain/contracts/index.js"
import { DEFAULT_RUNS_PAGE, type RunState, TERMINAL_STATUSES } from "../../domain/runState.js"
import { sha256 } from "../../domain/runConfig.js"
import { caveatsOfSummary } from "../../domain/report/caveats.js"
import { FileStore } from "../../services/FileStore.js"
import { RunStore } from "../../services/RunStore.js"
import { Settings } from "../../services/Settings.js"
import { blindnessOf } from "../votes/blindness.js"
import { inDateRange } from "../../domain/dateRange.js"
import { threadTitles } from "./runTitles.js"

export { ListRunsArguments } from "../../domain/contracts/index.js"

/** Who supervises a run: only that controller may cancel it; for anyone else the run is read-only. */
export interface Supervision {
  readonly controller_session_id: string
  /** This controller supervises the run. */
  readonly this_controller: boolean
  /** The run is running and its controller process is alive. */
  readonly live: boolean
  /** Running under another live controller: shown, never changed, from here. */
  readonly read_only: boolean
  /** The URL of the supervising controller, when it is live and its runtime file is readable. */
  readonly controller_url: string | null
}

const controllerUrlOf = (sessionId: string) =>
  Effect.gen(function*() {
    const settings = yield* Settings
    const files = yield* FileStore
    if (!isControllerSessionId(sessionId)) return null
    const runtime = yield* files.readDecodedOption(path.join(settings.controllersRoot, sessionId, RUNTIME_FILE), MAX_RUNTIME_FILE_BYTES, RuntimeFileAddress).pipe(
      Effect.orElseSucceed(() => Option.none())
    )
    return Option.isSome(runtime) ? `${controllerOrigin(runtime.value.port)}/` : null
  })

export const supervisionOf = (state: RunState) =>
  Effect.gen(function*() {
    const settings = yield* Settings
    const runs = yield* RunStore
    const thisController = state.controller_session_id === settings.controllerSessionId
    const live = runs.isActive(state)
    const readOnly = live && !thisController
    return {
      controller_session_id: state.controller_session_id,
      this_controller: thisController,
      live,
      read_only: readOnly,
      controller_url: readOnly ? yield* controllerUrlOf(state.controller_session_id) : null
    } satisfies Supervision
  })

/** The sentence that names who runs a run another controller is executing. */
export const supervisionText = (supervision: Supervision) =>
  supervision.read_only
    ? ` It is running in controller ${supervision.controller_session_id}${
      supervision.controller_url === null ? "" : ` (${supervision.controller_url})`
    }; only that controller can cancel it.`
    : ""

const text = (value: unknown) => (typeof value === "string" ? value : null)

export const winnerOf = (state: RunState) => {
  const summary = state.report_summary
  const winner = typeof summary === "object" && summary !== null ? (summary as { winner?: unknown }).winner : undefined
  return text(winner)
}

/** Dimension outcomes from Codex's side: won, tied (or not applicable) and lost. */
export const dimensionTally = (state: RunState) => {
  const summary = state.report_summary as { evaluation?: { dimensions?: Record<string, unknown> } } | null | undefined
  const dimensions = Object.values(summary?.evaluation?.dimensions ?? {})
  if (dimensions.length === 0) return null
  return {
    won: dimensions.filter((winner) => winner === "codex").length,
    tied: dimensions.filter((winner) => winner !== "codex" && winner !== "claude").length,
    lost: dimensions.filter((winner) => winner === "claude").length
  }
}

/** Whether the report flagged Codex's patch as Claude's (a possible leak); `null` when the run recorded no such check. */
export const possibleLeakOf = (state: RunState) => {
  const summary = state.report_summary as { possible_leak?: unknown } | null | undefined
  return typeof summary?.possible_leak === "boolean" ? summary.possible_leak : null
}

/** Whether the run's two judges split, when it had a second judge. */
const judgesSplitOf = (state: RunState): { readonly judges_split?: boolean } => {
  const summary = state.report_summary as { judges_split?: unknown } | null | undefined
  return typeof summary?.judges_split === "boolean" ? { judges_split: summary.judges_split } : {}
}

/** The checks' sentence its state recorded of the report; `null` for a run without checks or written before them. */
export const checksSentenceOf = (state: RunState) => {
  const summary = state.report_summary as { checks?: { sentence?: unknown } | null } | null | undefined
  return text(summary?.checks?.sentence)
}

const phaseLabelOf = (state: RunState) => state.phases.find((phase) => phase.id === state.phase)?.label ?? state.phase

/** The run's ledger sums its state recorded of the report; absent for an older run. */
export const spendSummaryOf = (state: RunState) => {
  const summary = state.report_summary as { spend?: unknown } | null | undefined
  // A run that ended without a report keeps its ledger's sums in its state as the calls were made.
  const decoded = Schema.decodeUnknownOption(Schema.Struct({ implementation: SpendLine, evaluation: SpendLine, total: SpendLine }))(summary?.spend ?? state.spend)
  return decoded._tag === "Some" ? { spend: decoded.value } : {}
}

/**
 * The runs of one thread (one range of it) started by one approval share it: the several models of one
 * start. A batch is one approval for many threads, so the thread and its range are part of the group.
 */
export const startGroupOf = (state: RunState) =>
  typeof state.prepare_token_hash === "string"
    ? sha256(JSON.stringify([state.prepare_token_hash, text(state.thread_id), state.range_start ?? null, state.range_end ?? null])).slice(0, 16)
    : null

/** The tokens of a run's calls (input with cache reads and writes, output), when its state recorded them. */
const tokensOf = (state: RunState): { readonly tokens?: { readonly input: number; readonly output: number } } => {
  const summary = state.report_summary as { spend?: { tokens?: unknown } } | null | undefined
  const decoded = Schema.decodeUnknownOption(TokenTotals)(summary?.spend?.tokens ?? (state.spend as { tokens?: unknown } | undefined)?.tokens)
  return decoded._tag === "Some" ? { tokens: decoded.value } : {}
}

/** One row of the run history; `title` is its thread's, as the history names it now (null when unknown). */
export const runSummary = (state: RunState, supervision: Supervision, title: string | null = null) => ({
  run_id: state.run_id,
  thread_id: text(state.thread_id),
  thread_title: title,
  model: text(state.model),
  models: Array.isArray(state.models) ? state.models : [],
  status: state.status,
  phase: state.phase,
  phase_label: phaseLabelOf(state),
  winner: winnerOf(state),
  dimensions: dimensionTally(state),
  possible_leak: possibleLeakOf(state),
  ...judgesSplitOf(state),
  checks: checksSentenceOf(state),
  ...spendSummaryOf(state),
  ...tokensOf(state),
  caveats: caveatsOfSummary(state.report_summary),
  started_at: state.started_at,
  completed_at: state.completed_at ?? null,
  updated_at: state.updated_at,
  error: state.error,
  chunk: state.range_start === undefined || state.range_start === null
    ? null
    : { range_start: state.range_start, range_end: state.range_end ?? null },
  report_ready: typeof state.report_html === "string" && TERMINAL_STATUSES.has(state.status),
  start_group: startGroupOf(state),
  ...(state.repeat === undefined ? {} : { repeat: state.repeat }),
  supervision
})
export type RunSummary = ReturnType<typeof runSummary>

const matchesQuery = (state: RunState, title: string | null, query: string) => {
  const needle = query.trim().toLowerCase()
  if (needle === "") return true
  return [state.run_id, state.thread_id, title, state.model, state.controller_session_id]
    .some((value) => typeof value === "string" && value.toLowerCase().includes(needle))
}

/**
 * Every run in the run root, whichever controller ran it, newest first: `query` matches run id, thread id,
 * thread title, model and controller session (case-insensitive), then status, winner and the local day it
 * started (`since`/`until`) filter.
 */
export const listRuns = Effect.fn("runHistory.listRuns")(function*(args: ListRunsArguments) {
  const runs = yield* RunStore
  const limit = args.limit ?? DEFAULT_RUNS_PAGE
  const offset = args.offset ?? 0
  const all = yield* runs.listAll()
  const titles = yield* threadTitles(all.flatMap((state) => (typeof state.thread_id === "string" ? [state.thread_id] : [])))
  const titleOf = (state: RunState) => (typeof state.thread_id === "string" ? titles.get(state.thread_id) ?? null : null)
  const matching = all.filter((state) =>
    matchesQuery(state, titleOf(state), args.query ?? "") &&
    (args.status === undefined || state.status === args.status) &&
    (args.winner === undefined || winnerOf(state) === args.winner) &&
    inDateRange(state.started_at, args)
  )
  // Only the returned page's completed runs are looked at for a vote or a reveal (two existence checks each).
  const page = yield* Effect.forEach(matching.slice(offset, offset + limit), (state) =>
    Effect.zipWith(supervisionOf(state), blindnessOf(runs.runRoot, state), (supervision, blindness) => ({
      ...runSummary(state, supervision, titleOf(state)),
      ...blindness
    })))
  const diagnostics = (yield* runs.listDamaged).slice(0, 20)
  return { runs: page, total: matching.length, offset, limit, has_more: offset + page.length < matching.length, run_root: runs.runRoot, diagnostics }
})

export const listRunsText = (result: { readonly runs: ReadonlyArray<unknown>; readonly total: number; readonly offset: number }) =>
  result.total === 0
    ? "No replay runs match."
    : `Runs ${result.offset + 1}–${result.offset + result.runs.length} of ${result.total}.`
