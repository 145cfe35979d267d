import { Effect, Either } from "effect"
import type { BatchConfiguration, BlockedThread } from "../../domain/batch.js"
import { estimateRuns, threadSizeOf } from "../runs/estimate.js"
import type { ThreadSize } from "../../domain/estimate.js"
import type { ApprovedCommand, PrepareBatchPayload, PrepareBatchResult } from "../../domain/contracts/index.js"
import { type ControllerError, invalidArgument, isControllerError } from "../../domain/errors.js"
import { MAX_PARALLEL_RUNS } from "../../domain/product.js"
import {
  canonicalJson,
  configurationBlockers,
  configurationFingerprint,
  historicalResultDigest,
  normalizeConfiguration,
  type RunConfiguration,
  secondJudgeOf,
  sha256
} from "../../domain/runConfig.js"
import { selfReviewModels } from "../../domain/reviewer.js"
import { emptyBeginningWarning } from "../../domain/unblock.js"
import { Batches } from "../../services/Batches.js"
import { CodexPreflight } from "../../services/CodexPreflight.js"
import { requireSecondJudge } from "../../services/review/claudeCode.js"
import { Settings } from "../../services/Settings.js"
import { asAsked, digestsOf, preparedByModel, readHistorical } from "../runs/historical.js"
import { ensureCanStart, ensureModelsOffered, resolveReviewerModel } from "../runs/prepare.js"
import { launchUnits } from "../runs/repeats.js"
import { relocated } from "../runs/relocation.js"

// ---------------------------------------------------------------------------------------------
// The batch's configurations, checked before anything is read or written

interface Normalized {
  readonly configurations: ReadonlyArray<RunConfiguration>
  readonly reviewer: string | null
  readonly fingerprint: string
}

const entryError = (index: number, message: string) => invalidArgument(`configurations[${index}]: ${message}`)

/**
 * Every entry is a configuration of its own (with the same messages), reviewed by the batch's one
 * reviewer; a thread (or chunk) is given once. Any mistake refuses the whole batch.
 */
const normalizeBatch = (payload: PrepareBatchPayload): Either.Either<Normalized, ControllerError> =>
  Either.gen(function*() {
    const reviewer = payload.reviewer_model?.trim() || null
    const secondJudge = secondJudgeOf(payload.second_judge)
    const repeats = payload.repeats ?? 1
    const configurations: Array<RunConfiguration> = []
    for (const [index, entry] of payload.configurations.entries()) {
      const configuration = yield* Either.mapLeft(normalizeConfiguration(entry), (error) => entryError(index, error.message))
      if (configuration.reviewer_model !== null && configuration.reviewer_model !== reviewer) {
        return yield* Either.left(entryError(
          index,
          "every replay of a batch is reviewed by the batch's reviewer_model; give it once, beside configurations."
        ))
      }
      if (configuration.second_judge !== undefined && configuration.second_judge !== secondJudge) {
        return yield* Either.left(entryError(index, "every replay of a batch has the batch's second_judge; give it once, beside configurations."))
      }
      if (configuration.repeats !== undefined && configuration.repeats !== repeats) {
        return yield* Either.left(entryError(index, "every replay of a batch is repeated the batch's repeats times; give it once, beside configurations."))
      }
      const key = (other: RunConfiguration) => `${other.thread_id}\u0000${other.range_start}\u0000${other.range_end}`
      const earlier = configurations.findIndex((other) => key(other) === key(configuration))
      if (earlier >= 0) {
        return yield* Either.left(entryError(index, `thread ${configuration.thread_id} is already configurations[${earlier}]; give each thread once.`))
      }
      // `batch --accept-empty-beginning`: every thread without a Git beginning may start from an empty folder.
      const accepted = payload.accept_empty_beginning === true && configuration.beginning_kind === "non_git"
      configurations.push({
        ...configuration,
        ...(accepted ? { confirm_empty_beginning: true } : {}),
        reviewer_model: reviewer,
        ...(secondJudge === null ? {} : { second_judge: secondJudge }),
        ...(repeats === 1 ? {} : { repeats })
      })
    }
    return { configurations, reviewer, fingerprint: sha256(canonicalJson({ configurations, reviewer_model: reviewer })) }
  })

export const normalized = (payload: PrepareBatchPayload) =>
  Either.match(normalizeBatch(payload), { onLeft: Effect.fail, onRight: Effect.succeed })

// ---------------------------------------------------------------------------------------------
// prepare_run with configurations

interface PreparedEntry {
  readonly entry: BatchConfiguration
  readonly size: ThreadSize
  readonly checks: ReadonlyArray<ApprovedCommand>
  readonly setup: ReadonlyArray<ApprovedCommand>
  readonly warnings: ReadonlyArray<string>
  readonly index: number
}

/** One configuration prepared on its own: approved with its digests, or blocked with its reasons. */
const prepareEntry = (asSent: RunConfiguration, index: number) =>
  Effect.gen(function*() {
    const configuration = yield* relocated(asSent)
    yield* ensureModelsOffered(configuration.models)
    yield* ensureCanStart(configuration)
    const historical = yield* readHistorical(configuration)
    const existing = historical.comparability.existing_files_changed
    const blockers = configurationBlockers(configuration, existing, "batch")
    if (blockers.length > 0) return Either.left<BlockedThread>({ index, thread_id: configuration.thread_id, reasons: blockers })
    const asked = asAsked(configuration, historical)
    return Either.right<PreparedEntry>({
      index,
      size: threadSizeOf(configuration, historical),
      entry: {
        configuration,
        fingerprint: configurationFingerprint(configuration),
        historical_result_sha256: historicalResultDigest(historical.result),
        prepared_configuration_sha256_by_model: digestsOf(preparedByModel(asked, historical.snapshot)),
        claude_usd: historical.claude.cost.usd
      },
      // Shown before the approval: what each thread would run on every side, and why it is not like-for-like.
      checks: asked.checks ?? [],
      setup: asked.setup ?? [],
      warnings: configuration.beginning_kind === "non_git" && existing.length > 0 ? [emptyBeginningWarning(existing)] : []
    })
  }).pipe(
    // A thread that cannot be prepared is reported and left out; the controller's own failures are not the thread's.
    Effect.catchIf(isControllerError, (error) =>
      Effect.succeed(Either.left<BlockedThread>({ index, thread_id: asSent.thread_id, reasons: [error.message] })))
  )

const runCount = (configurations: ReadonlyArray<BatchConfiguration>) =>
  configurations.reduce((total, entry) => total + launchUnits(entry.configuration).length, 0)

const batchApprovalPrompt = (configurations: ReadonlyArray<BatchConfiguration>) =>
  `Approve a batch of ${runCount(configurations)} Codex replay(s) of ${configurations.length} thread(s), ${MAX_PARALLEL_RUNS} at a time?`

/** `prepare_run {configurations, reviewer_model?}`: each prepared independently; the ready ones approved together. */
export const prepareBatch = Effect.fn("batches.prepareBatch")(function*(payload: PrepareBatchPayload) {
  const settings = yield* Settings
  const batches = yield* Batches
  const { configurations, fingerprint, reviewer: requested } = yield* normalized(payload)
  // The reviewer implements none of the batch's runs, whichever of its threads turn out ready.
  const reviewer = yield* resolveReviewerModel(requested, [...new Set(configurations.flatMap((configuration) => configuration.models))])
  yield* requireSecondJudge(configurations[0]?.second_judge)
  const prepared = yield* Effect.forEach(configurations, prepareEntry, { concurrency: MAX_PARALLEL_RUNS })
  const preflight = yield* (yield* CodexPreflight).check()
  // Without a Codex that runs and is logged in nothing is approved: the batch is blocked by that one sentence.
  const readyEntries = preflight.ready ? prepared.flatMap((entry) => (Either.isRight(entry) ? [entry.right] : [])) : []
  const ready = readyEntries.map(({ entry }) => entry)
  const blocked = prepared.flatMap((entry) => (Either.isLeft(entry) ? [entry.left] : []))
  const token = ready.length === 0 ? null : yield* batches.issuePrepared({
    controller_session_id: settings.controllerSessionId,
    fingerprint,
    reviewer_model: reviewer,
    configurations: ready,
    blocked
  })
  const prompt = token === null ? null : batchApprovalPrompt(ready)
  // Every repeat is a run of its own, priced as one.
  const estimate = yield* estimateRuns(
    readyEntries.map(({ entry, size }) => ({ size, models: launchUnits(entry.configuration).map((unit) => unit.model) })),
    reviewer,
    configurations[0]?.second_judge
  )
  const models = [...new Set(ready.flatMap((entry) => entry.configuration.models))]
  const blockers = preflight.message !== null ? [preflight.message] : ready.length === 0 ? ["Every configuration of the batch is blocked."] : []
  return {
    status: token === null ? "blocked" : "ready_for_approval",
    ready: token !== null,
    can_run: token !== null,
    batch: true,
    controller_session_id: settings.controllerSessionId,
    models,
    repeats: payload.repeats ?? 1,
    reviewer_model: reviewer,
    self_review_models: selfReviewModels(reviewer, models),
    second_judge: configurations[0]?.second_judge ?? null,
    ready_threads: readyEntries.map(({ checks, entry, index, setup, warnings }) => ({
      index,
      thread_id: entry.configuration.thread_id,
      models: entry.configuration.models,
      checks,
      setup,
      warnings
    })),
    blocked,
    runs: runCount(ready),
    blockers,
    blocking_reasons: blockers,
    approval_prompt: prompt,
    prepare_token: token,
    approval: { required: true, prompt, prepare_token: token },
    configuration_fingerprint: fingerprint,
    ...(ready.length === 0 ? {} : { estimate }),
    preflight
  } satisfies PrepareBatchResult
})
