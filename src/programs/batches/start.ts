import { Clock, DateTime, Effect, Either, Option, Stream } from "effect"
import * as path from "node:path"
import {
  type BatchConfiguration,
  type BatchItem,
  batchProgressText,
  type BatchRecord,
  type BatchSummary,
  type BlockedThread,
  newBatchId,
  type RunView,
  summarizeBatch
} from "../../domain/batch.js"
import type { PrepareBatchPayload, StartBatchPayload } from "../../domain/contracts.js"
import { isBatchPayload, ToolPayloads } from "../../domain/contracts.js"
import { conflict, type ControllerError, controllerError, isControllerError } from "../../domain/errors.js"
import { newRunId } from "../../domain/ids.js"
import { MAX_PARALLEL_RUNS } from "../../domain/product.js"
import {
  canonicalJson,
  configurationBlockers,
  configurationFingerprint,
  historicalResultDigest,
  normalizeConfiguration,
  type RunConfiguration,
  sha256,
  tokenHash
} from "../../domain/runConfig.js"
import { type RunState, TERMINAL_STATUSES } from "../../domain/runState.js"
import { toolSuccess } from "../../domain/toolResult.js"
import { Batches, type PreparedBatch } from "../../services/Batches.js"
import { FileStore } from "../../services/FileStore.js"
import { isSameProcess, startTimeOf } from "../../services/internal/procfs.js"
import { PrepareTokens } from "../../services/PrepareTokens.js"
import { RUN_RECORD_FILE } from "../../services/RunCoordinator.js"
import { RunStore } from "../../services/RunStore.js"
import { RunSupervisor } from "../../services/RunSupervisor.js"
import { Settings } from "../../services/Settings.js"
import { cancelRun, defineTool, getState } from "../controller/tool.js"
import { makePortfolio } from "../portfolio/portfolio.js"
import {
  createAndLaunchRun,
  digestsOf,
  ensureCanStart,
  ensureDigestsUnchanged,
  ensureModelsOffered,
  preparedByModel,
  prepareRunTool,
  readHistorical,
  resolveReviewerModel,
  startRunTool
} from "../runs/start.js"

// ---------------------------------------------------------------------------------------------
// The batch's configurations, checked before anything is read or written

interface Normalized {
  readonly configurations: ReadonlyArray<RunConfiguration>
  readonly reviewer: string | null
  readonly fingerprint: string
}

const entryError = (index: number, message: string) => controllerError(`configurations[${index}]: ${message}`)

/**
 * Every entry is a configuration of its own (with the same messages), reviewed by the batch's one
 * reviewer; a thread (or chunk) is given once. Any mistake refuses the whole batch.
 */
const normalizeBatch = (payload: PrepareBatchPayload): Either.Either<Normalized, ControllerError> =>
  Either.gen(function*() {
    const reviewer = payload.reviewer_model?.trim() || null
    const configurations: Array<RunConfiguration> = []
    for (const [index, entry] of payload.configurations.entries()) {
      const configuration = yield* Either.mapLeft(normalizeConfiguration(entry), (error) => entryError(index, error.message))
      if (configuration.reviewer_model !== null && configuration.reviewer_model !== reviewer) {
        return yield* Either.left(entryError(
          index,
          "every replay of a batch is reviewed by the batch's reviewer_model; give it once, beside configurations."
        ))
      }
      const key = (other: RunConfiguration) => `${other.thread_id}\u0000${other.range_start}\u0000${other.range_end}`
      const earlier = configurations.findIndex((other) => key(other) === key(configuration))
      if (earlier >= 0) {
        return yield* Either.left(entryError(index, `thread ${configuration.thread_id} is already configurations[${earlier}]; give each thread once.`))
      }
      configurations.push({ ...configuration, reviewer_model: reviewer })
    }
    return { configurations, reviewer, fingerprint: sha256(canonicalJson({ configurations, reviewer_model: reviewer })) }
  })

const normalized = (payload: PrepareBatchPayload) =>
  Either.match(normalizeBatch(payload), { onLeft: Effect.fail, onRight: Effect.succeed })

// ---------------------------------------------------------------------------------------------
// prepare_run with configurations

/** One configuration prepared on its own: approved with its digests, or blocked with its reasons. */
const prepareEntry = (configuration: RunConfiguration, index: number) =>
  Effect.gen(function*() {
    yield* ensureModelsOffered(configuration.models)
    yield* ensureCanStart(configuration)
    const historical = yield* readHistorical(configuration)
    const blockers = configurationBlockers(configuration, historical.comparability.existing_files_changed)
    if (blockers.length > 0) return Either.left<BlockedThread>({ index, thread_id: configuration.thread_id, reasons: blockers })
    return Either.right<BatchConfiguration>({
      configuration,
      fingerprint: configurationFingerprint(configuration),
      historical_result_sha256: historicalResultDigest(historical.result),
      prepared_configuration_sha256_by_model: digestsOf(preparedByModel(configuration, historical.snapshot)),
      claude_usd: historical.claude.cost.usd
    })
  }).pipe(
    // A thread that cannot be prepared is reported and left out; the controller's own failures are not the thread's.
    Effect.catchIf(isControllerError, (error) =>
      Effect.succeed(Either.left<BlockedThread>({ index, thread_id: configuration.thread_id, reasons: [error.message] })))
  )

const runCount = (configurations: ReadonlyArray<BatchConfiguration>) =>
  configurations.reduce((total, entry) => total + entry.configuration.models.length, 0)

const batchApprovalPrompt = (configurations: ReadonlyArray<BatchConfiguration>) =>
  `Approve a batch of ${runCount(configurations)} Codex replay(s) of ${configurations.length} thread(s), ${MAX_PARALLEL_RUNS} at a time?`

/** `prepare_run {configurations, reviewer_model?}`: each prepared independently; the ready ones approved together. */
export const prepareBatch = Effect.fn("batches.prepareBatch")(function*(payload: PrepareBatchPayload) {
  const settings = yield* Settings
  const batches = yield* Batches
  const { configurations, fingerprint, reviewer: requested } = yield* normalized(payload)
  const reviewer = yield* resolveReviewerModel(requested)
  const prepared = yield* Effect.forEach(configurations, prepareEntry, { concurrency: MAX_PARALLEL_RUNS })
  const ready = prepared.flatMap((entry) => (Either.isRight(entry) ? [entry.right] : []))
  const blocked = prepared.flatMap((entry) => (Either.isLeft(entry) ? [entry.left] : []))
  const token = ready.length === 0 ? null : yield* batches.issuePrepared({
    controller_session_id: settings.controllerSessionId,
    fingerprint,
    reviewer_model: reviewer,
    configurations: ready,
    blocked
  })
  const prompt = token === null ? null : batchApprovalPrompt(ready)
  const models = [...new Set(ready.flatMap((entry) => entry.configuration.models))]
  const blockers = ready.length === 0 ? ["Every configuration of the batch is blocked."] : []
  return {
    status: token === null ? "blocked" : "ready_for_approval",
    ready: token !== null,
    can_run: token !== null,
    batch: true,
    controller_session_id: settings.controllerSessionId,
    models,
    reviewer_model: reviewer,
    self_review_models: models.filter((model) => model === reviewer),
    ready_threads: ready.map((entry) => ({
      index: configurations.indexOf(entry.configuration),
      thread_id: entry.configuration.thread_id,
      models: entry.configuration.models
    })),
    blocked,
    runs: runCount(ready),
    blockers,
    blocking_reasons: blockers,
    approval_prompt: prompt,
    prepare_token: token,
    approval: { required: true, prompt, prepare_token: token },
    configuration_fingerprint: fingerprint
  }
})

// ---------------------------------------------------------------------------------------------
// The batch's fiber

const isoOf = (millis: number) => DateTime.formatIso(DateTime.unsafeMake(millis))

/** `run.json` holds both patches, which have no size limit of their own. */
const RUN_RECORD_MAX_BYTES = 64 * 1024 * 1024

/** Codex's cost of a run, from its `run.json` once collected; `null` when it is not priced or not known. */
const codexCostOf = (directory: string) =>
  Effect.flatMap(FileStore, (files) => files.readJsonOption(path.join(directory, RUN_RECORD_FILE), RUN_RECORD_MAX_BYTES)).pipe(
    Effect.map(Option.match({
      onNone: () => null,
      onSome: (record) => {
        const usd = (record as { codex?: { cost?: { usd?: unknown } } }).codex?.cost?.usd
        return typeof usd === "number" ? usd : null
      }
    })),
    Effect.orElseSucceed(() => null)
  )

const setItem = (batchId: string, position: number, change: Partial<BatchItem>) =>
  Effect.flatMap(Batches, (batches) =>
    batches.update(batchId, (record) => ({
      ...record,
      items: record.items.map((item, index) => (index === position ? { ...item, ...change } : item))
    })))

/** Records an ended run's duration and Codex cost on its item (once). */
const settleItem = (batchId: string, position: number) =>
  Effect.gen(function*() {
    const runs = yield* RunStore
    const item = (yield* (yield* Batches).read(batchId)).items[position]
    if (item === undefined || item.run_id === null || item.elapsed_ms !== undefined) return
    const found = yield* runs.readAny(item.run_id).pipe(Effect.option)
    if (Option.isNone(found) || !TERMINAL_STATUSES.has(found.value.state.status)) return
    const { directory, state } = found.value
    const ended = Date.parse(state.completed_at ?? state.updated_at)
    yield* setItem(batchId, position, {
      elapsed_ms: Math.max(0, ended - Date.parse(state.started_at)),
      codex_usd: yield* codexCostOf(directory)
    })
  })

/** Claude's side and the repository, read and checked against the approval once per configuration. */
const historicalChecker = (configurations: ReadonlyArray<BatchConfiguration>, reviewer: string) =>
  Effect.cachedFunction((index: number) => {
    const entry = configurations[index]
    if (entry === undefined) return Effect.fail(controllerError("The batch names a configuration it does not have."))
    return Effect.tap(readHistorical(entry.configuration), (historical) =>
      ensureDigestsUnchanged({ ...entry, reviewer_model: reviewer }, historical))
  })

type HistoricalOf = Effect.Effect.Success<ReturnType<typeof historicalChecker>>

/**
 * One (thread, model) replay: its run id goes into the record first, then the run is created and
 * launched; the batch waits for the run's end and records its duration and cost. A run id whose run
 * directory exists is never launched again.
 */
const replayItem = (
  batchId: string,
  position: number,
  plan: { readonly configurations: ReadonlyArray<BatchConfiguration>; readonly reviewer: string; readonly tokenHash: string },
  historicalOf: HistoricalOf
) =>
  Effect.gen(function*() {
    const batches = yield* Batches
    const supervisor = yield* RunSupervisor
    const item = (yield* batches.read(batchId)).items[position]
    if (item === undefined) return
    const entry = plan.configurations[item.configuration_index]
    const historical = yield* historicalOf(item.configuration_index).pipe(Effect.either)
    if (Either.isLeft(historical) || entry === undefined) {
      const message = Either.isLeft(historical) ? String(historical.left.message) : "The configuration is missing."
      return yield* setItem(batchId, position, { error: message })
    }
    const runId = item.run_id ?? (yield* newRunId)
    const launched = yield* Effect.uninterruptible(Effect.gen(function*() {
      if (item.run_id === null) yield* setItem(batchId, position, { run_id: runId })
      return yield* createAndLaunchRun(
        { prepareTokenHash: plan.tokenHash, receipt: { ...entry, reviewer_model: plan.reviewer }, historical: historical.right },
        item.model,
        runId
      ).pipe(Effect.either)
    }))
    if (Either.isLeft(launched)) yield* Effect.logWarning(`Batch ${batchId}: ${item.model} of ${item.thread_id} did not launch: ${launched.left.message}`)
    yield* supervisor.awaitEnd(runId)
    yield* settleItem(batchId, position)
  })

/** Whether the item still has to be launched: no run id yet, or a run id whose run was never created. */
const notLaunched = (runRoot: string) => (item: BatchItem) =>
  item.error !== undefined
    ? Effect.succeed(false)
    : item.run_id === null
    ? Effect.succeed(true)
    : Effect.map(Effect.flatMap(FileStore, (files) => files.exists(path.join(runRoot, item.run_id!))), (exists) => !exists)

/** The batch's portfolio verdict over its completed runs, written when the batch ends. */
const portfolioOf = (record: BatchRecord, states: ReadonlyMap<string, RunView>) => {
  const completed = record.items.flatMap((item) =>
    item.run_id !== null && states.get(item.run_id)?.status === "completed" ? [item.run_id] : []
  )
  if (completed.length === 0) return Effect.succeed(null)
  return makePortfolio(completed).pipe(
    Effect.map((written) => ({
      portfolio_id: written.portfolio.portfolio_id,
      portfolio_json: written.portfolio_json,
      portfolio_html: written.portfolio_html
    })),
    Effect.catchAll((error) => Effect.as(Effect.logWarning(`Batch ${record.batch_id}: no portfolio: ${error.message}`), null))
  )
}

/** The batch's fiber: its pending replays, 4 at a time, then its end and its portfolio. */
const runBatch = (batchId: string, configurations: ReadonlyArray<BatchConfiguration>) =>
  Effect.gen(function*() {
    const batches = yield* Batches
    const settings = yield* Settings
    const record = yield* batches.read(batchId)
    const plan = { configurations, reviewer: record.reviewer_model, tokenHash: record.prepare_token_hash }
    const historicalOf = yield* historicalChecker(configurations, record.reviewer_model)
    const pending = yield* Effect.filter(record.items.map((item, position) => ({ item, position })), ({ item }) =>
      notLaunched(settings.runRoot)(item))
    yield* Effect.forEach(pending, ({ position }) => replayItem(batchId, position, plan, historicalOf), {
      concurrency: MAX_PARALLEL_RUNS,
      discard: true
    })
    yield* Effect.forEach(record.items, (_, position) => settleItem(batchId, position), { discard: true })
    // The batch ends in one write, portfolio included: a controller that dies before it resumes a batch with nothing left to start.
    const ended = yield* batches.read(batchId)
    if (ended.status !== "running") return
    const portfolio = yield* portfolioOf(ended, yield* runViews)
    const at = isoOf(yield* Clock.currentTimeMillis)
    yield* batches.update(batchId, (current) =>
      current.status === "running" ? { ...current, status: "finished", ended_at: at, portfolio } : current)
  }).pipe(
    Effect.catchAll((error) => Effect.logError(`Batch ${batchId} stopped: ${error.message}`)),
    Effect.withSpan("batches.runBatch", { attributes: { batch_id: batchId } })
  )

/** The batch's fiber runs in the controller's services, as a run's does, and ends with the daemon. */
const launchBatch = (batchId: string, configurations: ReadonlyArray<BatchConfiguration>) =>
  Effect.gen(function*() {
    const supervisor = yield* RunSupervisor
    const run = runBatch(batchId, configurations)
    const context = yield* Effect.context<Effect.Effect.Context<typeof run>>()
    yield* supervisor.launch(batchId, Effect.provide(run, context))
  })

// ---------------------------------------------------------------------------------------------
// Summaries

const winnerOf = (state: RunState) => {
  const summary = state.report_summary as { winner?: unknown } | null | undefined
  return typeof summary?.winner === "string" ? summary.winner : null
}

/** The runs as the run store holds them now (this controller's as they change, others' as of the last look): no disk read. */
const runViews = Effect.flatMap(RunStore, (runs) => Stream.runHead(runs.changes)).pipe(
  Effect.map((snapshot) =>
    new Map<string, RunView>(
      [...Option.match(snapshot, { onNone: () => [], onSome: (current) => [...current.runs.values()] })].map(({ state }) => [
        state.run_id,
        { ...state, winner: winnerOf(state) }
      ])
    ))
)

export const summaryOf = (record: BatchRecord) =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    return summarizeBatch(record, yield* runViews, now)
  })

// ---------------------------------------------------------------------------------------------
// start_run with configurations

const startedAnswer = (record: BatchRecord, idempotent: boolean) =>
  Effect.map(summaryOf(record), (summary) => ({ batch_id: record.batch_id, batch: summary, idempotent }))

const itemsOf = (configurations: ReadonlyArray<BatchConfiguration>): Array<BatchItem> =>
  configurations.flatMap((entry, configuration_index) =>
    entry.configuration.models.map((model) => ({
      configuration_index,
      thread_id: entry.configuration.thread_id,
      model,
      run_id: null,
      claude_usd: entry.claude_usd
    }))
  )

const newRecord = (prepared: PreparedBatch, token: string, batchId: string, now: number): BatchRecord => ({
  schema_version: 1,
  batch_id: batchId,
  status: "running",
  controller_session_id: prepared.controller_session_id,
  coordinator_pid: process.pid,
  coordinator_start_time: startTimeOf(process.pid) ?? null,
  created_at: isoOf(now),
  ended_at: null,
  prepare_token_hash: tokenHash(token),
  reviewer_model: prepared.reviewer_model,
  blocked: prepared.blocked,
  items: itemsOf(prepared.configurations),
  resumed_by: [],
  portfolio: null
})

/**
 * `start_run {approved, prepare_token, configurations}`: the approved batch's record (every pair
 * without a run yet), then its fiber. Idempotent per token.
 */
export const startBatch = Effect.fn("batches.startBatch")(function*(payload: StartBatchPayload) {
  const settings = yield* Settings
  const batches = yield* Batches
  const tokens = yield* PrepareTokens
  const { fingerprint } = yield* normalized(payload)
  return yield* tokens.withStartLock(Effect.gen(function*() {
    const prepared = yield* batches.lookupPrepared(payload.prepare_token)
    if (Option.isNone(prepared)) {
      const started = yield* batches.ownByToken(tokenHash(payload.prepare_token))
      if (Option.isSome(started)) return yield* startedAnswer(started.value, true)
      return yield* conflict("The prepare token is unknown to this controller or has expired. Prepare and approve the batch again.")
    }
    if (prepared.value.controller_session_id !== settings.controllerSessionId) {
      return yield* conflict("The prepared batch belongs to a different controller session.")
    }
    if (prepared.value.fingerprint !== fingerprint) return yield* conflict("The approved batch changed. Prepare and approve it again.")
    if (prepared.value.started !== undefined) return yield* startedAnswer(yield* batches.read(prepared.value.started), true)
    const record = newRecord(prepared.value, payload.prepare_token, yield* newBatchId, yield* Clock.currentTimeMillis)
    // The record and its fiber go together: a dropped connection must not leave a batch nobody runs.
    yield* Effect.uninterruptible(Effect.gen(function*() {
      yield* batches.create(record, prepared.value.configurations)
      yield* batches.markPreparedStarted(payload.prepare_token, record.batch_id)
      yield* launchBatch(record.batch_id, prepared.value.configurations)
    }))
    return yield* startedAnswer(record, false)
  }))
})

// ---------------------------------------------------------------------------------------------
// Resuming after a controller died

const ownerIsGone = (record: BatchRecord) =>
  record.coordinator_pid === process.pid || !isSameProcess(record.coordinator_pid, record.coordinator_start_time)

/**
 * At the daemon's start: every running batch whose controller is gone becomes this controller's, and
 * its replays that had not started are started; a run that exists (even one that was interrupted) is
 * never started again.
 */
export const resumeBatches = Effect.gen(function*() {
  const batches = yield* Batches
  const settings = yield* Settings
  const orphaned = (yield* batches.listAll).filter((record) => record.status === "running" && ownerIsGone(record))
  yield* Effect.forEach(orphaned, (record) =>
    Effect.gen(function*() {
      // Two controllers starting at once: only the one that takes the batch over from its dead controller resumes it.
      if (!(yield* batches.claimTakeover(record, settings.controllerSessionId))) return
      const configurations = yield* batches.readConfigurations(record.batch_id)
      yield* batches.adopt({
        ...record,
        controller_session_id: settings.controllerSessionId,
        coordinator_pid: process.pid,
        coordinator_start_time: startTimeOf(process.pid) ?? null,
        resumed_by: [...record.resumed_by, settings.controllerSessionId]
      })
      yield* launchBatch(record.batch_id, configurations)
      yield* Effect.logInfo(`Resumed batch ${record.batch_id}.`)
    }).pipe(Effect.catchAll((error) => Effect.logWarning(`Cannot resume batch ${record.batch_id}: ${error.message}`))), { discard: true })
  return orphaned.length
}).pipe(Effect.withSpan("batches.resumeBatches"))

// ---------------------------------------------------------------------------------------------
// cancel_batch

/**
 * Marks the batch cancelled (nothing more starts), ends its fiber, then cancels its runs in progress;
 * it answers once every process they started is gone.
 */
export const cancelBatch = Effect.fn("batches.cancelBatch")(function*(batchId: string) {
  const batches = yield* Batches
  const supervisor = yield* RunSupervisor
  const settings = yield* Settings
  const record = yield* batches.read(batchId)
  if (record.controller_session_id !== settings.controllerSessionId) {
    return yield* conflict(`The batch belongs to a different controller session (${record.controller_session_id}); only that controller can cancel it.`)
  }
  if (record.status !== "running") return { record, idempotent: true }
  const cancelled = yield* Effect.uninterruptible(Effect.gen(function*() {
    const at = isoOf(yield* Clock.currentTimeMillis)
    yield* batches.update(batchId, (current) => ({ ...current, status: "cancelled", ended_at: at }))
    yield* supervisor.interrupt(batchId)
    const current = yield* batches.read(batchId)
    const runIds = current.items.flatMap((item) => (item.run_id === null ? [] : [item.run_id]))
    yield* Effect.forEach(runIds, (run_id) =>
      Effect.flatMap(RunStore, (runs) => runs.readOwned(run_id)).pipe(
        Effect.flatMap(({ state }) => (state.status === "running" ? cancelRun.run({ run_id }) : Effect.void)),
        Effect.catchIf(isControllerError, () => Effect.void)
      ), { concurrency: MAX_PARALLEL_RUNS, discard: true })
    return current
  }))
  return { record: cancelled, idempotent: false }
})

// ---------------------------------------------------------------------------------------------
// Tools

const summaryText = (summary: BatchSummary) => batchProgressText(summary)

export const getBatchTool = defineTool(ToolPayloads.get_batch, ({ batch_id }) =>
  Effect.gen(function*() {
    const summary = yield* summaryOf(yield* (yield* Batches).read(batch_id))
    return toolSuccess(summaryText(summary), { batch: summary })
  }))

export const cancelBatchTool = defineTool(ToolPayloads.cancel_batch, ({ batch_id }) =>
  Effect.gen(function*() {
    const { idempotent, record } = yield* cancelBatch(batch_id)
    const summary = yield* summaryOf(record)
    return toolSuccess(idempotent ? `Batch ${batch_id} had already ended.` : `Batch ${batch_id} was cancelled.`, {
      batch_id,
      batch: summary,
      idempotent
    })
  }))

/** `get_state`, with `state.batch`: this controller's current or most recent batch. */
export const getStateWithBatch = defineTool(ToolPayloads.get_state, (payload) =>
  Effect.flatMap(getState.run(payload), (answer) =>
    Effect.flatMap(Batches, (batches) =>
      Effect.flatMap(batches.latestRecord, (latest) => {
        // Without a batch the answer stays the one `get_state` keeps while nothing changes.
        if (Option.isNone(latest)) return Effect.succeed(answer)
        return Effect.map(summaryOf(latest.value), (batch) => {
          const structured = answer.structuredContent as { state: Record<string, unknown> }
          return { ...answer, structuredContent: { ...structured, state: { ...structured.state, batch } } }
        })
      }))))

export const prepareBatchText = (result: Effect.Effect.Success<ReturnType<typeof prepareBatch>>) =>
  [
    result.ready ? result.approval_prompt : "The batch is blocked: every configuration is blocked.",
    ...result.blocked.map((entry) => `Blocked: ${entry.thread_id}: ${entry.reasons.join(" ")}`)
  ].join("\n")

/** `prepare_run`: one configuration as before, or a batch (`configurations`). */
export const prepareRunOrBatchTool = defineTool(ToolPayloads.prepare_run, (payload) =>
  Effect.gen(function*() {
    if (!isBatchPayload(payload)) return yield* prepareRunTool.run(payload)
    const result = yield* prepareBatch(payload as PrepareBatchPayload)
    return toolSuccess(prepareBatchText(result), { ...result })
  }))

/** `start_run`: one configuration as before, or a prepared batch (`configurations`). */
export const startRunOrBatchTool = defineTool(ToolPayloads.start_run, (payload) =>
  Effect.gen(function*() {
    if (!isBatchPayload(payload)) return yield* startRunTool.run(payload)
    const result = yield* startBatch(payload as StartBatchPayload)
    return toolSuccess(
      result.idempotent ? `Batch ${result.batch_id} was already started.` : `Started batch ${result.batch_id}: ${result.batch.total} replay(s).`,
      { ...result }
    )
  }))
