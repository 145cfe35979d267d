import { Clock, Effect, Either, Option, Schema } from "effect"
import * as path from "node:path"
import { type LaunchError, type StartedRun, StartRunPayload, type StartRunResult } from "../../domain/contracts/index.js"
import { conflict, invalidArgument, isInternalFailure, type ToolFailure } from "../../domain/errors.js"
import { newRunId } from "../../domain/ids.js"
import { ATTEMPT_FILE, ATTEMPT_MAX_BYTES } from "../../domain/product.js"
import { configurationFingerprint, historicalResultDigest, normalizeConfiguration, tokenHash } from "../../domain/runConfig.js"
import type { RunState } from "../../domain/runState.js"
import { reconstructionCall } from "../../domain/spend.js"
import { DEFAULT_CHECK_TIME_LIMIT_SECONDS } from "../../domain/settings.js"
import type { ClaudeState } from "../../services/checks/CheckRunner.js"
import { describeParseError } from "../../domain/toolResult.js"
import { FileStore, type JsonObject } from "../../services/FileStore.js"
import { type PrepareReceipt, PrepareTokens } from "../../services/PrepareTokens.js"
import {
  COORDINATOR_REQUEST_FILE,
  type CoordinatorRequest,
  requestWithoutClaude,
  RUN_RECORD_FILE,
  RunCoordinator
} from "../../services/RunCoordinator.js"
import { RunStore } from "../../services/RunStore.js"
import { RunSupervisor } from "../../services/RunSupervisor.js"
import { Settings } from "../../services/Settings.js"
import { runSnapshot } from "./cancel.js"
import { asAsked, digestsOf, type Historical, preparedByModel, readHistorical } from "./historical.js"
import { ensureCanStart } from "./prepare.js"
import { claimReconstruction, reportTaskSource } from "./taskCheck.js"
import { launchUnits, type LaunchUnit, repeatLabel, type RepeatPosition } from "./repeats.js"
import { repeatsOf } from "../../domain/repeats.js"

// ---------------------------------------------------------------------------------------------
// start_run

/** `attempt.json` of this controller: each model's launch as it happens (docs/controller.md). */
const updateAttempt = (change: (attempt: JsonObject) => JsonObject) =>
  Effect.gen(function*() {
    const settings = yield* Settings
    const files = yield* FileStore
    const directory = path.join(settings.controllersRoot, settings.controllerSessionId)
    const attemptPath = path.join(directory, ATTEMPT_FILE)
    yield* files.ensurePrivateDirectory(directory)
    yield* files.withLock(
      attemptPath,
      Effect.gen(function*() {
        const current = yield* files.readJsonOption(attemptPath, ATTEMPT_MAX_BYTES)
        yield* files.writeJson(attemptPath, change(Option.getOrElse(current, () => ({}))))
      })
    )
  })

const recordLaunch = (unit: LaunchUnit, entry: Record<string, unknown>) =>
  updateAttempt((attempt) => ({
    ...attempt,
    models: (Array.isArray(attempt.models) ? attempt.models : []).map((existing: unknown) =>
      typeof existing === "object" && existing !== null && (existing as { model?: unknown }).model === unit.model &&
        (existing as { repeat?: unknown }).repeat === unit.repeat?.index
        ? { ...existing, ...entry }
        : existing
    )
  }))

const snapshotOf = (state: RunState) =>
  Effect.gen(function*() {
    const runs = yield* RunStore
    const directory = yield* runs.resolveDirectory(state.run_id)
    return yield* runSnapshot(directory, state)
  })

const startedResponse = (
  states: ReadonlyArray<RunState>,
  models: ReadonlyArray<string>,
  errors: ReadonlyArray<LaunchError>,
  idempotent: boolean
) =>
  Effect.gen(function*() {
    const started = yield* Effect.forEach(states, (state) =>
      Effect.map(snapshotOf(state), (run): StartedRun => ({ run_id: state.run_id, model: String(state.model), run })))
    const first = started[0]
    if (first === undefined) return yield* conflict("None of the selected Codex model variants could start.")
    const result: StartRunResult = { run_id: first.run_id, run: first.run, model: first.model, models, runs: started, errors, idempotent }
    return result
  })

const readStates = (runIds: ReadonlyArray<string>) =>
  Effect.flatMap(RunStore, (runs) => Effect.forEach(runIds, (runId) => Effect.map(runs.readOwned(runId), ({ state }) => state)))

/** The runs a token started, from disk: a repeated start after a daemon restart is still idempotent. */
const persistedStart = (token: string, fingerprint: string, models: ReadonlyArray<string>, repeats: number) =>
  Effect.gen(function*() {
    const runs = yield* RunStore
    const hash = tokenHash(token)
    const started = (yield* runs.listOwned()).filter((state) => state.prepare_token_hash === hash)
    if (started.length === 0) return Option.none()
    if (started.some((state) => state.configuration_fingerprint !== fingerprint)) {
      return yield* conflict("The approved configuration changed. Prepare and approve it again.")
    }
    const launched = started.filter((state) => state.launch_failed !== true)
    const ordered = models.flatMap((model) =>
      launched.filter((state) => state.model === model).sort((a, b) => (a.repeat?.index ?? 0) - (b.repeat?.index ?? 0)))
    const errors = (launched.find((state) => Array.isArray(state.run_group_errors))?.run_group_errors ?? []) as Array<LaunchError>
    const accounted = (model: string) =>
      started.filter((state) => state.model === model).length + errors.filter((error) => error.model === model).length
    if (models.some((model) => accounted(model) < repeats)) {
      // The controller stopped in the middle of this start: some models never launched.
      return yield* conflict(
        "The approved replay did not finish starting every selected model. Prepare and approve the replay again."
      )
    }
    return Option.some(yield* startedResponse(ordered, models, errors, true))
  })

/**
 * How Claude's result is rebuilt for its checks: a whole thread of a repository between its two commits;
 * a chunk or a project without git from Claude's patch rebuilt from the transcript, unless that patch
 * was cut at its ceiling.
 */
const claudeStateOf = (historical: Historical): ClaudeState => {
  const { snapshot } = historical
  if (historical.plan.kind === "git" && historical.chunk === null && snapshot.repository !== null && snapshot.baseline_commit !== null) {
    return { kind: "commits", repository: snapshot.repository, from: snapshot.baseline_commit, to: snapshot.ending_commit ?? snapshot.baseline_commit }
  }
  const cut = (historical.claude.output_cuts ?? []).some((item) => item.kind === "patch" || item.kind === "file")
  return cut
    ? { kind: "unavailable", reason: "Claude's patch passed its size ceiling, so its result cannot be rebuilt whole." }
    : { kind: "patch" }
}

/** What a run is launched from: the approval (a prepare receipt, or a batch's) and Claude's side read at start. */
export interface LaunchPlan {
  readonly prepareTokenHash: string
  readonly receipt: Pick<
    PrepareReceipt,
    "configuration" | "fingerprint" | "historical_result_sha256" | "prepared_configuration_sha256_by_model" | "reviewer_model"
  >
  readonly historical: Historical
}

/**
 * Creates the run `runId` of one model and launches its fiber; a run that was created but could not be
 * launched is left failed (`launch_failed`), never `running`.
 */
export const createAndLaunchRun = (plan: LaunchPlan, model: string, runId: string, repeat?: RepeatPosition) =>
  Effect.gen(function*() {
    const runs = yield* RunStore
    const files = yield* FileStore
    const supervisor = yield* RunSupervisor
    const coordinator = yield* RunCoordinator
    const settings = yield* Settings
    const { configuration } = plan.receipt
    const approved = asAsked(configuration, plan.historical)
    const { directory, state } = yield* runs.create({
      runId,
      coordinatorPid: process.pid,
      details: {
        model,
        models: configuration.models,
        thread_id: configuration.thread_id,
        run_tag: runId,
        ...(plan.historical.chunk === null ? {} : { chunk: plan.historical.chunk }),
        range_start: configuration.range_start,
        range_end: configuration.range_end,
        ...(repeat === undefined ? {} : { repeat: repeatLabel(plan.prepareTokenHash, configuration, model, repeat) }),
        prepare_token_hash: plan.prepareTokenHash,
        configuration_fingerprint: plan.receipt.fingerprint,
        historical_result_sha256: plan.receipt.historical_result_sha256,
        prepared_configuration_sha256: plan.receipt.prepared_configuration_sha256_by_model[model] ?? null,
        // Exactly the commands approved: nothing else is ever run on this run's sides.
        checks: approved.checks ?? [],
        setup: approved.setup ?? [],
        workspace: null,
        implementation_attempt: 0,
        failure_diagnostic: null,
        report_json: null,
        report_html: null,
        report_summary: null
      }
    })
    const taskSource = yield* reportTaskSource(configuration)
    // The reconstruction that wrote the prompt is counted once: in the first model's run of the first start to claim it.
    const charged = model === configuration.models[0] && (repeat?.index ?? 1) === 1 && (taskSource?.synthesis ?? null) !== null &&
      (yield* claimReconstruction(configuration, runId))
    const reconstruction = charged ? reconstructionCall(taskSource?.synthesis, settings.codexPriceOverrides ?? {}) : undefined
    const request: CoordinatorRequest = {
      run_id: runId,
      run_tag: runId,
      thread_id: configuration.thread_id,
      model,
      request: plan.historical.request,
      timeout_seconds: configuration.timeout_seconds,
      workspace: plan.historical.plan,
      claude: plan.historical.claude,
      comparability: plan.historical.comparability,
      reviewer_model: plan.receipt.reviewer_model,
      checks: {
        checks: approved.checks ?? [],
        setup: approved.setup ?? [],
        time_limit_seconds: settings.checkTimeLimitSeconds ?? DEFAULT_CHECK_TIME_LIMIT_SECONDS
      },
      claude_state: claudeStateOf(plan.historical),
      task_source: taskSource,
      ...(reconstruction === undefined ? {} : { reconstruction }),
      ...(configuration.second_judge === undefined ? {} : { second_judge: configuration.second_judge })
    }
    const launched = Effect.gen(function*() {
      // Claude's side stays in memory until the implementation has finished (RunCoordinator.collect).
      yield* files.writeJson(path.join(directory, COORDINATOR_REQUEST_FILE), requestWithoutClaude(request))
      yield* files.writeJson(path.join(directory, RUN_RECORD_FILE), {
        run_id: runId,
        configuration: { ...configuration, model },
        reviewer_model: plan.receipt.reviewer_model,
        historical_result_sha256: plan.receipt.historical_result_sha256
      })
      yield* supervisor.launch(runId, coordinator.run(directory, request))
    })
    yield* launched.pipe(
      Effect.tapError((error) =>
        runs.update(directory, {
          status: "failed",
          summary: `The replay coordinator could not start: ${error.message}`,
          details: {
            error: error.message.slice(0, 2000),
            launch_failed: true,
            failure_diagnostic: { controller_code: "launch_failed", worker_stage: "outside_worker" }
          }
        }).pipe(Effect.ignore))
    )
    return state
  })

const launchModel = (plan: LaunchPlan, unit: LaunchUnit) =>
  Effect.gen(function*() {
    const runId = yield* newRunId
    const state = yield* createAndLaunchRun(plan, unit.model, runId, unit.repeat)
    yield* recordLaunch(unit, { launch_status: "started", run_id: runId })
    return state
  }).pipe(
    Effect.tapError((error) =>
      recordLaunch(unit, { launch_status: "failed", error: error.message.slice(0, 2000), controller_code: "launch_failed" }).pipe(
        Effect.ignore
      )),
    Effect.either
  )

/** Launches every model in parallel; each is accounted for in `attempt.json` as it happens. */
const launchAll = (plan: LaunchPlan, request: Record<string, unknown>) =>
  Effect.gen(function*() {
    const runs = yield* RunStore
    const units = launchUnits(plan.receipt.configuration)
    const at = new Date(yield* Clock.currentTimeMillis).toISOString()
    yield* updateAttempt((attempt) => ({
      ...attempt,
      start_requested: true,
      start_requested_at: at,
      start_request: request,
      models: units.map(({ model, repeat }) => ({ model, ...(repeat === undefined ? {} : { repeat: repeat.index }), launch_status: "pending" }))
    }))
    const outcomes = yield* Effect.forEach(units, (unit) => launchModel(plan, unit), { concurrency: "unbounded" })
    const errors: Array<LaunchError> = []
    const failures: Array<ToolFailure> = []
    const states: Array<RunState> = []
    outcomes.forEach((outcome, index) => {
      if (Either.isRight(outcome)) return void states.push(outcome.right)
      failures.push(outcome.left)
      errors.push({ model: units[index]?.model ?? "", error: outcome.left.message.slice(0, 2000), controller_code: "launch_failed" })
    })
    if (states.length === 0) {
      const detail = errors.map((error) => `${error.model}: ${error.error}`).join("; ")
      const message = `None of the selected Codex model variants could start. ${detail}`.trim()
      // The machine's failure (the disk, a process) is answered as what it is, not as the caller's conflict.
      const machine = failures.find(isInternalFailure)
      if (machine !== undefined) return yield* Effect.zipRight(Effect.logError(message), Effect.fail(machine))
      return yield* conflict(message)
    }
    if (errors.length > 0) {
      yield* Effect.forEach(states, (state) =>
        Effect.flatMap(runs.resolveDirectory(state.run_id), (directory) =>
          runs.update(directory, { details: { run_group_errors: errors } })).pipe(Effect.ignore), { discard: true })
    }
    return { states, errors }
  })

export const ensureDigestsUnchanged = (receipt: LaunchPlan["receipt"], historical: Historical) =>
  Effect.gen(function*() {
    if (historicalResultDigest(historical.result) !== receipt.historical_result_sha256) {
      return yield* conflict("The historical Claude result changed since preparation. Prepare the replay again.")
    }
    const now = digestsOf(preparedByModel(asAsked(receipt.configuration, historical), historical.snapshot))
    const changed = receipt.configuration.models.some((model) => now[model] !== receipt.prepared_configuration_sha256_by_model[model])
    if (changed) return yield* conflict("The repository changed since preparation. Prepare the replay again.")
  })

/**
 * `start_run` (docs/controller.md): approval and token checks, digest re-verification against the
 * repository as it is now, then one run per model launched in parallel. Idempotent per token.
 */
export const startRun = Effect.fn("runs.startRun")(function*(payload: unknown) {
  const settings = yield* Settings
  const tokens = yield* PrepareTokens
  const token = (yield* Schema.decodeUnknown(StartRunPayload)(payload).pipe(
    Effect.mapError((error) => invalidArgument(describeParseError(error)))
  )).prepare_token
  const configuration = yield* Either.match(normalizeConfiguration(payload), { onLeft: Effect.fail, onRight: Effect.succeed })
  const fingerprint = configurationFingerprint(configuration)
  return yield* tokens.withStartLock(Effect.gen(function*() {
    const receipt = yield* tokens.lookup(token)
    if (Option.isNone(receipt)) {
      const persisted = yield* persistedStart(token, fingerprint, configuration.models, repeatsOf(configuration))
      if (Option.isSome(persisted)) return persisted.value
      return yield* conflict(
        "The prepare token is unknown to this controller or has expired. Prepare and approve the run again."
      )
    }
    if (receipt.value.controller_session_id !== settings.controllerSessionId) {
      return yield* conflict("The prepared replay belongs to a different controller session.")
    }
    if (receipt.value.fingerprint !== fingerprint) {
      return yield* conflict("The approved configuration changed. Prepare and approve it again.")
    }
    const started = receipt.value.started
    if (started !== undefined) {
      return yield* startedResponse(yield* readStates(started.run_ids), configuration.models, started.errors, true)
    }
    // The configuration as prepared (with the beginning found in a repository folder, if one was given).
    const historical = yield* readHistorical(receipt.value.configuration)
    yield* ensureDigestsUnchanged(receipt.value, historical)
    yield* ensureCanStart(configuration)
    // Created runs and the token's receipt go together: a dropped connection must not leave a run
    // without its fiber, or a token that forgot what it started.
    const { errors, states } = yield* Effect.uninterruptible(
      Effect.tap(
        launchAll({ prepareTokenHash: tokenHash(token), receipt: receipt.value, historical }, {
          thread_id: configuration.thread_id,
          models: configuration.models,
          configuration_fingerprint: fingerprint
        }),
        ({ errors, states }) => tokens.markStarted(token, { run_ids: states.map((state) => state.run_id), errors })
      )
    )
    return yield* startedResponse(yield* readStates(states.map((state) => state.run_id)), configuration.models, errors, false)
  }))
})

// ---------------------------------------------------------------------------------------------
