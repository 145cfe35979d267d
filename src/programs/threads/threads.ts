import { Effect, Either } from "effect"
import { InspectThreadArguments } from "../../domain/contracts/threadPayloads.js"
import { type ControllerError, invalidArgument } from "../../domain/errors.js"
import { assessCapabilities, type Capability } from "../../domain/history/capabilities.js"
import type { ModelOption } from "../../domain/history/models.js"
import { REQUEST_SYNTHESIS_MODEL } from "../../domain/history/request.js"
import { type ChunkSelection, chunkSelection, type SplitPoint } from "../../domain/history/chunks.js"
import type { ThreadChecks } from "../../domain/history/checks.js"
import type { ThreadRecord } from "../../domain/history/session.js"
import { Baseline, type BaselineProposal, type StateKind } from "../../services/Baseline.js"
import { ClaudeHistory, type ThreadInspection } from "../../services/history/ClaudeHistory.js"
import { CodexModels } from "../../services/CodexModels.js"
import { isSampleThreadId, type SampleManifest, Samples } from "../../services/Samples.js"
import { decodeArguments } from "./threadList.js"

export { InspectThreadArguments } from "../../domain/contracts/threadPayloads.js"

export type ThreadOutput = Omit<ThreadRecord, "prompt_reconstruction_turns" | "prompt_reconstruction_truncated" | "split_points">

/** Whether a thread can be replayed in chunks, and where it can be split (docs/controller.md, chunks). */
export interface ChunkOffer {
  readonly available: boolean
  /** Why it cannot be split, when it cannot. */
  readonly reason: string | null
  readonly split_points: ReadonlyArray<SplitPoint>
  /** The chunk `range_start`/`range_end` asked for: its request and the files carried forward into it. */
  readonly selected?: ChunkSelection
}

/**
 * What `inspectThread` builds, in the domain's own types. The tool answers it as the contract's
 * `InspectThreadResult` (domain/contracts/threadResults.ts): `defineTool` only accepts a program whose
 * answer is one, so the two cannot drift apart.
 */
export interface ThreadInspectionAnswer {
  readonly thread: ThreadOutput
  readonly replay: ThreadOutput
  readonly baseline: BaselineProposal["baseline"] | Record<string, never>
  readonly capabilities: { readonly items: ReadonlyArray<Capability> } | Record<string, never>
  readonly file_selection: BaselineProposal["file_selection"] | Record<string, never>
  readonly workspace: {
    readonly kind: StateKind | null
    readonly files: BaselineProposal["file_selection"]["candidates"]
    readonly requires_empty_attestation: boolean
    readonly requires_confirmation: boolean
    readonly complete: boolean
  }
  readonly models: ReadonlyArray<ModelOption>
  readonly chunks: ChunkOffer
  /** The checks and set-up commands Claude ran in the thread, or in the chunk asked for. */
  readonly checks: ThreadChecks
  readonly questions: ReadonlyArray<string>
  readonly repository_blockers: ReadonlyArray<string>
  readonly blockers: ReadonlyArray<string>
  readonly diagnostics: ReadonlyArray<{ readonly step: InspectionStep; readonly message: string }>
}

export type InspectionStep = "thread" | "capabilities" | "baseline" | "models"

// ---------------------------------------------------------------------------------------------------
// Argument decoding: the contract's Schema, then the defaults

/** A chunk names both ends or neither. */
const chunkRange = (start: string | undefined, end: string | undefined) =>
  (start === undefined) !== (end === undefined)
    ? Either.left(invalidArgument("A chunk needs both range_start and range_end."))
    : Either.right(start === undefined || end === undefined ? {} : { range: { start, end } })

export const decodeInspectThreadArguments = (payload: unknown) =>
  Either.flatMap(decodeArguments(InspectThreadArguments, payload), (args) =>
    Either.map(chunkRange(args.range_start?.trim(), args.range_end?.trim()), (range) => ({
      thread_id: args.thread_id.trim(),
      repo: args.repo?.trim(),
      beginning_kind: args.beginning_kind || undefined,
      ending_kind: args.ending_kind || undefined,
      baseline_commit: args.baseline_commit?.trim(),
      ending_commit: args.ending_commit?.trim(),
      excluded_files: args.excluded_files ?? [],
      ...range
    })))

// ---------------------------------------------------------------------------------------------------
// Thread records for the worker and the run pipeline

interface LoadedThread {
  readonly inspection: ThreadInspection
  readonly manifest: SampleManifest | undefined
}

const loadThread = (threadId: string) =>
  Effect.gen(function*() {
    if (isSampleThreadId(threadId)) {
      const samples = yield* Samples
      const { inspection, manifest } = yield* samples.inspect(threadId)
      return { inspection, manifest } satisfies LoadedThread
    }
    const history = yield* ClaudeHistory
    return { inspection: yield* history.inspect(threadId), manifest: undefined } satisfies LoadedThread
  })

/**
 * The full record of one thread (imported or sample): request turns, recorded cwd (`project_dir`),
 * Claude's changed files with diffs, final response, tokens, cost and time.
 */
export const threadRecordById = Effect.fn("threads.threadRecordById")(function*(threadId: string) {
  return (yield* loadThread(threadId)).inspection.record
})

/**
 * A thread's record with the capability gaps its transcript shows (as `inspect_thread` assesses them).
 * The project's instruction files are not checked here: that needs the repository, which prepare and
 * start should not wait for, so the CLAUDE.md-without-AGENTS.md gap is left to the Configure step.
 */
export const threadForComparison = Effect.fn("threads.threadForComparison")(function*(threadId: string) {
  const { inspection } = yield* loadThread(threadId)
  return { record: inspection.record, capabilities: assessCapabilities(inspection.evidence, undefined) }
})

// ---------------------------------------------------------------------------------------------------
// inspect_thread

const publicRecord = (record: ThreadRecord): ThreadOutput => {
  const { prompt_reconstruction_turns: _turns, prompt_reconstruction_truncated: _truncated, split_points: _points, ...rest } = record
  return rest
}

export const SAMPLE_NOT_SPLIT = "Packaged samples cannot be split into chunks; replay the whole thread."
export const SINGLE_PROMPT_NOT_SPLIT = "This thread has fewer than two human prompts, so it cannot be split into chunks."

/**
 * The split points `inspect_thread` offers (an imported thread's human prompts, never a packaged
 * sample's) and the chunk asked for, if any; a chunk that cannot be is the caller's error.
 */
export const chunkOffer = (
  record: ThreadRecord,
  range: { readonly start: string; readonly end: string } | undefined
): Either.Either<ChunkOffer, ControllerError> => {
  const unavailable = (reason: string) =>
    range === undefined ? Either.right({ available: false, reason, split_points: [] }) : Either.left(invalidArgument(reason))
  if (record.source === "sample") return unavailable(SAMPLE_NOT_SPLIT)
  if (record.split_points.length === 0) return unavailable(SINGLE_PROMPT_NOT_SPLIT)
  const offer = { available: true, reason: null, split_points: record.split_points }
  if (range === undefined) return Either.right(offer)
  const chosen = chunkSelection(record.request_turns, record.split_points, range.start, range.end)
  return "error" in chosen ? Either.left(invalidArgument(chosen.error)) : Either.right({ ...offer, selected: chosen.selection })
}

/** When a chunk begins: its beginning commit is the branch tip then (a commit made in an earlier chunk, if any). */
const chunkStart = (record: ThreadRecord, range: { readonly start: string } | undefined) =>
  range === undefined ? undefined : record.split_points.find((point) => point.message_id === range.start)?.timestamp

/** One prompt is the request; several are concatenated, or `pending` when synthesis is possible. */
const withRequestGeneration = (record: ThreadRecord, models: ReadonlyArray<ModelOption>): ThreadRecord => {
  if (record.request_generation.method !== "concatenated_fallback") return record
  const synthesisPossible = models.some((model) => model.id === REQUEST_SYNTHESIS_MODEL) &&
    record.prompt_reconstruction_turns.length > 0 && !record.prompt_reconstruction_truncated
  return synthesisPossible ? { ...record, request_generation: { method: "pending" } } : record
}

const messageOf = (error: unknown) =>
  typeof error === "object" && error !== null && typeof (error as { message?: unknown }).message === "string"
    ? (error as { message: string }).message.slice(0, 2_000)
    : "The step failed."

/** A step's outcome; an unexpected defect is reported like a failure, so one step never sinks the others. */
const settle = <A, E, R>(step: Effect.Effect<A, E, R>) =>
  Effect.either(
    Effect.catchAllDefect(step, (defect) =>
      Effect.fail({ message: `The step failed unexpectedly: ${messageOf(defect)}` })
    )
  )

/**
 * `inspect_thread` (docs/controller.md): thread, capabilities, baseline and models are discovered concurrently;
 * a failed step becomes a diagnostic (in that fixed order) while the others still answer. The thread
 * itself is the subject: a session that cannot be read as a thread (no human request, an unreadable
 * file) answers that as the tool's one clear error.
 */
export const inspectThread = Effect.fn("threads.inspectThread")(function*(payload: unknown) {
  const args = yield* decodeInspectThreadArguments(payload)
  if (isSampleThreadId(args.thread_id)) yield* (yield* Samples).find(args.thread_id)
  else yield* (yield* ClaudeHistory).locate(args.thread_id)
  const baselines = yield* Baseline
  const codexModels = yield* CodexModels

  const thread = yield* Effect.cached(loadThread(args.thread_id))
  const baseline = yield* Effect.cached(
    Effect.flatMap(thread, ({ inspection: { record }, manifest }) =>
      baselines.propose({
        projectDir: record.project_dir,
        startedAt: chunkStart(record, args.range) ?? record.started_at,
        endedAt: record.ended_at,
        gitBranch: manifest?.branch ?? record.git_branch,
        changedFiles: record.historical_changed_files,
        repo: args.repo,
        beginningKind: args.beginning_kind,
        endingKind: args.ending_kind,
        baselineCommit: args.baseline_commit ?? manifest?.baseline_commit,
        endingCommit: args.ending_commit ?? manifest?.ending_commit,
        excludedFiles: args.excluded_files,
        sample: manifest !== undefined
      })
    )
  )
  const capabilities = Effect.flatMap(thread, ({ inspection }) =>
    baseline.pipe(
      Effect.map((proposal) => proposal.instructions),
      // Without a baseline the instruction files are simply unknown; the baseline step reports its own failure.
      Effect.catchAllCause(() => Effect.succeed(undefined)),
      Effect.map((instructions) => ({ items: assessCapabilities(inspection.evidence, instructions) }))
    )
  )
  const [threadStep, capabilityStep, baselineStep, modelStep] = yield* Effect.all(
    [settle(thread), settle(capabilities), settle(baseline), settle(codexModels.list())],
    { concurrency: "unbounded" }
  )

  if (Either.isLeft(threadStep)) return yield* invalidArgument(messageOf(threadStep.left))
  const chunks = yield* chunkOffer(threadStep.right.inspection.record, args.range)
  const diagnostics: Array<{ step: InspectionStep; message: string }> = []
  const failed = (step: InspectionStep, outcome: Either.Either<unknown, unknown>) => {
    if (Either.isLeft(outcome)) diagnostics.push({ step, message: messageOf(outcome.left) })
  }
  failed("capabilities", capabilityStep)
  failed("baseline", baselineStep)
  failed("models", modelStep)
  const modelList = Either.getOrUndefined(modelStep)
  if (modelList?.diagnostic !== undefined) diagnostics.push({ step: "models", message: modelList.diagnostic })

  // The checks of the chunk asked for are those Claude ran inside it.
  const selected = chunks.selected
  const checks = selected === undefined
    ? threadStep.right.inspection.record.checks
    : (yield* (yield* ClaudeHistory).inspectChunk(args.thread_id, selected.first_index, selected.last_index)).record.checks

  const models = modelList?.options ?? []
  const record = withRequestGeneration(threadStep.right.inspection.record, models)
  const proposal = Either.getOrUndefined(baselineStep)
  const selection = proposal?.file_selection
  const output = publicRecord(record)
  return {
    thread: output,
    replay: output,
    baseline: proposal?.baseline ?? {},
    capabilities: Either.getOrUndefined(capabilityStep) ?? {},
    file_selection: selection ?? {},
    workspace: {
      kind: selection?.source_kind ?? proposal?.baseline.source_kind ?? null,
      files: selection?.candidates ?? [],
      requires_empty_attestation: selection?.source_kind === "non_git",
      requires_confirmation: selection?.requires_confirmation ?? false,
      complete: selection?.complete ?? false
    },
    models,
    chunks,
    checks,
    questions: proposal?.questions ?? [],
    repository_blockers: proposal?.repository_blocking_reasons ?? [],
    blockers: proposal?.blocking_reasons ?? [],
    diagnostics
  } satisfies ThreadInspectionAnswer
})

export const inspectThreadText = (result: { readonly thread: { readonly source: string } }) =>
  result.thread.source === "sample" ? "Sample thread inspected." : "Imported thread inspected."
