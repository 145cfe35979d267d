import { Clock, type Duration, Effect, Either, Option, Schema, Stream } from "effect"
import * as path from "node:path"
import { StartRunPayload, ToolPayloads } from "../../domain/contracts.js"
import { conflict, controllerError, notFound } from "../../domain/errors.js"
import { newRunId } from "../../domain/ids.js"
import { reviewerFor } from "../../domain/reviewer.js"
import type { ThreadRecord } from "../../domain/history/session.js"
import { ATTEMPT_FILE, ATTEMPT_MAX_BYTES } from "../../domain/product.js"
import { type ComparabilityFacts, comparabilityFacts } from "../../domain/report/comparability.js"
import type { CandidateSide } from "../../domain/report/report.js"
import { changedFilesFromPatch } from "../../domain/review/anonymize.js"
import {
  configurationBlockers,
  configurationFingerprint,
  type HistoricalResult,
  historicalResultDigest,
  isChunk,
  normalizeConfiguration,
  preparedConfiguration,
  preparedConfigurationDigest,
  type RepositorySnapshot,
  type RunConfiguration,
  tokenHash
} from "../../domain/runConfig.js"
import { type RunState, TERMINAL_STATUSES } from "../../domain/runState.js"
import { describeParseError, excerpt, type ToolResult, toolSuccess } from "../../domain/toolResult.js"
import { CodexModels } from "../../services/CodexModels.js"
import { FileStore, type JsonObject } from "../../services/FileStore.js"
import { type LaunchError, type PrepareReceipt, PrepareTokens } from "../../services/PrepareTokens.js"
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
import { Workspace, type WorkspacePlan } from "../../services/Workspace.js"
import { cancelRun as cancelRunTool, defineTool, runSnapshot } from "../controller/tool.js"
import { type ChunkFacts, type ChunkPlan, resolveChunk } from "./chunks.js"
import { ensureCarriedFiles, ensureThreadRepository } from "../runInputs.js"
import { threadForComparison } from "../threads/threads.js"

// ---------------------------------------------------------------------------------------------
// The historical side and the repository as it is now

export interface Historical {
  readonly result: HistoricalResult
  readonly claude: CandidateSide
  readonly snapshot: RepositorySnapshot
  readonly plan: WorkspacePlan
  readonly comparability: ComparabilityFacts
  /** What Codex is asked: the configuration's request, after the earlier chunks' background for a chunk. */
  readonly request: string
  readonly chunk: ChunkFacts | null
}

/** Files that existed before the session and that Claude modified, as far as they take part in the comparison. */
const existingFilesChanged = (record: ThreadRecord, configuration: RunConfiguration) =>
  record.historical_changed_files
    .filter((file) =>
      file.kind === "modified" && !file.abandoned && !file.outside_project && !configuration.excluded_files.includes(file.path)
    )
    .map((file) => file.path)

/** The configuration as it is prepared: with the request Codex is asked (a chunk's has the earlier chunks' background). */
const asAsked = (configuration: RunConfiguration, historical: Historical): RunConfiguration => ({ ...configuration, request: historical.request })

const nonGitPatch = (record: ThreadRecord, configuration: RunConfiguration) =>
  record.historical_changed_files
    .filter((file) => !file.abandoned && !file.outside_project && !configuration.excluded_files.includes(file.path))
    .flatMap((file) => (file.diff === null ? [] : [file.diff.endsWith("\n") ? file.diff : `${file.diff}\n`]))
    .join("")

const claudeSide = (record: ThreadRecord, patch: string, worktree: string | null, configuredRepo: string | null): CandidateSide => ({
  model: record.claude_model,
  patch,
  final_response: record.final_response,
  files: changedFilesFromPatch(patch),
  worktree,
  // Where Claude worked as its transcript spells it, and the project as configured: never shown to the reviewer.
  working_directories: [...new Set([...record.project_dirs, ...(configuredRepo === null ? [] : [configuredRepo])])],
  elapsed_ms: record.elapsed.active_ms,
  tokens: {
    ordinary_input: record.tokens.input,
    cache_read: record.tokens.cache_read,
    cache_write: record.tokens.cache_write_5m + record.tokens.cache_write_1h,
    output: record.tokens.output
  },
  cost: record.cost_usd === null
    ? { usd: null, reason: `No price is known for ${record.unpriced_models.join(", ") || "the recorded models"}.` }
    : { usd: record.cost_usd, reason: null },
  ...(record.final_response === "" && record.final_response_status.last_substantive_reply !== ""
    ? { last_substantive_reply: record.final_response_status.last_substantive_reply }
    : {}),
  ...(record.tokens_by_source.warmup.input + record.tokens_by_source.warmup.output > 0
    ? { cost_lines: [{ label: "of which warm-up probes", usd: record.cost_by_source.warmup }] }
    : {})
})

const realDirectory = (directory: string) =>
  Effect.flatMap(FileStore, (files) => files.realPath(directory)).pipe(
    Effect.flatMap(Option.match({ onNone: () => Effect.fail("missing"), onSome: Effect.succeed })),
    Effect.mapError(() => notFound(`The project directory ${excerpt(directory)} (repo) does not exist.`))
  )

/** Claude's result and the repository facts the replay depends on, read now (prepare and again at start). */
export const readHistorical = (configuration: RunConfiguration) =>
  Effect.gen(function*() {
    const workspace = yield* Workspace
    // A chunk starts from its starting commit (or the empty directory) plus Claude's files from earlier
    // chunks, and Claude's side is its work inside the chunk, its patch rebuilt from the transcript.
    const thread = yield* threadForComparison(configuration.thread_id)
    const hiddenRoots = yield* ensureThreadRepository(configuration, thread.record)
    const { capabilities } = thread
    const withChunk = (chunk: ChunkPlan | null) => {
      const record = chunk?.record ?? thread.record
      const carriedNames = chunk?.facts.carried_forward_files ?? configuration.carried_forward_files
      const comparability = (baselineCommit: string | null) =>
        comparabilityFacts({
          beginning_kind: configuration.beginning_kind,
          baseline_commit: baselineCommit,
          carried_forward_files: carriedNames,
          existing_files_changed: configuration.beginning_kind === "non_git"
            ? existingFilesChanged(record, configuration).filter((file) => !carriedNames.includes(file))
            : []
        }, capabilities, record.final_response)
      const carried = chunk === null
        ? { carriedForwardFiles: configuration.carried_forward_files }
        : { carriedForwardFiles: [], carriedContents: chunk.carried }
      return { record, comparability, carried, request: chunk?.request ?? configuration.request, chunk: chunk?.facts ?? null }
    }
    if (configuration.beginning_kind === "git" && configuration.repo !== null && configuration.baseline_commit !== null) {
      const endingCommit = configuration.ending_commit ?? configuration.baseline_commit
      const repository = yield* workspace.inspectRepository(configuration.repo, [configuration.baseline_commit, endingCommit])
      const [baseline = "", ending = ""] = repository.commits
      yield* ensureCarriedFiles(configuration, thread.record, repository.repository, { baseline, ending })
      const chunk = isChunk(configuration)
        ? yield* resolveChunk(configuration, thread.record, yield* workspace.commitTime(repository.repository, baseline))
        : null
      const { carried, comparability, record, ...asked } = withChunk(chunk)
      const patch = chunk === null
        ? yield* workspace.historicalPatch(repository.repository, baseline, ending)
        : nonGitPatch(record, configuration)
      return {
        result: { patch, final_response: record.final_response },
        claude: claudeSide(record, patch, repository.repository, configuration.repo),
        snapshot: { repository: repository.repository, baseline_commit: baseline, ending_commit: ending },
        plan: { kind: "git", repository: repository.repository, commit: baseline, hiddenRoots, ...carried },
        comparability: comparability(baseline),
        ...asked
      } satisfies Historical
    }
    const chunk = yield* resolveChunk(configuration, thread.record, null)
    const { carried, comparability, record, ...asked } = withChunk(chunk)
    const project = configuration.repo === null ? null : yield* realDirectory(configuration.repo)
    yield* ensureCarriedFiles(configuration, thread.record, project, null)
    const patch = nonGitPatch(record, configuration)
    return {
      result: { patch, final_response: record.final_response },
      claude: claudeSide(record, patch, project, configuration.repo),
      snapshot: { repository: project, baseline_commit: null, ending_commit: configuration.ending_commit },
      plan: { kind: "non_git", repository: project, commit: null, hiddenRoots, ...carried },
      comparability: comparability(null),
      ...asked
    } satisfies Historical
  })

export const preparedByModel = (configuration: RunConfiguration, snapshot: RepositorySnapshot) =>
  configuration.models.map((model) => [model, preparedConfiguration(configuration, model, snapshot)] as const)

export const digestsOf = (prepared: ReturnType<typeof preparedByModel>) =>
  Object.fromEntries(prepared.map(([model, configuration]) => [model, preparedConfigurationDigest(configuration)]))

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
      return yield* controllerError(
        `Unknown Codex model: ${unknown.map(excerpt).join(", ")}. Choose one of: ${offered.join(", ") || "(none available)"}.`
      )
    }
  })

/** The reviewer of a configuration (`reviewerFor`), against the models Codex offers now. */
export const resolveReviewerModel = (requested: string | null) =>
  Effect.gen(function*() {
    const settings = yield* Settings
    const options = (yield* (yield* CodexModels).list()).options
    return yield* Either.match(reviewerFor(requested, settings.reviewerModel, options), { onLeft: Effect.fail, onRight: Effect.succeed })
  })

// ---------------------------------------------------------------------------------------------
// prepare_run

export interface PrepareRunResult {
  readonly status: "ready_for_approval" | "blocked"
  readonly ready: boolean
  readonly can_run: boolean
  readonly controller_session_id: string
  readonly model: string
  readonly models: ReadonlyArray<string>
  /** The model that reviews every run of this start. */
  readonly reviewer_model: string
  /** The models whose runs are reviewed by their own model. */
  readonly self_review_models: ReadonlyArray<string>
  readonly blockers: ReadonlyArray<string>
  readonly blocking_reasons: ReadonlyArray<string>
  readonly questions: ReadonlyArray<string>
  readonly approval_prompt: string | null
  readonly prepare_token: string | null
  readonly approval: { readonly required: true; readonly prompt: string | null; readonly prepare_token: string | null }
  readonly configuration_fingerprint: string
  readonly historical_result_sha256: string
  readonly prepared_configuration_sha256: string
  readonly prepared_configuration_sha256_by_model: Readonly<Record<string, string>>
  readonly run_config: RunConfiguration
  /** For a chunk: its split points and what its workspace starts with; null for a whole thread. */
  readonly chunk: ChunkFacts | null
}

const approvalPrompt = (configuration: RunConfiguration) =>
  configuration.models.length > 1
    ? `Approve ${configuration.models.length} parallel Codex implementations using this configuration?`
    : `Approve a Codex replay of ${configuration.thread_id} with ${configuration.models[0]}?`

/** `prepare_run` (docs/controller.md): validates, digests per model, checks agreement and issues a prepare token. */
export const prepareRun = Effect.fn("runs.prepareRun")(function*(payload: unknown) {
  const settings = yield* Settings
  const tokens = yield* PrepareTokens
  const configuration = yield* Either.match(normalizeConfiguration(payload), { onLeft: Effect.fail, onRight: Effect.succeed })
  yield* ensureModelsOffered(configuration.models)
  const reviewer = yield* resolveReviewerModel(configuration.reviewer_model)
  yield* ensureCanStart(configuration)
  const historical = yield* readHistorical(configuration)
  const historicalDigest = historicalResultDigest(historical.result)
  // One snapshot serves every model, so the models cannot disagree on the baseline.
  const digests = digestsOf(preparedByModel(asAsked(configuration, historical), historical.snapshot))
  const blockers = configurationBlockers(configuration, historical.comparability.existing_files_changed)
  const ready = blockers.length === 0
  const fingerprint = configurationFingerprint(configuration)
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
  const prompt = ready ? approvalPrompt(configuration) : null
  const result: PrepareRunResult = {
    status: ready ? "ready_for_approval" : "blocked",
    ready,
    can_run: ready,
    controller_session_id: settings.controllerSessionId,
    model: configuration.models[0] ?? "",
    models: configuration.models,
    reviewer_model: reviewer,
    self_review_models: configuration.models.filter((model) => model === reviewer),
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
    chunk: historical.chunk
  }
  return result
})

// ---------------------------------------------------------------------------------------------
// start_run

export interface StartedRun {
  readonly run_id: string
  readonly model: string
  readonly run: object
}

export interface StartRunResult {
  readonly run_id: string
  readonly run: object
  readonly model: string
  readonly models: ReadonlyArray<string>
  readonly runs: ReadonlyArray<StartedRun>
  readonly errors: ReadonlyArray<LaunchError>
  readonly idempotent: boolean
}

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

const recordLaunch = (model: string, entry: Record<string, unknown>) =>
  updateAttempt((attempt) => ({
    ...attempt,
    models: (Array.isArray(attempt.models) ? attempt.models : []).map((existing: unknown) =>
      typeof existing === "object" && existing !== null && (existing as { model?: unknown }).model === model
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
    if (first === undefined) return yield* controllerError("None of the selected Codex model variants could start.")
    const result: StartRunResult = { run_id: first.run_id, run: first.run, model: first.model, models, runs: started, errors, idempotent }
    return result
  })

const readStates = (runIds: ReadonlyArray<string>) =>
  Effect.flatMap(RunStore, (runs) => Effect.forEach(runIds, (runId) => Effect.map(runs.readOwned(runId), ({ state }) => state)))

/** The runs a token started, from disk: a repeated start after a daemon restart is still idempotent. */
const persistedStart = (token: string, fingerprint: string, models: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const runs = yield* RunStore
    const hash = tokenHash(token)
    const started = (yield* runs.listOwned()).filter((state) => state.prepare_token_hash === hash)
    if (started.length === 0) return Option.none()
    if (started.some((state) => state.configuration_fingerprint !== fingerprint)) {
      return yield* conflict("The approved configuration changed. Prepare and approve it again.")
    }
    const launched = started.filter((state) => state.launch_failed !== true)
    const ordered = models.flatMap((model) => launched.filter((state) => state.model === model))
    const errors = (launched.find((state) => Array.isArray(state.run_group_errors))?.run_group_errors ?? []) as Array<LaunchError>
    const accounted = new Set([...started.map((state) => state.model), ...errors.map((error) => error.model)])
    if (models.some((model) => !accounted.has(model))) {
      // The controller stopped in the middle of this start: some models never launched.
      return yield* conflict(
        "The approved replay did not finish starting every selected model. Prepare and approve the replay again."
      )
    }
    return Option.some(yield* startedResponse(ordered, models, errors, true))
  })

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
export const createAndLaunchRun = (plan: LaunchPlan, model: string, runId: string) =>
  Effect.gen(function*() {
    const runs = yield* RunStore
    const files = yield* FileStore
    const supervisor = yield* RunSupervisor
    const coordinator = yield* RunCoordinator
    const { configuration } = plan.receipt
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
        prepare_token_hash: plan.prepareTokenHash,
        configuration_fingerprint: plan.receipt.fingerprint,
        historical_result_sha256: plan.receipt.historical_result_sha256,
        prepared_configuration_sha256: plan.receipt.prepared_configuration_sha256_by_model[model] ?? null,
        workspace: null,
        implementation_attempt: 0,
        failure_diagnostic: null,
        report_json: null,
        report_html: null,
        report_summary: null
      }
    })
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
      reviewer_model: plan.receipt.reviewer_model
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

const launchModel = (plan: LaunchPlan, model: string) =>
  Effect.gen(function*() {
    const runId = yield* newRunId
    const state = yield* createAndLaunchRun(plan, model, runId)
    yield* recordLaunch(model, { launch_status: "started", run_id: runId })
    return state
  }).pipe(
    Effect.tapError((error) =>
      recordLaunch(model, { launch_status: "failed", error: error.message.slice(0, 2000), controller_code: "launch_failed" }).pipe(
        Effect.ignore
      )),
    Effect.either
  )

/** Launches every model in parallel; each is accounted for in `attempt.json` as it happens. */
const launchAll = (plan: LaunchPlan, request: Record<string, unknown>) =>
  Effect.gen(function*() {
    const runs = yield* RunStore
    const { models } = plan.receipt.configuration
    const at = new Date(yield* Clock.currentTimeMillis).toISOString()
    yield* updateAttempt((attempt) => ({
      ...attempt,
      start_requested: true,
      start_requested_at: at,
      start_request: request,
      models: models.map((model) => ({ model, launch_status: "pending" }))
    }))
    const outcomes = yield* Effect.forEach(models, (model) => launchModel(plan, model), { concurrency: "unbounded" })
    const errors: Array<LaunchError> = []
    const states: Array<RunState> = []
    outcomes.forEach((outcome, index) => {
      if (Either.isRight(outcome)) states.push(outcome.right)
      else errors.push({ model: models[index] ?? "", error: outcome.left.message.slice(0, 2000), controller_code: "launch_failed" })
    })
    if (states.length === 0) {
      const detail = errors.map((error) => `${error.model}: ${error.error}`).join("; ")
      return yield* controllerError(`None of the selected Codex model variants could start. ${detail}`.trim())
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
    Effect.mapError((error) => controllerError(describeParseError(error)))
  )).prepare_token
  const configuration = yield* Either.match(normalizeConfiguration(payload), { onLeft: Effect.fail, onRight: Effect.succeed })
  const fingerprint = configurationFingerprint(configuration)
  return yield* tokens.withStartLock(Effect.gen(function*() {
    const receipt = yield* tokens.lookup(token)
    if (Option.isNone(receipt)) {
      const persisted = yield* persistedStart(token, fingerprint, configuration.models)
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
    const historical = yield* readHistorical(configuration)
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
    for (;;) {
      yield* Effect.sleep(options.pollInterval ?? "250 millis")
      const { state } = yield* runs.readAny(runId)
      if (TERMINAL_STATUSES.has(state.status)) return state
    }
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

export interface CancelRunResult {
  readonly run_id: string
  readonly run: object
  readonly idempotent: boolean
}

/** `cancel_run`: marks the run cancelled and returns once every process it started is gone. */
export const cancelRun = (runId: string) =>
  Effect.map(cancelRunTool.run({ run_id: runId }), (result: ToolResult) => result.structuredContent as unknown as CancelRunResult).pipe(
    Effect.withSpan("runs.cancelRun")
  )

// ---------------------------------------------------------------------------------------------
// Tools

export const prepareRunTool = defineTool(ToolPayloads.prepare_run, (payload) =>
  Effect.map(prepareRun(payload), (result) =>
    toolSuccess(
      result.ready ? result.approval_prompt ?? "The replay is ready for approval." : `The replay is blocked: ${result.blockers.join(" ")}`,
      { ...result }
    )))

export const startRunTool = defineTool(ToolPayloads.start_run, (payload) =>
  Effect.map(startRun(payload), (result) =>
    toolSuccess(
      result.idempotent
        ? "These replays were already started."
        : `Started ${result.runs.length} replay run(s)${result.errors.length > 0 ? `; ${result.errors.length} failed to launch` : ""}.`,
      { ...result }
    )))
