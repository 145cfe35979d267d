import { Clock, DateTime, Effect, Either, Option } from "effect"
import { decodeSpend } from "../../domain/spend.js"
import * as path from "node:path"
import type { BatchConfiguration, BatchItem, BatchRecord, RunView } from "../../domain/batch.js"
import { unreadableFile } from "../../domain/errors.js"
import { newRunId } from "../../domain/ids.js"
import { MAX_PARALLEL_RUNS } from "../../domain/product.js"
import { TERMINAL_STATUSES } from "../../domain/runState.js"
import { Batches } from "../../services/Batches.js"
import { FileStore } from "../../services/FileStore.js"
import { RUN_RECORD_FILE } from "../../services/RunCoordinator.js"
import { RunStore } from "../../services/RunStore.js"
import { RunSupervisor } from "../../services/RunSupervisor.js"
import { spendLines } from "../../services/runSpend.js"
import { Settings } from "../../services/Settings.js"
import { makePortfolio } from "../portfolio/portfolio.js"
import { readHistorical } from "../runs/historical.js"
import { createAndLaunchRun, ensureDigestsUnchanged } from "../runs/start.js"
import { whileDiskFull } from "./diskSpace.js"
import { runViews } from "./summary.js"

// ---------------------------------------------------------------------------------------------
// The batch's fiber

export const isoOf = (millis: number) => DateTime.formatIso(DateTime.unsafeMake(millis))

/** `run.json` holds both patches, which have no size limit of their own. */
const RUN_RECORD_MAX_BYTES = 64 * 1024 * 1024

/**
 * Codex's implementation cost of a run, its evaluation's cost (every other call of its ledger) and the tokens of
 * all its calls as `runs` shows them, from its `run.json` once collected; `null` when not priced or not known.
 */
const costsOf = (directory: string): Effect.Effect<Pick<BatchItem, "codex_usd" | "evaluation_usd" | "tokens">, never, FileStore> =>
  Effect.flatMap(FileStore, (files) => files.readJsonOption(path.join(directory, RUN_RECORD_FILE), RUN_RECORD_MAX_BYTES)).pipe(
    Effect.map(Option.match({
      onNone: () => ({ codex_usd: null, tokens: null }),
      onSome: (record) => {
        const usd = (record as { codex?: { cost?: { usd?: unknown } } }).codex?.cost?.usd
        const spend = decodeSpend((record as { spend?: unknown }).spend)
        return {
          codex_usd: typeof usd === "number" ? usd : null,
          tokens: spend === undefined ? null : spendLines(spend).tokens,
          ...(spend === undefined ? {} : { evaluation_usd: spend.evaluation.unpriced_calls > 0 ? null : spend.evaluation.usd })
        }
      }
    })),
    Effect.orElseSucceed(() => ({ codex_usd: null, tokens: null }))
  )

const setItem = (batchId: string, position: number, change: Partial<BatchItem>) =>
  Effect.flatMap(Batches, (batches) =>
    batches.update(batchId, (record) => ({
      ...record,
      items: record.items.map((item, index) => (index === position ? { ...item, ...change } : item))
    }))).pipe(whileDiskFull(batchId, "the batch record"))

/** Records an ended run's duration, Codex cost and tokens on its item (once). */
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
      ...(yield* costsOf(directory))
    })
  })

/** Claude's side and the repository, read and checked against the approval once per configuration. */
const historicalChecker = (configurations: ReadonlyArray<BatchConfiguration>, reviewer: string) =>
  Effect.cachedFunction((index: number) =>
    Effect.gen(function*() {
      const entry = configurations[index]
      if (entry === undefined) {
        return yield* unreadableFile(
          "The batch's record names a configuration it does not have (the record is damaged); prepare and start the batch again."
        )
      }
      const historical = yield* readHistorical(entry.configuration)
      yield* ensureDigestsUnchanged({ ...entry, reviewer_model: reviewer }, historical)
      return historical
    }))

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
    if (item.run_id === null) yield* setItem(batchId, position, { run_id: runId })
    // Each try creates and launches the run whole; between tries (a full disk) the wait can be interrupted.
    const launched = yield* Effect.uninterruptible(createAndLaunchRun(
      { prepareTokenHash: plan.tokenHash, receipt: { ...entry, reviewer_model: plan.reviewer }, historical: historical.right },
      item.model,
      runId,
      item.repeat
    )).pipe(whileDiskFull(batchId, `the run ${runId}`), Effect.either)
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
    whileDiskFull(record.batch_id, "the batch's portfolio"),
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
    // A batch its start could not write (a full disk) is written before anything of it starts.
    yield* batches.persist(batchId).pipe(whileDiskFull(batchId, "the batch record"))
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
      current.status === "running" ? { ...current, status: "finished", ended_at: at, portfolio } : current).pipe(
        whileDiskFull(batchId, "the batch record")
      )
  }).pipe(
    Effect.catchAll((error) => Effect.logError(`Batch ${batchId} stopped: ${error.message}`)),
    Effect.withSpan("batches.runBatch", { attributes: { batch_id: batchId } })
  )

/** The batch's fiber runs in the controller's services, as a run's does, and ends with the daemon. */
export const launchBatch = (batchId: string, configurations: ReadonlyArray<BatchConfiguration>) =>
  Effect.gen(function*() {
    const supervisor = yield* RunSupervisor
    const run = runBatch(batchId, configurations)
    const context = yield* Effect.context<Effect.Effect.Context<typeof run>>()
    yield* supervisor.launch(batchId, Effect.provide(run, context))
  })
