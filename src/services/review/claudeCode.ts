import type { SDKResultMessage } from "@anthropic-ai/claude-agent-sdk"
import { Data, Effect } from "effect"
import * as path from "node:path"
import { invalidArgument } from "../../domain/errors.js"
import { RUN_TAG_VARIABLE } from "../../domain/product.js"
import { BALLOT_JSON_SCHEMA } from "../../domain/review/ballot.js"
import type { TokenBuckets } from "../../domain/report/tokens.js"
import { type EnvironmentVariables, ProcessEnvironment } from "../platform/environment.js"
import { isExecutableFile } from "../platform/executables.js"

/** Names the `claude` executable to use instead of the one on PATH (tests, or a Claude Code installed elsewhere). */
export const CLAUDE_PATH_VARIABLE = "CODEX_REPLAY_CLAUDE_PATH"

export type ClaudeAvailability =
  | { readonly available: true; readonly executable: string }
  | { readonly available: false; readonly reason: string }

/** Where Claude Code is: `CODEX_REPLAY_CLAUDE_PATH`, else the first executable `claude` on PATH. */
export const findClaude = (environment: EnvironmentVariables): ClaudeAvailability => {
  const named = environment[CLAUDE_PATH_VARIABLE]?.trim()
  if (named !== undefined && named !== "") {
    return path.isAbsolute(named) && isExecutableFile(named)
      ? { available: true, executable: named }
      : { available: false, reason: `${CLAUDE_PATH_VARIABLE} does not name an executable file (${named.slice(0, 200)})` }
  }
  for (const directory of (environment.PATH ?? "").split(path.delimiter)) {
    if (directory === "" || !path.isAbsolute(directory)) continue
    const candidate = path.join(directory, "claude")
    if (isExecutableFile(candidate)) return { available: true, executable: candidate }
  }
  return { available: false, reason: "Claude Code (the claude command) was not found on PATH" }
}

/**
 * What Claude Code needs from the controller's environment, and nothing else: where things are (PATH,
 * HOME for its sign-in), the locale, and the Anthropic sign-in, endpoint and proxy. Never the controller's
 * own variables, OpenAI's keys or anything else the controller was started with.
 */
const PASSED_THROUGH = [
  "PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR",
  "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "CLAUDE_CODE_OAUTH_TOKEN", "CLAUDE_CONFIG_DIR",
  "HTTPS_PROXY", "https_proxy", "NO_PROXY", "no_proxy", "NODE_EXTRA_CA_CERTS"
]

/** Claude Code's own switches: no telemetry, error reports, update checks or other traffic beyond the model's API. */
const QUIET = {
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  DISABLE_TELEMETRY: "1",
  DISABLE_ERROR_REPORTING: "1",
  DISABLE_AUTOUPDATER: "1",
  CLAUDE_CODE_DISABLE_FEATURE_FLAGS: "1"
}

/**
 * The whole environment the judge's Claude Code process receives (the SDK's `env` replaces, never
 * merges); with the run's tag, so that the run's end (or a later controller) ends whatever it left.
 */
export const judgeEnvironment = (environment: EnvironmentVariables, runTag?: string): Record<string, string> => {
  const passed: Record<string, string> = {}
  for (const name of PASSED_THROUGH) {
    const value = environment[name]
    if (value !== undefined && value !== "") passed[name] = value
  }
  return { ...passed, ...QUIET, ...(runTag === undefined ? {} : { [RUN_TAG_VARIABLE]: runTag }) }
}

/** What one Claude Code session used and cost, as its result message reported it. */
export interface ClaudeUsage {
  readonly model: string | null
  readonly tokens: TokenBuckets
  readonly cost_usd: number | null
}

/** A session that gave no answer; `usage` when Claude Code still reported what the attempt used. */
export class ClaudeCodeFailed extends Data.TaggedError("ClaudeCodeFailed")<{ readonly message: string; readonly usage?: ClaudeUsage }> {}

export interface ClaudeAnswer extends ClaudeUsage {
  /** The answer as Claude Code gave it: its structured output, else its result text; `null` when it gave neither. */
  readonly output: unknown
  /** Why Claude Code gave no structured output, when it said so (`error_max_structured_output_retries`). */
  readonly structuredOutputError: string | null
}

const count = (value: unknown) => (typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0)

/** Claude's usage in report buckets: Anthropic counts input without the cache reads and writes. */
const tokensOf = (result: SDKResultMessage): TokenBuckets => ({
  ordinary_input: count(result.usage.input_tokens),
  cache_read: count(result.usage.cache_read_input_tokens),
  cache_write: count(result.usage.cache_creation_input_tokens),
  output: count(result.usage.output_tokens)
})

const outputOf = (result: SDKResultMessage): unknown => {
  if (result.subtype !== "success") return null
  if (result.structured_output !== undefined) return result.structured_output
  try {
    return JSON.parse(result.result) as unknown
  } catch {
    return result.result
  }
}

export interface ClaudeQuestion {
  readonly executable: string
  readonly prompt: string
  /** The private, empty-but-for-the-candidates directory the session runs in. */
  readonly workspace: string
  readonly model: string | null
  readonly environment: Record<string, string>
}

const STDERR_KEPT = 2000

/**
 * One Claude Code session through the Agent SDK, confined (docs/security.md): no tools at all (it can
 * read, write or run nothing: the candidates are in the prompt), no settings, hooks, CLAUDE.md, MCP
 * servers or plugins of the user's loaded, nothing persisted, permissions that deny anything not
 * allowed, the ballot's JSON schema as its output format. Interrupting the effect aborts the session.
 */
export const askClaude = (question: ClaudeQuestion): Effect.Effect<ClaudeAnswer, ClaudeCodeFailed> =>
  Effect.tryPromise({
    try: async (signal) => {
      const abortController = new AbortController()
      signal.addEventListener("abort", () => abortController.abort())
      let stderr = ""
      // Loaded when a judge first asks: the SDK is 1.4 MB that every start of the controller and the command line
      // would otherwise compile (docs/decisions/0010-claude-sdk-on-first-use.md).
      const { query } = await import("@anthropic-ai/claude-agent-sdk")
      const session = query({
        prompt: question.prompt,
        options: {
          pathToClaudeCodeExecutable: question.executable,
          cwd: question.workspace,
          env: question.environment,
          tools: [],
          allowedTools: [],
          settingSources: [],
          strictMcpConfig: true,
          persistSession: false,
          permissionMode: "dontAsk",
          maxTurns: 4,
          outputFormat: { type: "json_schema", schema: BALLOT_JSON_SCHEMA },
          abortController,
          stderr: (data) => {
            stderr = `${stderr}${data}`.slice(-STDERR_KEPT)
          },
          ...(question.model === null ? {} : { model: question.model })
        }
      })
      let result: SDKResultMessage | undefined
      let model: string | null = question.model
      try {
        for await (const message of session) {
          if (message.type === "system" && message.subtype === "init") model = message.model
          if (message.type === "result") result = message
        }
      } catch (error) {
        const detail = stderr.trim() === "" ? "" : ` (${stderr.trim().split("\n").slice(-3).join(" ")})`
        throw new Error(`${error instanceof Error ? error.message : String(error)}${detail}`)
      }
      if (result === undefined) throw new Error("Claude Code ended without a result")
      const usage: ClaudeUsage = { model, tokens: tokensOf(result), cost_usd: typeof result.total_cost_usd === "number" ? result.total_cost_usd : null }
      if (result.subtype !== "success" && result.subtype !== "error_max_structured_output_retries") {
        throw new ClaudeCodeFailed({ message: `Claude Code failed (${result.subtype}): ${result.errors.join("; ").slice(0, 500)}`, usage })
      }
      return {
        ...usage,
        output: outputOf(result),
        structuredOutputError: result.subtype === "success" ? null : (result.errors.join("; ") || "no structured output")
      } satisfies ClaudeAnswer
    },
    catch: (error) =>
      error instanceof ClaudeCodeFailed
        ? error
        : new ClaudeCodeFailed({ message: (error instanceof Error ? error.message : String(error)).slice(0, 1000) })
  })

/** For `get_state` and the page's Configure: whether a second judge can be asked for here, and why not. */
export const secondJudgeAvailability = (environment: EnvironmentVariables): { readonly available: boolean; readonly reason: string | null } => {
  const found = findClaude(environment)
  return found.available ? { available: true, reason: null } : { available: false, reason: `${found.reason}.` }
}

/** A configuration that asks for a second judge is refused, in one sentence, when Claude Code cannot be found. */
export const requireSecondJudge = (secondJudge: string | null | undefined) =>
  Effect.flatMap(ProcessEnvironment, (environment) => {
    if (secondJudge === null || secondJudge === undefined) return Effect.void
    const found = findClaude(environment)
    return found.available
      ? Effect.void
      : Effect.fail(invalidArgument(`The second judge ${secondJudge} cannot run: ${found.reason}; install Claude Code or leave out the second judge.`))
  })
