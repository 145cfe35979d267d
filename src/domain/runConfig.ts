import { Either, Schema } from "effect"
import { createHash } from "node:crypto"
import * as path from "node:path"
import { DEFAULT_TIMEOUT_SECONDS, type RunConfiguration, RunConfigurationInput } from "./contracts/index.js"
import { type ControllerError, invalidArgument } from "./errors.js"
import { MAX_REPLAY_MODELS } from "./product.js"
import { parseSecondJudge, secondJudgeText } from "./review/secondJudge.js"
import { describeParseError } from "./toolResult.js"
import { ABSOLUTE_REPOSITORY_FOLDER, emptyBeginningBlocker, type Setting } from "./unblock.js"

export {
  COMMIT_PATTERN,
  DEFAULT_TIMEOUT_SECONDS,
  MAX_REQUEST_CHARS,
  MAX_TIMEOUT_SECONDS,
  RunConfiguration,
  RunConfigurationInput,
  StateKind
} from "./contracts/index.js"

type Check<A> = Either.Either<A, ControllerError>

const fail = <A>(message: string): Check<A> => Either.left(invalidArgument(message))

const decodeInput = Schema.decodeUnknownEither(RunConfigurationInput)

const textOrNull = (value: string | undefined) => (value === undefined || value.trim() === "" ? null : value)
const commitOrNull = (value: string | undefined) => (value === undefined || value === "" ? null : value.toLowerCase())
const paths = (value: ReadonlyArray<string> | undefined) => [...new Set(value ?? [])].sort()

/** Commands as approved: trimmed, each directory normalised (`.` for the project), each once, in the order given. */
const approvedCommands = (entries: ReadonlyArray<{ readonly command: string; readonly directory?: string | undefined }> | undefined) => {
  if (entries === undefined) return null
  const seen = new Set<string>()
  return entries.flatMap((entry) => {
    const approved = { command: entry.command.trim(), directory: path.posix.normalize(entry.directory?.trim() || ".").replace(/\/$/, "") || "." }
    const key = `${approved.directory}\u0000${approved.command}`
    if (seen.has(key)) return []
    seen.add(key)
    return [approved]
  })
}

/** `models`, or the older single `model` (which must then come first): one to four distinct ids. */
const modelList = (input: RunConfigurationInput): Check<ReadonlyArray<string>> => {
  const models = input.models ?? (input.model === undefined ? [] : [input.model])
  if (models.length === 0) return fail("Choose a Codex model (model or models).")
  if (new Set(models).size !== models.length) return fail("models must not repeat a model.")
  if (models.length > MAX_REPLAY_MODELS) return fail(`At most ${MAX_REPLAY_MODELS} models can replay one configuration.`)
  if (input.model !== undefined && input.models !== undefined && models[0] !== input.model) {
    return fail("model must be the first of models when both are given.")
  }
  return Either.right(models)
}

/** The rules between fields, once each field is well formed. */
/** The second judge as the configuration keeps it (`claude` or `claude:MODEL`), or `null` for none. */
export const secondJudgeOf = (value: string | null | undefined): string | null => {
  const text = value?.trim() ?? ""
  return text === "" ? null : Either.match(parseSecondJudge(text), { onLeft: () => null, onRight: secondJudgeText })
}

const configurationOf = (input: RunConfigurationInput): Check<RunConfiguration> =>
  Either.gen(function*() {
    const { beginning_kind, ending_kind } = input
    if (beginning_kind === "git" && ending_kind !== "git") {
      return yield* fail<never>("A Git beginning state requires a Git end state (ending_kind: git).")
    }
    const baseline_commit = commitOrNull(input.baseline_commit)
    if (beginning_kind === "git" && baseline_commit === null) {
      return yield* fail<never>("The historical Git commit (baseline_commit) is required for a Git replay.")
    }
    const ending_commit = commitOrNull(input.ending_commit)
    if (ending_kind === "git" && ending_commit === null) {
      return yield* fail<never>("The historical ending Git commit (ending_commit) is required for a Git replay.")
    }
    const repo = textOrNull(input.repo)
    if (beginning_kind === "git" && repo === null) return yield* fail<never>("The repository (repo) is required for a Git replay.")
    const models = yield* modelList(input)
    const range_start = textOrNull(input.range_start)
    const range_end = textOrNull(input.range_end)
    if ((range_start === null) !== (range_end === null)) return yield* fail<never>("A chunk needs both range_start and range_end.")
    const reviewer = input.reviewer_model?.trim()
    const secondJudge = secondJudgeOf(input.second_judge)
    const repositoryPath = textOrNull(input.repository_path)?.trim() ?? null
    if (repositoryPath !== null && !path.isAbsolute(repositoryPath)) {
      return yield* fail<never>(ABSOLUTE_REPOSITORY_FOLDER)
    }
    return {
      thread_id: input.thread_id,
      source_path: textOrNull(input.source_path),
      message_uuid: textOrNull(input.message_uuid),
      request: input.request,
      repo,
      ...(repositoryPath === null ? {} : { repository_path: path.resolve(repositoryPath) }),
      beginning_kind,
      ending_kind,
      baseline_commit,
      ending_commit,
      created_by_claude: paths(input.created_by_claude),
      excluded_files: paths(input.excluded_files),
      carried_forward_files: paths(input.carried_forward_files),
      confirm_empty_beginning: input.confirm_empty_beginning ?? false,
      confirm_file_selection: input.confirm_file_selection ?? false,
      confirm_repository_selection: input.confirm_repository_selection ?? false,
      models,
      reviewer_model: reviewer === undefined || reviewer === "" ? null : reviewer,
      ...(secondJudge === null ? {} : { second_judge: secondJudge }),
      timeout_seconds: input.timeout_seconds ?? DEFAULT_TIMEOUT_SECONDS,
      range_start,
      range_end,
      checks: approvedCommands(input.checks),
      setup: approvedCommands(input.setup),
      ...(input.repeats === undefined || input.repeats === 1 ? {} : { repeats: input.repeats })
    }
  })

/**
 * Validates a configuration from a request against `RunConfigurationInput`, then the rules between
 * its fields. Every message names the field it is about; nothing is read from disk here.
 */
export const normalizeConfiguration = (input: unknown): Check<RunConfiguration> =>
  Either.flatMap(
    Either.mapLeft(decodeInput(input), (error) => invalidArgument(describeParseError(error))),
    configurationOf
  )

/**
 * What must be settled before the configuration can be approved; empty when it is ready. An empty
 * beginning must be accepted explicitly, all the more when Claude changed files that already existed
 * (`existingFilesChanged`): such a replay is not like-for-like.
 */
export const configurationBlockers = (
  configuration: RunConfiguration,
  existingFilesChanged: ReadonlyArray<string> = [],
  setting: Setting = "replay"
): ReadonlyArray<string> =>
  configuration.beginning_kind === "non_git" && !configuration.confirm_empty_beginning
    ? [emptyBeginningBlocker(existingFilesChanged, setting)]
    : []

export const isChunk = (configuration: RunConfiguration) => configuration.range_start !== null

// ---------------------------------------------------------------------------------------------
// Digests

const canonical = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(canonical)
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(
      Object.keys(value).sort().map((key) => [key, canonical((value as Record<string, unknown>)[key])])
    )
  }
  return value
}

/** JSON with sorted keys and no spacing: the same value always gives the same text. */
export const canonicalJson = (value: unknown) => JSON.stringify(canonical(value))

export const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex")

/** The configuration fingerprint a prepare token is bound to (docs/controller.md). */
export const configurationFingerprint = (configuration: RunConfiguration) => sha256(canonicalJson(configuration))

/** Claude's result: the patch (or files) and the final response. */
export interface HistoricalResult {
  readonly patch: string
  readonly final_response: string
}

export const historicalResultDigest = (result: HistoricalResult) => sha256(canonicalJson(result))

/** What the repository looks like now, as far as the replay depends on it. */
export interface RepositorySnapshot {
  readonly repository: string | null
  readonly baseline_commit: string | null
  readonly ending_commit: string | null
}

/** The prepared configuration of one model: model-independent fields, the model and the repository facts. */
export const preparedConfiguration = (configuration: RunConfiguration, model: string, repository: RepositorySnapshot) => {
  const { models: _models, request: _request, ...shared } = configuration
  return { ...shared, request_sha256: sha256(configuration.request), ...repository, model }
}
export type PreparedConfiguration = ReturnType<typeof preparedConfiguration>

export const preparedConfigurationDigest = (prepared: PreparedConfiguration) => sha256(canonicalJson(prepared))

export const tokenHash = (token: string) => sha256(token)
