import * as path from "node:path"
import { capabilityEvidence, type CapabilityEvidence } from "./capabilities.js"
import { changedFiles, type ChangedFile, fileOperations } from "./changes.js"
import { type ThreadChecks, threadChecks } from "./checks.js"
import { type SplitPoint, splitPoints } from "./chunks.js"
import { classifyUserLine, isLocalCommand, queuedCommandText } from "./classify.js"
import { buildConversation, type Conversation, isAbandoned } from "./conversation.js"
import { timeBounds, elapsedTime, type Elapsed } from "./elapsed.js"
import {
  isBillableAssistant,
  isMainChain,
  messageText,
  placeEntries,
  responseKey,
  type Origin,
  type SessionEntry,
  typeOf,
  uuidOf
} from "./entries.js"
import { findLast, isTrue, stringField } from "./json.js"
import type { DecodedFile, LineProblem } from "./lines.js"
import { hasRequest, humanTurnCount, HUMAN_KINDS, reconstructRequest, type ReconstructedRequest, type RequestTurn, type ReconstructionTurn } from "./request.js"
import { type TaskSourceMessage, taskSourceMessages } from "./taskSource.js"
import { type TokenReport, tokenReport } from "./tokens.js"
import type { TokenCounts } from "./pricing.js"

export interface AgentFile {
  readonly path: string
  readonly decoded: DecodedFile
}

export interface SessionInput {
  readonly threadId: string
  readonly mainPath: string
  readonly main: DecodedFile
  readonly agents: ReadonlyArray<AgentFile>
  /** Response ids an earlier session holds (this one resumed it and repeats its history): not counted here. */
  readonly copied?: ReadonlySet<string>
}

export interface ThreadSummary {
  readonly imported_thread_id: string
  readonly title: string
  readonly project_dir: string | null
  readonly git_branch: string | null
  readonly claude_model: string | null
  readonly claude_models: ReadonlyArray<string>
  readonly started_at: string | null
  readonly ended_at: string | null
  readonly human_turns: number
  readonly changed_files: number
  /** Claude's tokens and API-equivalent cost (null when a model has no price), resumed copies left out. */
  readonly tokens: TokenCounts
  readonly cost_usd: number | null
  readonly source_path: string
  readonly source: "imported" | "sample"
}

export interface Diagnostic {
  readonly file: string
  readonly line: number
  readonly message: string
}

export interface FinalResponse {
  /** Claude's last reply to a human turn; empty when the last human turn got no reply. */
  readonly text: string
  readonly interrupted: boolean
  readonly error: boolean
  readonly answered: boolean
  /**
   * Claude's last reply with text to a human turn, even one before the last prompt: what the report shows,
   * marked as such, when `text` is empty (an interrupted or unanswered last turn).
   */
  readonly last_substantive_reply: string
}

export type RequestMethod = "single_user_prompt" | "concatenated_fallback" | "pending" | "llm_synthesis" | "packaged_sample"

export interface ThreadRecord extends ThreadSummary {
  readonly request: string
  readonly request_generation: { readonly method: RequestMethod }
  readonly request_turns: ReadonlyArray<RequestTurn>
  readonly abandoned_request_turns: ReadonlyArray<RequestTurn>
  readonly prompt_reconstruction_turns: ReadonlyArray<ReconstructionTurn>
  readonly prompt_reconstruction_truncated: boolean
  /** What a task prompt may be reconstructed from: the user's own messages and the questions they answered. */
  readonly task_source: ReadonlyArray<TaskSourceMessage>
  readonly message_uuid: string | null
  readonly project_dirs: ReadonlyArray<string>
  readonly git_branches: ReadonlyArray<string>
  readonly historical_changed_files: ReadonlyArray<ChangedFile>
  /** The checks (tests, builds, type checks, linters) and set-up commands Claude ran. */
  readonly checks: ThreadChecks
  /** Where the thread can be split into chunks (its human prompts); empty for fewer than two. */
  readonly split_points: ReadonlyArray<SplitPoint>
  readonly final_response: string
  readonly final_response_status: FinalResponse
  readonly ended_interrupted: boolean
  readonly ended_with_error: boolean
  readonly tokens: TokenCounts
  readonly tokens_by_source: TokenReport["tokens_by_source"]
  readonly tokens_by_model: TokenReport["tokens_by_model"]
  readonly cost_usd: number | null
  readonly cost_by_source: TokenReport["cost_by_source"]
  readonly cost_by_model: TokenReport["cost_by_model"]
  readonly long_context_responses: number
  readonly copied_responses: number
  readonly unpriced_models: ReadonlyArray<string>
  readonly elapsed: Elapsed
  readonly subagent_files: ReadonlyArray<{ readonly path: string; readonly kind: Origin }>
  readonly versions: ReadonlyArray<string>
  readonly diagnostics: ReadonlyArray<Diagnostic>
}

/** Everything derived from one session's files, computed once and shared by summary and record. */
export interface SessionAnalysis {
  readonly input: SessionInput
  readonly entries: ReadonlyArray<SessionEntry>
  readonly conversation: Conversation
  readonly request: ReconstructedRequest
  readonly agentKinds: ReadonlyArray<{ readonly path: string; readonly kind: Origin }>
}

const firstUserText = (decoded: DecodedFile) => {
  const first = decoded.entries.find((entry) => entry.raw.type === "user")
  return first === undefined ? undefined : messageText({ raw: first.raw, line: first.line, file: "", origin: "subagent" })
}

/** Compaction runs are `agent-acompact-*`; automatic "Warmup" probes are overhead, not work. */
export const agentKind = (agent: AgentFile): Origin => {
  if (path.basename(agent.path).startsWith("agent-acompact")) return "compaction"
  return firstUserText(agent.decoded)?.trim() === "Warmup" ? "warmup" : "subagent"
}

export const analyzeSession = (input: SessionInput): SessionAnalysis => {
  const agentKinds = input.agents.map((agent) => ({ path: agent.path, kind: agentKind(agent) }))
  const entries = [
    ...placeEntries(input.main.entries, input.mainPath, "main"),
    ...input.agents.flatMap((agent, index) => placeEntries(agent.decoded.entries, agent.path, agentKinds[index]!.kind))
  ]
  const conversation = buildConversation(entries)
  return { input, entries, conversation, request: reconstructRequest(conversation), agentKinds }
}

const isWarmupOnly = (turns: ReadonlyArray<RequestTurn>) => {
  const prompts = turns.filter((turn) => HUMAN_KINDS.has(turn.kind))
  return prompts.length > 0 && prompts.every((turn) => turn.text.trim() === "Warmup")
}

/** A session file is a thread when it holds a human request (docs/history.md). */
export const isThread = (analysis: SessionAnalysis) =>
  hasRequest(analysis.request.turns) && !isWarmupOnly(analysis.request.turns)

const firstHumanTurnEntry = (analysis: SessionAnalysis) => {
  const uuid = analysis.request.turns.find((turn) => HUMAN_KINDS.has(turn.kind))?.uuid
  return analysis.conversation.mainChain.find((entry) => uuid !== undefined && uuidOf(entry) === uuid)
}

const TITLE_LENGTH = 120

/** A title's first line, at most 120 characters. */
export const shortenTitle = (text: string) => {
  const line = text.trim().split("\n")[0]!.trim()
  return line.length > TITLE_LENGTH ? `${line.slice(0, TITLE_LENGTH - 1)}…` : line
}

/** custom title › AI title › a summary of this file's own conversation › the first request. */
const titleOf = (analysis: SessionAnalysis) => {
  const lines = analysis.input.main.entries.map((entry) => entry.raw)
  const custom = findLast(lines, (raw) => raw.type === "custom-title" && typeof raw.customTitle === "string")
  if (custom !== undefined) return shortenTitle(custom.customTitle as string)
  const ai = findLast(lines, (raw) => raw.type === "ai-title" && typeof raw.aiTitle === "string")
  if (ai !== undefined) return shortenTitle(ai.aiTitle as string)
  const uuids = new Set(lines.flatMap((raw) => (typeof raw.uuid === "string" ? [raw.uuid] : [])))
  const summaries = lines.filter((raw) =>
    raw.type === "summary" && typeof raw.summary === "string" && uuids.has(stringField(raw, "leafUuid") ?? "")
  )
  const leaf = analysis.conversation.leaf === undefined ? undefined : uuidOf(analysis.conversation.leaf)
  const summary = summaries.find((raw) => raw.leafUuid === leaf) ?? summaries[summaries.length - 1]
  if (summary !== undefined) return shortenTitle(summary.summary as string)
  const first = analysis.request.turns.find((turn) => turn.kind !== "local_command" && HUMAN_KINDS.has(turn.kind))
  if (first === undefined) return analysis.input.threadId
  return shortenTitle(first.kind === "slash_command" ? `/${first.command} ${first.args}`.trim() : first.text)
}

const distinct = (values: ReadonlyArray<string | undefined>) =>
  [...new Set(values.filter((value): value is string => value !== undefined))]

const projectDirOf = (analysis: SessionAnalysis) => {
  const prompt = firstHumanTurnEntry(analysis)
  return stringField(prompt?.raw, "cwd") ??
    stringField(analysis.conversation.mainChain.find((entry) => stringField(entry.raw, "cwd"))?.raw, "cwd")
}

const conversationalMain = (analysis: SessionAnalysis) =>
  analysis.conversation.mainChain.filter((entry) => typeOf(entry) === "user" || typeOf(entry) === "assistant")

/** `""` means Claude Code saw no git repository. */
const gitBranchOf = (analysis: SessionAnalysis) => {
  const branch = conversationalMain(analysis).map((entry) => entry.raw.gitBranch).find((value) => typeof value === "string")
  return typeof branch === "string" && branch !== "" ? branch : null
}

/** Models ordered main chain first, each group by output tokens; the primary is the main chain's largest. */
const modelsOf = (tokens: TokenReport, entries: ReadonlyArray<SessionEntry>) => {
  const mainModels = new Set(entries.filter((entry) => isMainChain(entry) && isBillableAssistant(entry)).map((entry) =>
    stringField(entry.raw.message, "model")
  ))
  return orderModels(tokens.work_output_by_model, mainModels)
}

/** Shared with the listing's fast path. */
export const orderModels = (outputByModel: Record<string, number>, mainModels: ReadonlySet<string | undefined>) => {
  const byOutput = Object.entries(outputByModel).sort((left, right) => right[1] - left[1])
  const models = [
    ...byOutput.filter(([model]) => mainModels.has(model)),
    ...byOutput.filter(([model]) => !mainModels.has(model))
  ].map(([model]) => model)
  return { primary: models.find((model) => mainModels.has(model)) ?? models[0] ?? null, models }
}

const isoOf = (millis: number | undefined) => (millis === undefined ? null : new Date(millis).toISOString())

const liveChangedPathCount = (analysis: SessionAnalysis) =>
  new Set(
    fileOperations(analysis.entries, analysis.conversation)
      .filter((op) => !op.failed && !op.abandoned)
      .map((op) => op.absolutePath)
  ).size

export const threadSummary = (
  analysis: SessionAnalysis,
  tokens: TokenReport = tokenReport(analysis.entries, analysis.input.copied)
): ThreadSummary => {
  const bounds = timeBounds(analysis.entries)
  const { primary, models } = modelsOf(tokens, analysis.entries)
  return {
    imported_thread_id: analysis.input.threadId,
    title: titleOf(analysis),
    project_dir: projectDirOf(analysis) ?? null,
    git_branch: gitBranchOf(analysis),
    claude_model: primary,
    claude_models: models,
    started_at: isoOf(bounds?.start),
    ended_at: isoOf(bounds?.end),
    human_turns: humanTurnCount(analysis.request.turns),
    changed_files: liveChangedPathCount(analysis),
    tokens: tokens.tokens,
    cost_usd: tokens.cost_usd,
    source_path: analysis.input.mainPath,
    source: "imported"
  }
}

/**
 * Claude's answer: the text of the last live response with text that replies to a human turn (not to a
 * `<task-notification>` or another automated user line), unless a human prompt came after it.
 */
export const finalResponse = (analysis: SessionAnalysis): FinalResponse => {
  const live = analysis.conversation.mainChain.filter((entry) => !isAbandoned(analysis.conversation, entry))
  const responses = new Map<string, { index: number; texts: Array<string> }>()
  let repliesToHuman = true
  let lastHuman = -1
  let lastInterrupt = -1
  let lastError = -1
  let lastGoodResponse = -1
  live.forEach((entry, index) => {
    const type = typeOf(entry)
    if (type === "user") {
      const kind = classifyUserLine(entry)
      if (kind._tag === "Prompt" || (kind._tag === "SlashCommand" && !isLocalCommand(kind.name))) {
        lastHuman = index
        repliesToHuman = true
      }
      if (kind._tag === "Automated") repliesToHuman = false
      if (kind._tag === "Interrupt") lastInterrupt = index
    } else if (type === "attachment" && queuedCommandText(entry) !== undefined) {
      lastHuman = index
      repliesToHuman = true
    } else if (type === "assistant") {
      if (!isBillableAssistant(entry)) {
        if (isTrue(entry.raw, "isApiErrorMessage")) lastError = index
        return
      }
      lastGoodResponse = index
      const text = messageText(entry).trim()
      if (text === "" || !repliesToHuman) return
      const key = responseKey(entry)
      const response = responses.get(key) ?? { index, texts: [] }
      response.texts.push(text)
      response.index = index
      responses.set(key, response)
    } else if (type === "system" && (entry.raw.subtype === "api_error" || entry.raw.subtype === "error")) {
      lastError = index
    }
  })
  const last = [...responses.values()].sort((left, right) => left.index - right.index).pop()
  const answered = last !== undefined && last.index > lastHuman
  const lastText = last === undefined ? "" : last.texts.join("\n\n")
  return {
    text: answered ? lastText : "",
    answered,
    interrupted: lastInterrupt > lastHuman && lastInterrupt > lastGoodResponse,
    error: lastError > lastGoodResponse && lastError > lastHuman,
    last_substantive_reply: lastText
  }
}

const MAX_DIAGNOSTICS = 50

const diagnosticsOf = (input: SessionInput): Array<Diagnostic> => {
  const from = (file: string, problems: ReadonlyArray<LineProblem>) =>
    problems.map((problem) => ({ file, line: problem.line, message: problem.message }))
  return [
    ...from(input.mainPath, input.main.problems),
    ...input.agents.flatMap((agent) => from(agent.path, agent.decoded.problems))
  ].slice(0, MAX_DIAGNOSTICS)
}

export const capabilityEvidenceOf = (analysis: SessionAnalysis): CapabilityEvidence =>
  capabilityEvidence(analysis.entries, analysis.agentKinds.filter((agent) => agent.kind === "subagent").length)

export const threadRecord = (analysis: SessionAnalysis): ThreadRecord => {
  const tokens = tokenReport(analysis.entries, analysis.input.copied)
  const summary = threadSummary(analysis, tokens)
  const request = analysis.request
  const final = finalResponse(analysis)
  const humanUuids = new Set(
    [...request.turns, ...request.abandonedTurns].flatMap((turn) =>
      HUMAN_KINDS.has(turn.kind) && turn.uuid !== null ? [turn.uuid] : []
    )
  )
  const main = analysis.conversation.mainChain
  return {
    ...summary,
    request: request.singlePrompt ?? request.request,
    request_generation: { method: request.singlePrompt === undefined ? "concatenated_fallback" : "single_user_prompt" },
    request_turns: request.turns,
    abandoned_request_turns: request.abandonedTurns,
    prompt_reconstruction_turns: request.reconstructionTurns,
    prompt_reconstruction_truncated: request.truncated,
    task_source: taskSourceMessages(analysis.conversation),
    message_uuid: analysis.conversation.leaf === undefined ? null : uuidOf(analysis.conversation.leaf) ?? null,
    project_dirs: distinct(main.map((entry) => stringField(entry.raw, "cwd"))),
    git_branches: distinct(conversationalMain(analysis).map((entry) => stringField(entry.raw, "gitBranch"))).filter((b) => b !== ""),
    historical_changed_files: changedFiles(analysis.entries, analysis.conversation, summary.project_dir ?? undefined),
    checks: threadChecks(analysis.entries, analysis.conversation, summary.project_dir),
    split_points: splitPoints(request.turns, fileOperations(analysis.entries, analysis.conversation), summary.project_dir ?? null),
    final_response: final.text,
    final_response_status: final,
    ended_interrupted: final.interrupted,
    ended_with_error: final.error,
    tokens: tokens.tokens,
    tokens_by_source: tokens.tokens_by_source,
    tokens_by_model: tokens.tokens_by_model,
    cost_usd: tokens.cost_usd,
    cost_by_source: tokens.cost_by_source,
    cost_by_model: tokens.cost_by_model,
    long_context_responses: tokens.long_context_responses,
    copied_responses: tokens.copied_responses,
    unpriced_models: tokens.unpriced_models,
    elapsed: elapsedTime(analysis.entries, humanUuids),
    subagent_files: analysis.agentKinds,
    versions: distinct(main.map((entry) => stringField(entry.raw, "version"))),
    diagnostics: diagnosticsOf(analysis.input)
  }
}
