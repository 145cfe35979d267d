import { Effect, Option } from "effect"
import { notFound } from "../../domain/errors.js"
import { defaultChecks, type ThreadChecks } from "../../domain/history/checks.js"
import type { ThreadRecord } from "../../domain/history/session.js"
import { type ComparabilityFacts, comparabilityFacts } from "../../domain/report/comparability.js"
import { boundFileList, boundFinalResponse } from "../../domain/report/ceilings.js"
import { boundPatch, type CollectedPatch } from "../../domain/report/patchCollector.js"
import type { CandidateSide } from "../../domain/report/report.js"
import { changedFilesFromPatch } from "../../domain/review/anonymize.js"
import {
  type HistoricalResult,
  isChunk,
  preparedConfiguration,
  preparedConfigurationDigest,
  type RepositorySnapshot,
  type RunConfiguration
} from "../../domain/runConfig.js"
import { excerpt } from "../../domain/toolResult.js"
import { FileStore } from "../../services/FileStore.js"
import { Workspace, type WorkspacePlan } from "../../services/Workspace.js"
import { ensureCarriedFiles, ensureThreadRepository } from "./runInputs.js"
import { threadForComparison } from "../threads/threads.js"
import { type ChunkFacts, type ChunkPlan, resolveChunk } from "./chunks.js"

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
  /** The checks and set-up commands Claude ran in the thread, or in the chunk. */
  readonly checks: ThreadChecks
}

/** Files that existed before the session and that Claude modified, as far as they take part in the comparison. */
const existingFilesChanged = (record: ThreadRecord, configuration: RunConfiguration) =>
  record.historical_changed_files
    .filter((file) =>
      file.kind === "modified" && !file.abandoned && !file.outside_project && !configuration.excluded_files.includes(file.path)
    )
    .map((file) => file.path)

/** The configuration as it is prepared: with the request Codex is asked (a chunk's has the earlier chunks' background). */
/**
 * The configuration as it runs: the request Codex is asked, and the checks and set-up commands approved —
 * those named, or when none are named the thread's (`defaultChecks`). What it gives is what the prepared
 * digest binds, so a start runs exactly the commands its preparation showed.
 */
export const asAsked = (configuration: RunConfiguration, historical: Historical): RunConfiguration => {
  const defaults = defaultChecks(historical.checks)
  return {
    ...configuration,
    request: historical.request,
    checks: configuration.checks ?? defaults.checks,
    setup: configuration.setup ?? defaults.setup
  }
}

/** Claude's patch rebuilt from the transcript, within the patch ceilings like a collected one. */
const nonGitPatch = (record: ThreadRecord, configuration: RunConfiguration): CollectedPatch => {
  const whole = record.historical_changed_files
    .filter((file) => !file.abandoned && !file.outside_project && !configuration.excluded_files.includes(file.path))
    .flatMap((file) => (file.diff === null ? [] : [file.diff.endsWith("\n") ? file.diff : `${file.diff}\n`]))
    .join("")
  // Listed from the whole text, so a file past the patch's cut is still named.
  const files = changedFilesFromPatch(whole)
  return { ...boundPatch(whole), listing: { files, total: files.length } }
}

/** Claude's side within the ceilings on output: its patch as collected, its response and file list cut where they pass theirs. */
const claudeSide = (record: ThreadRecord, collected: CollectedPatch, worktree: string | null, configuredRepo: string | null): CandidateSide => {
  const response = boundFinalResponse(record.final_response)
  const files = collected.listing === undefined
    ? boundFileList(changedFilesFromPatch(collected.patch))
    : boundFileList(collected.listing.files, collected.listing.total)
  const cuts = [...collected.cuts, ...(files.cut === null ? [] : [files.cut]), ...(response.cut === null ? [] : [response.cut])]
  return {
    ...claudeSideFacts(record, worktree, configuredRepo),
    patch: collected.patch,
    final_response: response.text,
    files: files.entries,
    ...(cuts.length === 0 ? {} : { output_cuts: cuts })
  }
}

const claudeSideFacts = (record: ThreadRecord, worktree: string | null, configuredRepo: string | null) => ({
  model: record.claude_model,
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
} satisfies Omit<CandidateSide, "patch" | "final_response" | "files">)

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
      const comparability = (baselineCommit: string | null, used?: string) =>
        comparabilityFacts({
          beginning_kind: configuration.beginning_kind,
          baseline_commit: baselineCommit,
          relocated_repository: configuration.repository_path === undefined || used === undefined || used === thread.record.project_dir
            ? undefined
            : { recorded: thread.record.project_dir, used },
          carried_forward_files: carriedNames,
          existing_files_changed: configuration.beginning_kind === "non_git"
            ? existingFilesChanged(record, configuration).filter((file) => !carriedNames.includes(file))
            : []
        }, capabilities, record.final_response)
      const carried = chunk === null
        ? { carriedForwardFiles: configuration.carried_forward_files }
        : { carriedForwardFiles: [], carriedContents: chunk.carried }
      return {
        record,
        comparability,
        carried,
        request: chunk?.request ?? configuration.request,
        chunk: chunk?.facts ?? null,
        checks: record.checks
      }
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
      const collected = chunk === null
        ? yield* workspace.historicalPatch(repository.repository, baseline, ending)
        : nonGitPatch(record, configuration)
      return {
        result: { patch: collected.patch, final_response: record.final_response },
        claude: claudeSide(record, collected, repository.repository, configuration.repo),
        snapshot: { repository: repository.repository, baseline_commit: baseline, ending_commit: ending },
        plan: { kind: "git", repository: repository.repository, commit: baseline, hiddenRoots, ...carried },
        comparability: comparability(baseline, repository.repository),
        ...asked
      } satisfies Historical
    }
    const chunk = yield* resolveChunk(configuration, thread.record, null)
    const { carried, comparability, record, ...asked } = withChunk(chunk)
    const project = configuration.repo === null ? null : yield* realDirectory(configuration.repo)
    yield* ensureCarriedFiles(configuration, thread.record, project, null)
    const collected = nonGitPatch(record, configuration)
    return {
      result: { patch: collected.patch, final_response: record.final_response },
      claude: claudeSide(record, collected, project, configuration.repo),
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
