import { WorkerError } from "../errors.js"
import type { WorkerErrorCode, WorkerStage } from "../worker.js"
import { type AttemptRecord, isRecord } from "./events.js"


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

export const errorMessage = (thrown: unknown) => (thrown instanceof Error ? thrown.message : String(thrown))
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
