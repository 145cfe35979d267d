import { Effect, Either } from "effect"
import type { PrepareRunResult } from "../../domain/contracts/index.js"
import { estimateRuns, threadSizeOf } from "./estimate.js"
import { conflict, invalidArgument } from "../../domain/errors.js"
import { reviewerFor, selfReviewModels } from "../../domain/reviewer.js"
import {
  configurationBlockers,
  configurationFingerprint,
  historicalResultDigest,
  isChunk,
  normalizeConfiguration,
  type RunConfiguration
} from "../../domain/runConfig.js"
import type { RunState } from "../../domain/runState.js"
import { excerpt } from "../../domain/toolResult.js"
import { CodexModels } from "../../services/CodexModels.js"
import { CodexPreflight } from "../../services/CodexPreflight.js"
import { PrepareTokens } from "../../services/PrepareTokens.js"
import { requireSecondJudge } from "../../services/review/claudeCode.js"
import { RunStore } from "../../services/RunStore.js"
import { Settings } from "../../services/Settings.js"
import { asAsked, digestsOf, preparedByModel, readHistorical } from "./historical.js"
import { relocated } from "./relocation.js"
import { taskCheckOf } from "./taskCheck.js"
import { repeatsOf } from "../../domain/repeats.js"
import { launchUnits } from "./repeats.js"

// ---------------------------------------------------------------------------------------------
// Rules across runs of the run root

const sameRange = (state: RunState, configuration: RunConfiguration) =>
  state.thread_id === configuration.thread_id &&
  state.range_start === configuration.range_start && state.range_end === configuration.range_end

/**
 * A thread may be replayed any number of times, each replay a new run; a chunk has at most one
 * active run at a time (chunks of one thread may run side by side).
 */
export const ensureCanStart = (configuration: RunConfiguration) =>
  Effect.gen(function*() {
    if (!isChunk(configuration)) return
    const runs = yield* RunStore
    const active = (yield* runs.listAll()).filter((state) => sameRange(state, configuration) && runs.isActive(state))
    if (active.length > 0) {
      return yield* conflict(
        `This chunk is already being replayed (run ${active[0]?.run_id}). Wait for it to finish or cancel it first.`
      )
    }
  })

export const ensureModelsOffered = (models: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const offered = (yield* (yield* CodexModels).list()).options.map((option) => option.id)
    const unknown = models.filter((model) => !offered.includes(model))
    if (unknown.length > 0) {
      return yield* invalidArgument(
        `Unknown Codex model: ${unknown.map(excerpt).join(", ")}. Choose one of: ${offered.join(", ") || "(none available)"}.`
      )
    }
  })

/** The reviewer of runs by `implementers` (`reviewerFor`: named, else the controller's, else neutral), against the models Codex offers now. */
export const resolveReviewerModel = (requested: string | null, implementers: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const settings = yield* Settings
    const options = (yield* (yield* CodexModels).list()).options
    return yield* Either.match(reviewerFor(requested, settings.reviewerModel, options, implementers), {
      onLeft: Effect.fail,
      onRight: Effect.succeed
    })
  })

// ---------------------------------------------------------------------------------------------
// prepare_run

const approvalPrompt = (configuration: RunConfiguration) => {
  const repeats = repeatsOf(configuration)
  if (repeats > 1) return `Approve ${configuration.models.length * repeats} parallel Codex implementations (each model ${repeats} times) using this configuration?`
  return configuration.models.length > 1
    ? `Approve ${configuration.models.length} parallel Codex implementations using this configuration?`
    : `Approve a Codex replay of ${configuration.thread_id} with ${configuration.models[0]}?`
}

/** `prepare_run` (docs/controller.md): validates, digests per model, checks agreement and issues a prepare token. */
export const prepareRun = Effect.fn("runs.prepareRun")(function*(payload: unknown) {
  const settings = yield* Settings
  const tokens = yield* PrepareTokens
  const asSent = yield* Either.match(normalizeConfiguration(payload), { onLeft: Effect.fail, onRight: Effect.succeed })
  // A repository folder given (`--repo`, “Repository folder”): the beginning is found there, or one sentence says why not.
  const configuration = yield* relocated(asSent)
  yield* ensureModelsOffered(configuration.models)
  const reviewer = yield* resolveReviewerModel(configuration.reviewer_model, configuration.models)
  yield* requireSecondJudge(configuration.second_judge)
  yield* ensureCanStart(configuration)
  const historical = yield* readHistorical(configuration)
  const historicalDigest = historicalResultDigest(historical.result)
  // One snapshot serves every model, so the models cannot disagree on the baseline.
  const asked = asAsked(configuration, historical)
  const digests = digestsOf(preparedByModel(asked, historical.snapshot))
  const preflight = yield* (yield* CodexPreflight).check()
  const blockers = [
    ...(preflight.message === null ? [] : [preflight.message]),
    ...configurationBlockers(configuration, historical.comparability.existing_files_changed)
  ]
  const ready = blockers.length === 0
  // Bound to the configuration as sent: `start_run` sends it again.
  const fingerprint = configurationFingerprint(asSent)
  const token = ready
    ? yield* tokens.issue({
      controller_session_id: settings.controllerSessionId,
      fingerprint,
      configuration,
      historical_result_sha256: historicalDigest,
      prepared_configuration_sha256_by_model: digests,
      reviewer_model: reviewer
    })
    : null
  const taskCheck = yield* taskCheckOf(configuration)
  const prompt = ready ? approvalPrompt(configuration) : null
  // Every repeat is a run of its own, priced as one.
  const runModels = launchUnits(configuration).map((unit) => unit.model)
  const estimate = yield* estimateRuns([{ size: threadSizeOf(configuration, historical), models: runModels }], reviewer, configuration.second_judge)
  const result: PrepareRunResult = {
    status: ready ? "ready_for_approval" : "blocked",
    ready,
    can_run: ready,
    controller_session_id: settings.controllerSessionId,
    model: configuration.models[0] ?? "",
    models: configuration.models,
    repeats: repeatsOf(configuration),
    reviewer_model: reviewer,
    self_review_models: selfReviewModels(reviewer, configuration.models),
    second_judge: configuration.second_judge ?? null,
    blockers,
    blocking_reasons: blockers,
    questions: [],
    approval_prompt: prompt,
    prepare_token: token,
    approval: { required: true, prompt, prepare_token: token },
    configuration_fingerprint: fingerprint,
    historical_result_sha256: historicalDigest,
    prepared_configuration_sha256: digests[configuration.models[0] ?? ""] ?? "",
    prepared_configuration_sha256_by_model: digests,
    run_config: configuration,
    chunk: historical.chunk,
    checks: asked.checks ?? [],
    setup: asked.setup ?? [],
    task_check: taskCheck,
    estimate,
    preflight
  }
  return result
})
