import { Clock, Effect, Option } from "effect"
import { type BatchConfiguration, type BatchItem, type BatchRecord, newBatchId } from "../../domain/batch.js"
import type { BatchAnswer, StartBatchPayload } from "../../domain/contracts/index.js"
import { conflict, isControllerError } from "../../domain/errors.js"
import { MAX_PARALLEL_RUNS } from "../../domain/product.js"
import { tokenHash } from "../../domain/runConfig.js"
import { Batches, type PreparedBatch } from "../../services/Batches.js"
import { PrepareTokens } from "../../services/PrepareTokens.js"
import { ProcessRunner } from "../../services/ProcessRunner.js"
import { RunStore } from "../../services/RunStore.js"
import { RunSupervisor } from "../../services/RunSupervisor.js"
import { Settings } from "../../services/Settings.js"
import { cancelRun } from "../runs/cancel.js"
import { normalized } from "./prepare.js"
import { whileDiskFull } from "./diskSpace.js"
import { isoOf, launchBatch } from "./run.js"
import { summaryOf } from "./summary.js"
import { launchUnits } from "../runs/repeats.js"

// ---------------------------------------------------------------------------------------------
// start_run with configurations

const startedAnswer = (record: BatchRecord, idempotent: boolean) =>
  Effect.map(summaryOf(record), (summary): BatchAnswer => ({ batch_id: record.batch_id, batch: summary, idempotent }))

const itemsOf = (configurations: ReadonlyArray<BatchConfiguration>): Array<BatchItem> =>
  configurations.flatMap((entry, configuration_index) =>
    launchUnits(entry.configuration).map(({ model, repeat }) => ({
      configuration_index,
      thread_id: entry.configuration.thread_id,
      model,
      run_id: null,
      claude_usd: entry.claude_usd,
      ...(repeat === undefined ? {} : { repeat })
    }))
  )

const newRecord = (
  prepared: PreparedBatch,
  token: string,
  batchId: string,
  now: number,
  coordinator: { readonly pid: number; readonly startTime: number | null }
): BatchRecord => ({
  schema_version: 1,
  batch_id: batchId,
  status: "running",
  controller_session_id: prepared.controller_session_id,
  coordinator_pid: coordinator.pid,
  coordinator_start_time: coordinator.startTime,
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
    const coordinator = yield* (yield* ProcessRunner).ownIdentity
    const record = newRecord(prepared.value, payload.prepare_token, yield* newBatchId, yield* Clock.currentTimeMillis, coordinator)
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

const ownerIsGone = (record: BatchRecord, processes: ProcessRunner, ownPid: number) =>
  record.coordinator_pid === ownPid || !processes.isSameProcess(record.coordinator_pid, record.coordinator_start_time)

/**
 * At the daemon's start: every running batch whose controller is gone becomes this controller's, and
 * its replays that had not started are started; a run that exists (even one that was interrupted) is
 * never started again.
 */
export const resumeBatches = Effect.gen(function*() {
  const batches = yield* Batches
  const settings = yield* Settings
  const processes = yield* ProcessRunner
  const coordinator = yield* processes.ownIdentity
  const orphaned = (yield* batches.listAll).filter((record) =>
    record.status === "running" && ownerIsGone(record, processes, coordinator.pid)
  )
  yield* Effect.forEach(orphaned, (record) =>
    Effect.gen(function*() {
      // Two controllers starting at once: only the one that takes the batch over from its dead controller resumes it.
      if (!(yield* batches.claimTakeover(record, settings.controllerSessionId))) return
      const configurations = yield* batches.readConfigurations(record.batch_id)
      yield* batches.adopt({
        ...record,
        controller_session_id: settings.controllerSessionId,
        coordinator_pid: coordinator.pid,
        coordinator_start_time: coordinator.startTime,
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
    // A cancel does not wait for disk space: the record is held in memory and written once space returns.
    yield* batches.update(batchId, (current) => ({ ...current, status: "cancelled", ended_at: at }), { holdWhenFull: true })
    yield* supervisor.interrupt(batchId)
    if (yield* batches.isUnwritten(batchId)) yield* supervisor.launch(batchId, batches.persist(batchId).pipe(whileDiskFull(batchId, "the batch record"), Effect.provideService(Batches, batches)))
    const current = yield* batches.read(batchId)
    const runIds = current.items.flatMap((item) => (item.run_id === null ? [] : [item.run_id]))
    yield* Effect.forEach(runIds, (run_id) =>
      Effect.flatMap(RunStore, (runs) => runs.readOwned(run_id)).pipe(
        Effect.flatMap(({ state }) => (state.status === "running" ? cancelRun(run_id) : Effect.void)),
        Effect.catchIf(isControllerError, () => Effect.void)
      ), { concurrency: MAX_PARALLEL_RUNS, discard: true })
    return current
  }))
  return { record: cancelled, idempotent: false }
})
