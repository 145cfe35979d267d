/** The controller's own tool: `get_state` (`open_controller` is MCP's, in openController.ts). */
import { Effect, Either, Option } from "effect"
import type { BatchSummary, StateResult } from "../../domain/contracts/index.js"
import { MAX_PARALLEL_RUNS, MAX_REPLAY_THREADS } from "../../domain/product.js"
import { reviewerFor } from "../../domain/reviewer.js"
import type { RunState } from "../../domain/runState.js"
import type { ResolvedSettings } from "../../domain/settings.js"
import { Batches } from "../../services/Batches.js"
import { CodexModels, type ModelList } from "../../services/CodexModels.js"
import { VERSION } from "../../services/internal/packageInfo.js"
import { type EnvironmentVariables, ProcessEnvironment } from "../../services/platform/environment.js"
import { secondJudgeAvailability } from "../../services/review/claudeCode.js"
import { RunStore } from "../../services/RunStore.js"
import { Settings } from "../../services/Settings.js"
import { summaryOf } from "../batches/summary.js"
import { defineTool } from "./tool.js"

const RECENT_RUNS = 12

const stateAnswer = (settings: ResolvedSettings, owned: ReadonlyArray<RunState>, models: ModelList, environment: EnvironmentVariables): StateResult => {
  // The controller's own reviewer only: without one, each run's reviewer is chosen for its implementers.
  const reviewer = settings.reviewerModel === undefined ? Either.right(null) : reviewerFor(null, settings.reviewerModel, models.options, [])
  const diagnostics = [
    ...(models.diagnostic === undefined ? [] : [{ step: "models", message: models.diagnostic }]),
    ...(Either.isLeft(reviewer) ? [{ step: "reviewer_model", message: reviewer.left.message }] : [])
  ]
  return {
    state: {
      plugin_version: VERSION,
      controller_session_id: settings.controllerSessionId,
      max_parallel_runs: MAX_PARALLEL_RUNS,
      max_replay_threads: MAX_REPLAY_THREADS,
      batch: null,
      models: models.options,
      // The controller's reviewer (CODEX_REPLAY_REVIEWER_MODEL), used when a configuration names no reviewer_model;
      // null without one: each run is then reviewed by a model that implements none of its runs (`neutralReviewer`).
      reviewer_model: Either.getOrNull(reviewer),
      second_judge: secondJudgeAvailability(environment),
      diagnostics,
      recent_runs: owned.slice(0, RECENT_RUNS),
      run_root: settings.runRoot
    }
  }
}

const withBatch = (answer: StateResult, batch: BatchSummary): StateResult => ({ ...answer, state: { ...answer.state, batch } })

/** `get_state`: the controller, its models, its recent runs and its current or most recent batch. Combinators: the page polls it. */
export const getState = Effect.flatMap(Effect.all([Settings, RunStore, CodexModels, Batches, ProcessEnvironment]), ([settings, runs, models, batches, environment]) =>
  Effect.flatMap(runs.listOwned(), (owned) =>
    Effect.flatMap(models.list(), (modelList) => {
      const answer = stateAnswer(settings, owned, modelList, environment)
      return Effect.flatMap(batches.latestRecord, (latest) =>
        Option.isNone(latest) ? Effect.succeed(answer) : Effect.map(summaryOf(latest.value), (batch) => withBatch(answer, batch)))
    })))

export const getStateTool = defineTool("get_state", () => getState, () => "Codex Replay is ready.")
