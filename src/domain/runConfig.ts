import { Either } from "effect"
import { createHash, randomBytes } from "node:crypto"
import { ControllerError, controllerError } from "./errors.js"
import { MAX_REPLAY_MODELS } from "./product.js"
import { MODEL_ID_PATTERN } from "./settings.js"

/** Where a replay starts or ends: a git commit, or plain files (SPEC §7.1). */
export type StateKind = "git" | "non_git"

/** A validated replay configuration: what `prepare_run` approves and `start_run` launches. */
export interface RunConfiguration {
  readonly thread_id: string
  readonly source_path: string | null
  readonly message_uuid: string | null
  readonly request: string
  readonly repo: string | null
  readonly beginning_kind: StateKind
  readonly ending_kind: StateKind
  readonly baseline_commit: string | null
  readonly ending_commit: string | null
  readonly created_by_claude: ReadonlyArray<string>
  readonly excluded_files: ReadonlyArray<string>
  readonly carried_forward_files: ReadonlyArray<string>
  readonly confirm_empty_beginning: boolean
  readonly confirm_file_selection: boolean
  readonly confirm_repository_selection: boolean
  readonly models: ReadonlyArray<string>
  /** The model that reviews both sides; `null`: the controller's reviewer. */
  readonly reviewer_model: string | null
  readonly timeout_seconds: number
  readonly range_start: string | null
  readonly range_end: string | null
}

export const DEFAULT_TIMEOUT_SECONDS = 3600
export const MAX_TIMEOUT_SECONDS = 24 * 3600
export const MAX_REQUEST_CHARS = 200_000
export const COMMIT_PATTERN = /^[0-9a-f]{7,64}$/i

type Raw = Readonly<Record<string, unknown>>
type Check<A> = Either.Either<A, ControllerError>

const fail = <A>(message: string): Check<A> => Either.left(controllerError(message))

const optionalText = (raw: Raw, field: string): Check<string | null> => {
  const value = raw[field]
  if (value === undefined || value === null) return Either.right(null)
  if (typeof value !== "string") return fail(`${field} must be a string.`)
  return Either.right(value.trim() === "" ? null : value)
}

const requiredText = (raw: Raw, field: string, what: string): Check<string> => {
  const value = raw[field]
  if (typeof value !== "string" || value.trim() === "") return fail(`${what} (${field}) is required and must be a non-empty string.`)
  return Either.right(value)
}

const flag = (raw: Raw, field: string): Check<boolean> => {
  const value = raw[field]
  if (value === undefined || value === null) return Either.right(false)
  if (typeof value !== "boolean") return fail(`${field} must be true or false.`)
  return Either.right(value)
}

const pathList = (raw: Raw, field: string): Check<ReadonlyArray<string>> => {
  const value = raw[field]
  if (value === undefined || value === null) return Either.right([])
  if (!Array.isArray(value) || value.some((entry) => typeof entry !== "string" || entry.trim() === "")) {
    return fail(`${field} must be a list of file paths.`)
  }
  const paths = value as ReadonlyArray<string>
  if (paths.some((entry) => entry.split(/[\\/]/).includes(".."))) return fail(`${field} must not contain "..".`)
  return Either.right([...new Set(paths)].sort())
}

const stateKind = (raw: Raw, field: "beginning_kind" | "ending_kind", label: string): Check<StateKind> => {
  const value = raw[field]
  if (value === "git" || value === "non_git") return Either.right(value)
  if (value === undefined || value === null) return fail(`The ${label} (${field}) must be Git or Non-Git: git or non_git.`)
  return fail(`The ${label} (${field}) must be Git or Non-Git: git or non_git, not ${JSON.stringify(value).slice(0, 40)}.`)
}

const commit = (raw: Raw, field: string, label: string, required: boolean): Check<string | null> => {
  const value = raw[field]
  if (value === undefined || value === null || value === "") {
    return required ? fail(`The ${label} (${field}) is required for a Git replay.`) : Either.right(null)
  }
  if (typeof value !== "string" || !COMMIT_PATTERN.test(value)) return fail(`The ${label} (${field}) is invalid.`)
  return Either.right(value.toLowerCase())
}

const modelList = (raw: Raw): Check<ReadonlyArray<string>> => {
  const many = raw.models
  const one = raw.model
  const listed = many === undefined || many === null ? (one === undefined || one === null ? [] : [one]) : many
  if (!Array.isArray(listed)) return fail("models must be a list of Codex model ids.")
  if (listed.length === 0) return fail("Choose a Codex model (model or models).")
  if (listed.some((entry) => typeof entry !== "string" || entry.trim() === "")) {
    return fail("Every model must be a non-empty Codex model id.")
  }
  const models = listed as ReadonlyArray<string>
  if (new Set(models).size !== models.length) return fail("models must not repeat a model.")
  if (models.length > MAX_REPLAY_MODELS) return fail(`At most ${MAX_REPLAY_MODELS} models can replay one configuration.`)
  if (typeof one === "string" && many !== undefined && many !== null && models[0] !== one) {
    return fail("model must be the first of models when both are given.")
  }
  return Either.right(models)
}

const reviewerModel = (raw: Raw): Check<string | null> => {
  const value = raw.reviewer_model
  if (value === undefined || value === null || value === "") return Either.right(null)
  if (typeof value !== "string" || !MODEL_ID_PATTERN.test(value.trim())) {
    return fail("reviewer_model must be a Codex model id such as gpt-5.5.")
  }
  return Either.right(value.trim())
}

const timeoutSeconds = (raw: Raw): Check<number> => {
  const value = raw.timeout_seconds
  if (value === undefined || value === null) return Either.right(DEFAULT_TIMEOUT_SECONDS)
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > MAX_TIMEOUT_SECONDS) {
    return fail(`timeout_seconds must be a whole number of seconds from 1 through ${MAX_TIMEOUT_SECONDS}.`)
  }
  return Either.right(value)
}

const range = (raw: Raw): Check<{ range_start: string | null; range_end: string | null }> =>
  Either.gen(function*() {
    const start = yield* optionalText(raw, "range_start")
    const end = yield* optionalText(raw, "range_end")
    if ((start === null) !== (end === null)) return yield* fail<never>("A chunk needs both range_start and range_end.")
    return { range_start: start, range_end: end }
  })

/**
 * Validates a configuration from a request. Every message names the field it is about; nothing
 * is read from disk here.
 */
export const normalizeConfiguration = (input: unknown): Check<RunConfiguration> =>
  Either.gen(function*() {
    if (typeof input !== "object" || input === null || Array.isArray(input)) {
      return yield* fail<never>("The replay configuration must be an object.")
    }
    const raw = input as Raw
    const thread_id = yield* requiredText(raw, "thread_id", "The thread")
    const request = yield* requiredText(raw, "request", "The task request")
    if (request.length > MAX_REQUEST_CHARS) return yield* fail<never>(`The task request (request) is longer than ${MAX_REQUEST_CHARS} characters.`)
    const beginning_kind = yield* stateKind(raw, "beginning_kind", "beginning state")
    const ending_kind = yield* stateKind(raw, "ending_kind", "end state")
    if (beginning_kind === "git" && ending_kind !== "git") {
      return yield* fail<never>("A Git beginning state requires a Git end state (ending_kind: git).")
    }
    const baseline_commit = yield* commit(raw, "baseline_commit", "historical Git commit", beginning_kind === "git")
    const ending_commit = yield* commit(raw, "ending_commit", "historical ending Git commit", ending_kind === "git")
    const repo = yield* optionalText(raw, "repo")
    if (beginning_kind === "git" && repo === null) return yield* fail<never>("The repository (repo) is required for a Git replay.")
    return {
      thread_id,
      source_path: yield* optionalText(raw, "source_path"),
      message_uuid: yield* optionalText(raw, "message_uuid"),
      request,
      repo,
      beginning_kind,
      ending_kind,
      baseline_commit,
      ending_commit,
      created_by_claude: yield* pathList(raw, "created_by_claude"),
      excluded_files: yield* pathList(raw, "excluded_files"),
      carried_forward_files: yield* pathList(raw, "carried_forward_files"),
      confirm_empty_beginning: yield* flag(raw, "confirm_empty_beginning"),
      confirm_file_selection: yield* flag(raw, "confirm_file_selection"),
      confirm_repository_selection: yield* flag(raw, "confirm_repository_selection"),
      models: yield* modelList(raw),
      reviewer_model: yield* reviewerModel(raw),
      timeout_seconds: yield* timeoutSeconds(raw),
      ...(yield* range(raw))
    } satisfies RunConfiguration
  })

/**
 * What must be settled before the configuration can be approved; empty when it is ready. An empty
 * beginning must be accepted explicitly, all the more when Claude changed files that already existed
 * (`existingFilesChanged`): such a replay is not like-for-like.
 */
export const configurationBlockers = (
  configuration: RunConfiguration,
  existingFilesChanged: ReadonlyArray<string> = []
): ReadonlyArray<string> => {
  const blockers: Array<string> = []
  if (configuration.beginning_kind === "non_git" && !configuration.confirm_empty_beginning) {
    blockers.push(
      existingFilesChanged.length === 0
        ? "Confirm that the replay starts from an empty directory (confirm_empty_beginning)."
        : `Claude modified ${existingFilesChanged.length} file(s) that existed before the session (${
          existingFilesChanged.join(", ")
        }), so a replay from an empty directory is not like-for-like: accept the empty beginning explicitly (confirm_empty_beginning) or choose a Git repository.`
    )
  }
  return blockers
}

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

/** The configuration fingerprint a prepare token is bound to (SPEC §7.1). */
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

export const newPrepareToken = () => randomBytes(32).toString("base64url")

export const tokenHash = (token: string) => sha256(token)

/** Run ids sort by start time and match `^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`. */
export const newRunId = (nowMillis: number) =>
  `run-${new Date(nowMillis).toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z")}-${randomBytes(5).toString("hex")}`
