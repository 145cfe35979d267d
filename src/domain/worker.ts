import type { ThreadOptions } from "@openai/codex-sdk"
import { Either, JSONSchema, ParseResult, Schema } from "effect"
import { WorkerError } from "./errors.js"

/** Why the worker runs; the purpose decides sandbox, network and reasoning effort (docs/security.md). */
export const WorkerPurpose = Schema.Literal(
  "implementation",
  "evaluation",
  "review_normalization",
  "prompt_synthesis",
  "working_directory_inference"
)
export type WorkerPurpose = typeof WorkerPurpose.Type

/** Token counts of the thread so far; `turn.completed` reports them cumulatively per thread. */
export const WorkerUsage = Schema.Struct({
  input: Schema.Number,
  cached_input: Schema.Number,
  cache_write: Schema.Number,
  output: Schema.Number,
  reasoning_output: Schema.Number
})
export type WorkerUsage = typeof WorkerUsage.Type

export const ZERO_USAGE: WorkerUsage = { input: 0, cached_input: 0, cache_write: 0, output: 0, reasoning_output: 0 }

/** A completed Codex item. Unknown item types are kept as they came. */
export const WorkerItem = Schema.Struct(
  { id: Schema.String, type: Schema.String },
  Schema.Record({ key: Schema.String, value: Schema.Unknown })
)
export type WorkerItem = typeof WorkerItem.Type

/** What a successful worker run answers (without the decoded structured output). */
export const WorkerResultData = Schema.Struct({
  thread_id: Schema.String,
  final_response: Schema.String,
  items: Schema.Array(WorkerItem),
  usage: WorkerUsage,
  elapsed_ms: Schema.Number,
  worktree: Schema.String
})
export type WorkerResultData = typeof WorkerResultData.Type

/** Every `WorkerError.code` the worker produces. */
export const WORKER_ERROR_CODES = [
  "invalid_request",
  "cli_unavailable",
  "spawn_failed",
  "stream_error",
  "server_error",
  "rate_limited",
  "timeout",
  "bad_request",
  "unauthorized",
  "usage_limit",
  "untrusted_directory",
  "unknown_thread",
  "invalid_arguments",
  "protocol_error",
  "killed",
  "cli_failed",
  "turn_failed",
  "incomplete_turn",
  "invalid_output"
] as const
export type WorkerErrorCode = (typeof WORKER_ERROR_CODES)[number]

/** Where in a run the worker failed (`diagnostic.worker_stage`). */
export type WorkerStage = "request" | "spawn" | "stream" | "turn" | "exit" | "completion" | "output" | "timeout"

// ---------------------------------------------------------------------------------------------
// Purposes

const READ_ONLY_PURPOSES: ReadonlySet<WorkerPurpose> = new Set([
  "evaluation",
  "review_normalization",
  "prompt_synthesis",
  "working_directory_inference"
])
const REVIEW_PURPOSES: ReadonlySet<WorkerPurpose> = new Set(["evaluation", "review_normalization"])

/** The log source of a purpose when the caller names none. */
export const defaultLabel = (purpose: WorkerPurpose): string =>
  purpose === "evaluation" ? "reviewer" : purpose.replaceAll("_", "-")

/** Reviewer output never reaches the run log (docs/security.md). */
export const isReviewerOutput = (purpose: WorkerPurpose) => REVIEW_PURPOSES.has(purpose)

/**
 * SDK thread options for a purpose. The sandbox itself is the permission profile of
 * `sandboxConfig` (agentSandbox.ts): passing `--sandbox` would make Codex fall back to its older sandbox settings,
 * which can read the whole disk.
 */
export const threadOptionsFor = (input: {
  readonly purpose: WorkerPurpose
  readonly model: string
  readonly workingDirectory: string
  readonly skipGitRepoCheck: boolean
}): ThreadOptions => {
  const readOnly = READ_ONLY_PURPOSES.has(input.purpose)
  return {
    model: input.model,
    workingDirectory: input.workingDirectory,
    skipGitRepoCheck: input.skipGitRepoCheck,
    approvalPolicy: "never",
    ...(readOnly ? { webSearchMode: "disabled" as const } : {}),
    ...(REVIEW_PURPOSES.has(input.purpose) ? { modelReasoningEffort: "medium" as const } : {})
  }
}

/** Whether a purpose's profile lets the agent write its working directory and use the network. */
export const isReadOnlyPurpose = (purpose: WorkerPurpose) => READ_ONLY_PURPOSES.has(purpose)

// ---------------------------------------------------------------------------------------------
// Events

/** One `exec --experimental-json` event, reduced to what the worker acts on. */
export type WorkerEvent =
  | { readonly kind: "thread_started"; readonly threadId: string }
  | { readonly kind: "item_completed"; readonly item: WorkerItem; readonly unknownItemType: boolean }
  | { readonly kind: "turn_completed"; readonly usage: WorkerUsage }
  | { readonly kind: "turn_failed"; readonly message: string }
  | { readonly kind: "error"; readonly message: string }
  | { readonly kind: "progress" }
  | { readonly kind: "unknown"; readonly type: string }

const KNOWN_ITEM_TYPES = new Set([
  "agent_message",
  "reasoning",
  "command_execution",
  "file_change",
  "mcp_tool_call",
  "web_search",
  "todo_list",
  "error"
])

type JsonRecord = Readonly<Record<string, unknown>>

const isRecord = (value: unknown): value is JsonRecord =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const count = (value: unknown) => (typeof value === "number" && Number.isFinite(value) ? value : 0)

const usageOf = (raw: unknown): WorkerUsage => {
  const usage = isRecord(raw) ? raw : {}
  return {
    input: count(usage.input_tokens),
    cached_input: count(usage.cached_input_tokens),
    cache_write: count(usage.cache_write_input_tokens),
    output: count(usage.output_tokens),
    reasoning_output: count(usage.reasoning_output_tokens)
  }
}

const messageOf = (raw: unknown) =>
  isRecord(raw) && typeof raw.message === "string" ? raw.message : "Codex reported a failed turn."

export const interpretEvent = (raw: unknown): WorkerEvent => {
  const event = isRecord(raw) ? raw : {}
  const type = typeof event.type === "string" ? event.type : "(none)"
  switch (type) {
    case "thread.started":
      return typeof event.thread_id === "string" ? { kind: "thread_started", threadId: event.thread_id } : { kind: "unknown", type }
    case "item.completed": {
      const item = event.item
      if (!isRecord(item) || typeof item.type !== "string") return { kind: "unknown", type }
      const normalized: WorkerItem = { ...item, id: typeof item.id === "string" ? item.id : "", type: item.type }
      return { kind: "item_completed", item: normalized, unknownItemType: !KNOWN_ITEM_TYPES.has(item.type) }
    }
    case "turn.completed":
      return { kind: "turn_completed", usage: usageOf(event.usage) }
    case "turn.failed":
      return { kind: "turn_failed", message: messageOf(event.error) }
    case "error":
      return { kind: "error", message: typeof event.message === "string" ? event.message : "" }
    case "turn.started":
    case "item.started":
    case "item.updated":
      return { kind: "progress" }
    default:
      return { kind: "unknown", type }
  }
}

/** What one attempt saw, gathered while the events streamed. */
export interface AttemptRecord {
  threadId: string | null
  readonly items: Array<WorkerItem>
  /** The last `agent_message`: partial messages can precede a stream retry. */
  finalResponse: string | undefined
  usage: WorkerUsage | undefined
  turnFailure: string | undefined
  lastErrorEvent: string | undefined
}

export const emptyAttempt = (): AttemptRecord => ({
  threadId: null,
  items: [],
  finalResponse: undefined,
  usage: undefined,
  turnFailure: undefined,
  lastErrorEvent: undefined
})

/** Folds one interpreted event into the record (mutating: events can number in the thousands). */
export const recordEvent = (record: AttemptRecord, event: WorkerEvent): void => {
  switch (event.kind) {
    case "thread_started":
      record.threadId = event.threadId
      return
    case "item_completed":
      record.items.push(event.item)
      if (event.item.type === "agent_message" && typeof event.item.text === "string") {
        record.finalResponse = event.item.text
      }
      return
    case "turn_completed":
      record.usage = event.usage
      return
    case "turn_failed":
      record.turnFailure = event.message
      return
    case "error":
      record.lastErrorEvent = event.message
      return
  }
}

// ---------------------------------------------------------------------------------------------
// Failure classification (codex-exec-protocol.md §2.3, §3.7, §8.4)

export interface Classification {
  readonly code: WorkerErrorCode
  readonly retryable: boolean
}

/** An HTTP status as codex reports it ("last status: 429 …", "HTTP 503", "500 Internal Server Error"). */
const status = (codes: string, reason: string) =>
  new RegExp(`(?:status|HTTP)[:= ]*(?:${codes})\\b|\\b(?:${codes}) (?:${reason})`, "i")

const PERMANENT_RULES: ReadonlyArray<readonly [RegExp, Classification]> = [
  [/panicked at/i, { code: "cli_failed", retryable: false }],
  [status("401|403", "Unauthorized|Forbidden"), { code: "unauthorized", retryable: false }],
  [/unauthori[sz]ed|invalid[_ ]api[_ ]key|not logged in|authentication/i, { code: "unauthorized", retryable: false }],
  [/usage limit|insufficient_quota|quota exceeded/i, { code: "usage_limit", retryable: false }],
  [/not inside a trusted directory/i, { code: "untrusted_directory", retryable: false }],
  [/no rollout found/i, { code: "unknown_thread", retryable: false }],
  [status("400|404|422", "Bad Request|Not Found|Unprocessable"), { code: "bad_request", retryable: false }],
  [/invalid_request_error/i, { code: "bad_request", retryable: false }]
]

const TRANSIENT_RULES: ReadonlyArray<readonly [RegExp, Classification]> = [
  [status("429", "Too Many Requests"), { code: "rate_limited", retryable: true }],
  [/too many requests|exceeded retry limit|rate.?limit/i, { code: "rate_limited", retryable: true }],
  [status("5\\d\\d", "Internal Server Error|Bad Gateway|Service Unavailable|Gateway Timeout"), { code: "server_error", retryable: true }],
  [/high demand|internal server error|bad gateway|service unavailable|overloaded/i, { code: "server_error", retryable: true }],
  [/stream disconnected|error sending request|reconnecting|connection (?:reset|refused|closed)|broken pipe|network/i, { code: "stream_error", retryable: true }],
  [/timed? ?out\b|idle timeout/i, { code: "timeout", retryable: true }]
]

/** An API error body that codex passed through unretried (for example a 400 on a bad schema). */
const isRawErrorBody = (message: string) => {
  try {
    const parsed: unknown = JSON.parse(message)
    return isRecord(parsed) && isRecord(parsed.error)
  } catch {
    return false
  }
}

/** Classifies a failure message; permanent causes win over transient-looking words. */
export const classifyMessage = (message: string, fallback: Classification): Classification => {
  if (isRawErrorBody(message)) {
    const permanent = PERMANENT_RULES.find(([pattern]) => pattern.test(message))
    return permanent?.[1] ?? { code: "bad_request", retryable: false }
  }
  for (const [pattern, classification] of [...PERMANENT_RULES, ...TRANSIENT_RULES]) {
    if (pattern.test(message)) return classification
  }
  return fallback
}

/** The parts of the SDK's `Codex Exec exited with …: <stderr>` error. */
export interface ExitReport {
  readonly exitCode: number | null
  readonly signal: string | null
  readonly stderr: string
}

const EXIT_PATTERN = /^Codex Exec exited with (?:code (-?\d+)|signal (\w+)): ?([\s\S]*)$/

export const parseExitError = (message: string): ExitReport | undefined => {
  const match = EXIT_PATTERN.exec(message)
  if (match === null) return undefined
  return {
    exitCode: match[1] === undefined ? null : Number(match[1]),
    signal: match[2] ?? null,
    stderr: match[3] ?? ""
  }
}

const STDERR_NOISE = [/^Reading prompt from stdin\.\.\.$/, /^WARNING: proceeding, even though we could not create PATH aliases/]

/** stderr without the lines every run prints, bounded for messages. */
export const meaningfulStderr = (stderr: string) =>
  stderr
    .split(/\r?\n/)
    .map((line) => line.trimEnd())
    .filter((line) => line !== "" && !STDERR_NOISE.some((noise) => noise.test(line)))
    .join("\n")
    .slice(-2000)

export interface FailureFacts {
  readonly record: AttemptRecord
  /** What the event stream threw, if anything (after the last event). */
  readonly thrown: unknown
  readonly elapsedMs: number
}

interface FailureShape {
  readonly code: WorkerErrorCode
  readonly message: string
  readonly retryable: boolean
  readonly stage: WorkerStage
  readonly exitCode: number | null
  readonly systemCode: string | null
}

export const workerError = (shape: FailureShape & { readonly elapsedMs: number; readonly rawOutput?: string }) =>
  new WorkerError({
    code: shape.code,
    message: shape.message,
    retryable: shape.retryable,
    diagnostic: {
      worker_code: shape.code,
      exit_code: shape.exitCode,
      system_code: shape.systemCode,
      worker_stage: shape.stage,
      elapsed_ms: Math.round(shape.elapsedMs)
    },
    ...(shape.rawOutput === undefined ? {} : { raw_output: shape.rawOutput })
  })

/** A request rejected before any process starts. */
export const invalidRequest = (message: string, code: "invalid_request" | "cli_unavailable" = "invalid_request") =>
  workerError({ code, message, retryable: false, stage: "request", exitCode: null, systemCode: null, elapsedMs: 0 })

const errorMessage = (thrown: unknown) => (thrown instanceof Error ? thrown.message : String(thrown))
const systemCodeOf = (thrown: unknown) => {
  const code = (thrown as { code?: unknown } | null)?.code
  return typeof code === "string" ? code : null
}

const classifyThrown = (thrown: unknown, record: AttemptRecord): FailureShape => {
  const message = errorMessage(thrown)
  const exit = parseExitError(message)
  if (exit === undefined) {
    if (message.startsWith("Failed to parse item")) {
      return { code: "protocol_error", message: `Codex printed a line that is not JSON: ${message.slice(22, 522)}`, retryable: false, stage: "stream", exitCode: null, systemCode: null }
    }
    const systemCode = systemCodeOf(thrown)
    return { code: "spawn_failed", message: `Codex could not be started: ${message}`, retryable: false, stage: "spawn", exitCode: null, systemCode }
  }
  const detail = meaningfulStderr(exit.stderr)
  if (exit.signal !== null) {
    return { code: "killed", message: `Codex was killed by ${exit.signal}${detail === "" ? "." : `: ${detail}`}`, retryable: true, stage: "exit", exitCode: null, systemCode: exit.signal }
  }
  if (exit.exitCode === 2) {
    return { code: "invalid_arguments", message: `Codex rejected its arguments: ${detail}`, retryable: false, stage: "exit", exitCode: 2, systemCode: null }
  }
  const evidence = detail === "" ? record.lastErrorEvent ?? "" : detail
  const classification = classifyMessage(evidence, { code: "cli_failed", retryable: false })
  const text = evidence === "" ? `Codex exited with code ${exit.exitCode}.` : evidence
  return { ...classification, message: text, stage: "exit", exitCode: exit.exitCode, systemCode: null }
}

/**
 * Decides whether an attempt failed and how. The structured `turn.failed` message wins over the
 * exit error and its stderr noise; a clean exit without `turn.completed` is a failure too.
 */
export const classifyAttempt = (facts: FailureFacts): WorkerError | undefined => {
  const { record, thrown, elapsedMs } = facts
  const exit = thrown === undefined ? undefined : parseExitError(errorMessage(thrown))
  if (record.turnFailure !== undefined) {
    const classification = classifyMessage(record.turnFailure, { code: "turn_failed", retryable: false })
    return workerError({ ...classification, message: record.turnFailure, stage: "turn", exitCode: exit?.exitCode ?? null, systemCode: exit?.signal ?? null, elapsedMs })
  }
  if (thrown !== undefined) return workerError({ ...classifyThrown(thrown, record), elapsedMs })
  if (record.usage === undefined) {
    const message = "Codex exited without completing the turn (no turn.completed event)."
    return workerError({ code: "incomplete_turn", message, retryable: false, stage: "completion", exitCode: 0, systemCode: null, elapsedMs })
  }
  if (record.threadId === null) {
    const message = "Codex completed the turn without reporting a thread ID."
    return workerError({ code: "protocol_error", message, retryable: false, stage: "stream", exitCode: 0, systemCode: null, elapsedMs })
  }
  return undefined
}

export const attemptTimedOut = (elapsedMs: number, limitMs: number) =>
  workerError({
    code: "timeout",
    message: `Codex did not finish within ${Math.round(limitMs / 1000)} s; it was stopped.`,
    retryable: true,
    stage: "timeout",
    exitCode: null,
    systemCode: null,
    elapsedMs
  })

// ---------------------------------------------------------------------------------------------
// Structured output

export type JsonSchemaObject = Record<string, unknown>

const strictnessProblem = (node: unknown, where: string): string | undefined => {
  if (Array.isArray(node)) {
    for (const [index, child] of node.entries()) {
      const problem = strictnessProblem(child, `${where}[${index}]`)
      if (problem !== undefined) return problem
    }
    return undefined
  }
  if (!isRecord(node)) return undefined
  if (node.type === "object" && isRecord(node.properties)) {
    const required = new Set(Array.isArray(node.required) ? node.required : [])
    const optional = Object.keys(node.properties).find((key) => !required.has(key))
    if (optional !== undefined) return `property "${optional}" at ${where} is optional; strict output needs every property required`
    if (node.additionalProperties !== false) return `the object at ${where} allows additional properties`
  }
  for (const [key, child] of Object.entries(node)) {
    const problem = strictnessProblem(child, `${where}/${key}`)
    if (problem !== undefined) return problem
  }
  return undefined
}

/** The root inlined when JSONSchema.make answers with a `$ref` into `$defs`. */
const inlineRootReference = (schema: JsonSchemaObject): JsonSchemaObject => {
  const reference = schema.$ref
  const definitions = schema.$defs
  if (typeof reference !== "string" || !isRecord(definitions)) return schema
  const target = definitions[reference.replace("#/$defs/", "")]
  return isRecord(target) ? { ...target, $defs: definitions } : schema
}

/**
 * The JSON Schema sent with `--output-schema`: a plain object schema in OpenAI's strict form
 * (the CLI forwards it with `strict: true` and the API rejects anything else).
 */
export const outputJsonSchema = (schema: unknown): Either.Either<JsonSchemaObject, string> => {
  if (!Schema.isSchema(schema)) return Either.left("The output schema must be an Effect Schema.")
  let document: JsonSchemaObject
  try {
    document = inlineRootReference({ ...(JSONSchema.make(schema as Schema.Schema<unknown, unknown>) as unknown as JsonSchemaObject) })
  } catch (error) {
    return Either.left(`The output schema cannot be expressed as JSON Schema: ${errorMessage(error)}`)
  }
  delete document.$schema
  if (document.type !== "object") return Either.left("The output schema must describe a plain JSON object.")
  const problem = strictnessProblem(document, "#")
  return problem === undefined ? Either.right(document) : Either.left(`The output schema is not strict: ${problem}.`)
}

/** Parses and validates a schema answer; the raw text is kept on failure. */
export const decodeOutput = <A, I>(
  schema: Schema.Schema<A, I>,
  finalResponse: string,
  elapsedMs: number
): Either.Either<A, WorkerError> => {
  const invalid = (message: string) =>
    workerError({ code: "invalid_output", message, retryable: false, stage: "output", exitCode: 0, systemCode: null, elapsedMs, rawOutput: finalResponse })
  let parsed: unknown
  try {
    parsed = JSON.parse(finalResponse)
  } catch {
    return Either.left(invalid("Codex answered with text that is not JSON where the output schema required JSON."))
  }
  return Schema.decodeUnknownEither(schema)(parsed).pipe(
    Either.mapLeft((error) =>
      invalid(`Codex's answer does not match the output schema: ${ParseResult.TreeFormatter.formatErrorSync(error)}`)
    )
  )
}
