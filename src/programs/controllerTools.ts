import { Effect, Either, Schema } from "effect"
import { ToolPayloads, unknownToolMessage } from "../domain/contracts.js"
import { controllerError, type ToolFailure } from "../domain/errors.js"
import {
  MAX_PARALLEL_RUNS,
  MAX_REPLAY_THREADS,
  MAX_RUN_LOG_TAIL_BYTES
} from "../domain/product.js"
import { VERSION } from "../services/internal/packageInfo.js"
import { reviewerFor } from "../domain/reviewer.js"
import type { ResolvedSettings } from "../domain/settings.js"
import { type RunState, runTagOf, TERMINAL_STATUSES } from "../domain/runState.js"
import { describeParseError, type ToolResult, toolSuccess } from "../domain/toolResult.js"
import { CodexModels, type ModelList } from "../services/CodexModels.js"
import { RunLog } from "../services/RunLog.js"
import { RunStore } from "../services/RunStore.js"
import { RunSupervisor } from "../services/RunSupervisor.js"
import { Settings } from "../services/Settings.js"
import { ProcessRunner } from "../services/ProcessRunner.js"
import { listRuns, listRunsText, supervisionOf, supervisionText } from "./runHistory.js"

const RECENT_RUNS = 12

/** A controller tool: its argument Schema and the program that answers it. */
export interface ControllerTool<R> {
  readonly payload: Schema.Schema<any, any>
  readonly run: (payload: any) => Effect.Effect<ToolResult, ToolFailure, R>
}

export const defineTool = <A, I, R>(
  payload: Schema.Schema<A, I>,
  run: (payload: A) => Effect.Effect<ToolResult, ToolFailure, R>
): ControllerTool<R> => ({ payload, run })


export const runSnapshot = (directory: string, state: object) =>
  Effect.map(Effect.flatMap(RunLog, (log) => log.tail(directory, MAX_RUN_LOG_TAIL_BYTES)), (runLog) => ({
    ...state,
    run_log: runLog
  }))

/** What one `get_state` answer was made of, and the answer. */
interface StateAnswer {
  readonly settings: ResolvedSettings
  readonly models: ModelList
  readonly answer: ToolResult
}

/**
 * `get_state` is a pure function of the settings, this controller's runs and the model list, and the run
 * store and the model list replace (never mutate) what they hold. So the answer is kept per list of runs,
 * weakly, and made again only when one of the three is another object: a page polling an idle controller
 * gets the same answer, which the HTTP edge then serialises once (`jsonResponse`).
 */
const stateAnswers = new WeakMap<ReadonlyArray<RunState>, StateAnswer>()

const stateAnswer = (settings: ResolvedSettings, owned: ReadonlyArray<RunState>, models: ModelList): ToolResult => {
  const reviewer = reviewerFor(null, settings.reviewerModel, models.options)
  const diagnostics = [
    ...(models.diagnostic === undefined ? [] : [{ step: "models", message: models.diagnostic }]),
    ...(Either.isLeft(reviewer) ? [{ step: "reviewer_model", message: reviewer.left.message }] : [])
  ]
  return toolSuccess("Codex Replay is ready.", {
    state: {
      plugin_version: VERSION,
      controller_session_id: settings.controllerSessionId,
      max_parallel_runs: MAX_PARALLEL_RUNS,
      max_replay_threads: MAX_REPLAY_THREADS,
      batch: null,
      models: models.options,
      // The controller's reviewer, used when a configuration names no reviewer_model.
      reviewer_model: Either.getOrNull(reviewer),
      diagnostics,
      recent_runs: owned.slice(0, RECENT_RUNS),
      run_root: settings.runRoot
    }
  })
}

/** Combinators rather than a generator: the page polls this (README: benchmarks). */
export const getState = defineTool(ToolPayloads.get_state, () =>
  Effect.flatMap(Effect.all([Settings, RunStore, CodexModels]), ([settings, runs, models]) =>
    Effect.flatMap(runs.listOwned(), (owned) =>
      Effect.map(models.list(), (modelList) => {
        const known = stateAnswers.get(owned)
        if (known !== undefined && known.settings === settings && known.models === modelList) return known.answer
        const answer = stateAnswer(settings, owned, modelList)
        stateAnswers.set(owned, { settings, models: modelList, answer })
        return answer
      }))))

/** Any run of the run root; one that another live controller is executing is named as read-only. */
export const getRun = defineTool(ToolPayloads.get_run, ({ run_id }) =>
  Effect.gen(function*() {
    const runs = yield* RunStore
    const { directory, state } = yield* runs.readAny(run_id)
    const supervision = yield* supervisionOf(state)
    return toolSuccess(`Replay ${run_id} is ${state.status}.${supervisionText(supervision)}`, {
      run: { ...(yield* runSnapshot(directory, state)), supervision }
    })
  }))

export const listRunsTool = defineTool(ToolPayloads.list_runs, (args) =>
  Effect.map(listRuns(args), (result) => toolSuccess(listRunsText(result), { ...result })))

/**
 * Marks the run cancelled first (so the run's own fiber cannot record anything else), then
 * interrupts that fiber, which ends every process the run started, then sweeps the run's tag.
 */
export const cancelRun = defineTool(ToolPayloads.cancel_run, ({ run_id }) =>
  Effect.gen(function*() {
    const runs = yield* RunStore
    const supervisor = yield* RunSupervisor
    const processes = yield* ProcessRunner
    const { directory, state } = yield* runs.readOwned(run_id)
    const answer = (run: object, idempotent: boolean) =>
      Effect.map(runSnapshot(directory, run), (snapshot) =>
        toolSuccess(idempotent ? `Replay ${run_id} had already finished.` : "The replay was cancelled.", {
          run_id,
          run: snapshot,
          idempotent
        }))
    if (TERMINAL_STATUSES.has(state.status)) return yield* answer(state, true)
    // Marking, interrupting and sweeping go together: a dropped connection must not stop half way.
    return yield* Effect.uninterruptible(Effect.gen(function*() {
      const cancelled = yield* runs.update(directory, {
        status: "cancelled",
        expectedStatus: "running",
        summary: "The run was cancelled by the user.",
        details: { error: "Cancelled by user.", cancelled: true, cancellation_reason: "user_requested" }
      }).pipe(Effect.either)
      if (Either.isLeft(cancelled)) {
        if (cancelled.left._tag !== "RunCancelled" && cancelled.left._tag !== "StateTransitionConflict") {
          return yield* cancelled.left
        }
        return yield* answer((yield* runs.readOwned(run_id)).state, true)
      }
      yield* supervisor.interrupt(run_id)
      yield* processes.sweepRecorded(directory)
      yield* processes.sweepTag(runTagOf(state))
      return yield* answer(cancelled.right, false)
    }))
  }))

export const baseTools = {
  get_state: getState,
  get_run: getRun,
  list_runs: listRunsTool,
  cancel_run: cancelRun
} satisfies Record<string, ControllerTool<any>>

export type ToolRequirements<Tools> = Tools[keyof Tools] extends ControllerTool<infer R> ? R : never

/** Why a call names no controller tool: the same words over /api/call and /api/rpc. */
export const unknownToolError = (name: string) => controllerError(unknownToolMessage(name))

/** Decodes the arguments with the tool's Schema and runs it; unknown tools are user errors. */
export const callTool = <Tools extends Record<string, ControllerTool<any>>>(
  tools: Tools,
  name: string,
  args: unknown
): Effect.Effect<ToolResult, ToolFailure, ToolRequirements<Tools>> => {
  const tool = name !== "open_controller" && Object.hasOwn(tools, name) ? tools[name] : undefined
  if (tool === undefined) return Effect.fail(unknownToolError(name))
  // Every payload Schema is synchronous; decoding without an effect saves the hot path a few fiber steps.
  return Either.match(Schema.decodeUnknownEither(tool.payload)(args ?? {}), {
    onLeft: (error) => Effect.fail(controllerError(describeParseError(error))),
    onRight: tool.run
  })
}
