import * as path from "node:path"
import { FILE_TOOLS } from "./changes.js"
import { classifyUserLine, isLocalCommand, queuedCommandText, systemSlashCommand } from "./classify.js"
import {
  contentBlocks,
  isBillableAssistant,
  messageOf,
  messageText,
  modelOf,
  type Origin,
  responseKey,
  type SessionEntry,
  toolResultBlocks
} from "./entries.js"
import { isoMillis, isRecord, type JsonObject, recordField, stringField } from "./json.js"
import type { TokenCounts } from "./pricing.js"
import { orderModels, shortenTitle, type ThreadSummary } from "./session.js"
import { lineTokens, makeTally, maxTokens } from "./tokens.js"

/**
 * The listing's fast path: a `ThreadSummary` computed in one streaming pass over a session's lines, keeping
 * only the few facts a summary needs (the main chain's tree, human turns, response output per model, file-tool
 * calls and results) instead of every parsed line. It must give exactly what `threadSummary(analyzeSession(…))`
 * gives; test/history/summary.test.ts compares the two on every fixture and on random truncations.
 */

interface Node {
  readonly uuid: string | undefined
  readonly parent: string | undefined
  readonly timestamp: unknown
  readonly typedPrompt: boolean
  readonly cwd: string | undefined
}

type HumanKind = "prompt" | "slash_command" | "queued_prompt" | "local_command"

interface HumanTurn {
  readonly kind: HumanKind
  readonly uuid: string | undefined
  /** The prompt text, or `/command args` for a slash command (what the title falls back to). */
  readonly text: string
  readonly warmup: boolean
}

interface OriginCell {
  kind: Origin | undefined
}

interface ResponseFacts {
  readonly model: string
  readonly firstOrigin: OriginCell
  main: boolean
  fast: boolean
  tokens: TokenCounts
}

interface ToolResultFacts {
  readonly toolUseId: string
  readonly resultPath: string | undefined
  readonly uuid: string | undefined
}

const MAIN: OriginCell = { kind: "main" }
const INLINE_SIDECHAIN: OriginCell = { kind: "subagent" }
const TIMED_TYPES: ReadonlySet<string> = new Set(["user", "assistant", "system"])

const millisOf = (timestamp: unknown): number | undefined => {
  if (typeof timestamp !== "string") return undefined
  const millis = isoMillis(timestamp)
  return Number.isNaN(millis) ? undefined : millis
}

export interface SummaryBuilder {
  /** One decoded line of the session file itself, in file order. */
  readonly main: (raw: JsonObject, line: number) => void
  /** Starts a sub-agent transcript (after the main file, in the listing's order); returns its line sink. */
  readonly agent: (agentPath: string) => (raw: JsonObject, line: number) => void
  /** The summary, or undefined when the session holds no human request (not a thread). */
  readonly finish: () => ThreadSummary | undefined
  /**
   * The key of the main file's first response: a session resumed into a new file starts with a copy of its
   * predecessor's history, so both share it (ClaudeHistory groups such sessions to count copies once).
   */
  readonly firstResponseKey: () => string | undefined
}

export const makeSummaryBuilder = (
  threadId: string,
  mainPath: string,
  copied: ReadonlySet<string> = new Set()
): SummaryBuilder => {
  // Main chain (conversation tree)
  // Main-chain lines in file order; the uuid maps are built at the end, and only when a rewind is possible.
  const nodes: Array<Node> = []
  /** Parents of typed prompts: a rewind needs one of them to have a second child. */
  const typedParents = new Set<string>()
  let leaf: Node | undefined
  let firstCwd: string | undefined
  let gitBranch: unknown
  let start = Number.POSITIVE_INFINITY
  let end = Number.NEGATIVE_INFINITY
  const turns: Array<HumanTurn> = []
  // Title sources of the main file
  let customTitle: string | undefined
  let aiTitle: string | undefined
  const sidechainUuids = new Set<string>()
  const summaries: Array<{ readonly leafUuid: string | undefined; readonly text: string }> = []
  // Models
  const responses = new Map<string, ResponseFacts>()
  let firstResponseKey: string | undefined
  const mainModels = new Set<string | undefined>()
  // Changed files
  const toolUses = new Map<string, { readonly name: string | undefined; readonly inputPath: string | undefined }>()
  const toolResults: Array<ToolResultFacts> = []

  const everyLine = (entry: SessionEntry, origin: OriginCell) => {
    const raw = entry.raw
    const type = raw.type
    if (type === "assistant") {
      for (const block of contentBlocks(entry)) {
        const id = stringField(block, "id")
        if (block.type === "tool_use" && id !== undefined) {
          const input = recordField(block, "input")
          toolUses.set(id, {
            name: stringField(block, "name"),
            inputPath: stringField(input, "file_path") ?? stringField(input, "notebook_path")
          })
        }
      }
      if (!isBillableAssistant(entry)) return
      const tokens = lineTokens(entry)
      if (tokens === undefined) return
      const fast = stringField(recordField(messageOf(entry), "usage"), "speed") === "fast"
      const key = responseKey(entry)
      if (firstResponseKey === undefined && origin === MAIN) firstResponseKey = key
      const existing = responses.get(key)
      if (existing === undefined) {
        responses.set(key, { model: modelOf(entry) ?? "unknown", firstOrigin: origin, main: origin === MAIN, fast, tokens })
      } else {
        if (origin === MAIN) existing.main = true
        if (fast) existing.fast = true
        existing.tokens = maxTokens(existing.tokens, tokens)
      }
    } else if (type === "user") {
      const rawResult = raw.toolUseResult
      const failedResult = typeof rawResult === "string"
      for (const block of toolResultBlocks(entry)) {
        if (failedResult || block.is_error === true) continue
        toolResults.push({
          toolUseId: stringField(block, "tool_use_id") ?? "",
          resultPath: isRecord(rawResult) ? stringField(rawResult, "filePath") : undefined,
          uuid: stringField(raw, "uuid")
        })
      }
    }
  }

  const mainChainLine = (entry: SessionEntry) => {
    const raw = entry.raw
    const type = raw.type as string
    const uuid = stringField(raw, "uuid")
    const parent = stringField(raw, "parentUuid") ?? stringField(raw, "logicalParentUuid")
    const cwd = stringField(raw, "cwd")
    if (firstCwd === undefined && cwd) firstCwd = cwd
    const conversational = type === "user" || type === "assistant"
    if (conversational && gitBranch === undefined && typeof raw.gitBranch === "string") gitBranch = raw.gitBranch
    if (TIMED_TYPES.has(type)) {
      const time = millisOf(raw.timestamp)
      if (time !== undefined) {
        if (time < start) start = time
        if (time > end) end = time
      }
    }
    let typedPrompt = false
    if (type === "user") {
      const kind = classifyUserLine(entry)
      typedPrompt = kind._tag === "Prompt" || kind._tag === "SlashCommand" || kind._tag === "Interrupt"
      if (kind._tag === "Prompt") turns.push({ kind: "prompt", uuid, text: kind.text, warmup: kind.text.trim() === "Warmup" })
      else if (kind._tag === "SlashCommand") slash(uuid, kind.name, kind.args)
    } else if (type === "system") {
      const command = systemSlashCommand(entry)
      if (command !== undefined) slash(uuid, command.name, command.args)
    } else if (type === "attachment") {
      const queued = queuedCommandText(entry)
      if (queued !== undefined) turns.push({ kind: "queued_prompt", uuid, text: queued, warmup: queued.trim() === "Warmup" })
    }
    const node: Node = { uuid, parent, timestamp: raw.timestamp, typedPrompt, cwd }
    nodes.push(node)
    if (typedPrompt && parent !== undefined && uuid !== undefined) typedParents.add(parent)
    if (conversational) leaf = node
    if (type === "assistant" && isBillableAssistant(entry)) mainModels.add(stringField(messageOf(entry), "model"))
  }

  const slash = (uuid: string | undefined, name: string, args: string) => {
    const local = isLocalCommand(name)
    turns.push({ kind: local ? "local_command" : "slash_command", uuid, text: `/${name} ${args}`.trim(), warmup: false })
  }

  const main = (raw: JsonObject, line: number) => {
    const sidechain = raw.isSidechain === true
    const entry: SessionEntry = { raw, line, file: mainPath, origin: "main" }
    const type = raw.type
    if (type === "custom-title" && typeof raw.customTitle === "string") customTitle = raw.customTitle
    else if (type === "ai-title" && typeof raw.aiTitle === "string") aiTitle = raw.aiTitle
    else if (type === "summary" && typeof raw.summary === "string") {
      summaries.push({ leafUuid: stringField(raw, "leafUuid"), text: raw.summary })
    }
    if (sidechain) {
      const uuid = stringField(raw, "uuid")
      if (uuid !== undefined) sidechainUuids.add(uuid)
    } else {
      mainChainLine(entry)
    }
    everyLine(entry, sidechain ? INLINE_SIDECHAIN : MAIN)
  }

  const agent = (agentPath: string) => {
    const cell: OriginCell = { kind: path.basename(agentPath).startsWith("agent-acompact") ? "compaction" : undefined }
    let sawUser = false
    return (raw: JsonObject, line: number) => {
      const entry: SessionEntry = { raw, line, file: agentPath, origin: "subagent" }
      if (!sawUser && raw.type === "user") {
        sawUser = true
        if (cell.kind === undefined && messageText(entry).trim() === "Warmup") cell.kind = "warmup"
      }
      everyLine(entry, cell)
    }
  }

  /** uuid → first main-chain line with it, as `buildConversation` indexes them. */
  const indexByUuid = () => {
    const byUuid = new Map<string, Node>()
    for (const node of nodes) if (node.uuid !== undefined && !byUuid.has(node.uuid)) byUuid.set(node.uuid, node)
    return byUuid
  }

  /** Whether some typed prompt has a sibling: without one there is no rewind, and no need for the tree. */
  const rewindPossible = () => {
    if (typedParents.size === 0) return false
    const seen = new Set<string>()
    for (const node of nodes) {
      if (node.uuid === undefined || node.parent === undefined || !typedParents.has(node.parent)) continue
      if (seen.has(node.parent)) return true
      seen.add(node.parent)
    }
    return false
  }

  /** Rewinds, exactly as `buildConversation` finds them. */
  const abandonedUuids = () => {
    const abandoned = new Set<string>()
    if (leaf === undefined || !rewindPossible()) return abandoned
    const byUuid = indexByUuid()
    const children = new Map<string, Array<Node>>()
    for (const node of nodes) {
      if (node.parent === undefined || node.uuid === undefined) continue
      const list = children.get(node.parent)
      if (list === undefined) children.set(node.parent, [node])
      else list.push(node)
    }
    const onPath = new Map<string, string | undefined>()
    let current: Node | undefined = leaf
    let child: string | undefined
    while (current !== undefined) {
      const uuid: string | undefined = current.uuid
      if (uuid === undefined || onPath.has(uuid)) break
      onPath.set(uuid, child)
      child = uuid
      current = current.parent === undefined ? undefined : byUuid.get(current.parent)
    }
    for (const [node, pathChild] of onPath) {
      const siblings = children.get(node) ?? []
      if (siblings.length < 2 || pathChild === undefined) continue
      const pathChildTime = millisOf(byUuid.get(pathChild)?.timestamp)
      for (const sibling of siblings) {
        const uuid = sibling.uuid
        if (uuid === undefined || uuid === pathChild || onPath.has(uuid) || !sibling.typedPrompt) continue
        if (millisOf(sibling.timestamp) === pathChildTime) continue
        const stack = [uuid]
        while (stack.length > 0) {
          const next = stack.pop()!
          if (abandoned.has(next)) continue
          abandoned.add(next)
          for (const grandchild of children.get(next) ?? []) {
            if (grandchild.uuid !== undefined) stack.push(grandchild.uuid)
          }
        }
      }
    }
    return abandoned
  }

  const finish = (): ThreadSummary | undefined => {
    const abandoned = abandonedUuids()
    const isAbandoned = (uuid: string | undefined) => uuid !== undefined && abandoned.has(uuid)
    const live = turns.filter((turn) => !isAbandoned(turn.uuid))
    const requested = live.some((turn) => turn.kind !== "local_command")
    if (!requested || live.every((turn) => turn.warmup)) return undefined

    const summaryTitle = () => {
      if (summaries.length === 0) return undefined
      // The few leaf uuids looked up among the nodes, rather than every node's uuid indexed.
      const leafUuids = new Set(summaries.map((summary) => summary.leafUuid ?? ""))
      const onMainChain = new Set<string>()
      for (const node of nodes) if (node.uuid !== undefined && leafUuids.has(node.uuid)) onMainChain.add(node.uuid)
      const known = summaries.filter((summary) =>
        onMainChain.has(summary.leafUuid ?? "") || sidechainUuids.has(summary.leafUuid ?? "")
      )
      const leafUuid = leaf?.uuid
      return (known.find((candidate) => candidate.leafUuid === leafUuid) ?? known[known.length - 1])?.text
    }
    const firstRequest = live.find((turn) => turn.kind !== "local_command")!
    const title = shortenTitle(customTitle ?? aiTitle ?? summaryTitle() ?? firstRequest.text)

    const firstTurnUuid = live[0]!.uuid
    const promptNode = firstTurnUuid === undefined ? undefined : nodes.find((node) => node.uuid === firstTurnUuid)
    const projectDir = promptNode?.cwd ?? firstCwd

    const tally = makeTally(copied)
    for (const [key, response] of responses) {
      const origin = response.main ? "main" : response.firstOrigin.kind ?? "subagent"
      tally.add({ key, model: response.model, origin, fast: response.fast, tokens: response.tokens })
    }
    const report = tally.report()
    const { primary, models } = orderModels(report.work_output_by_model, mainModels)

    const changed = new Set<string>()
    for (const result of toolResults) {
      const toolUse = toolUses.get(result.toolUseId)
      if (toolUse?.name === undefined || !FILE_TOOLS.has(toolUse.name)) continue
      const absolutePath = result.resultPath ?? toolUse.inputPath
      if (absolutePath === undefined || isAbandoned(result.uuid)) continue
      changed.add(absolutePath)
    }

    const bounded = Number.isFinite(start)
    return {
      imported_thread_id: threadId,
      title,
      project_dir: projectDir ?? null,
      git_branch: typeof gitBranch === "string" && gitBranch !== "" ? gitBranch : null,
      claude_model: primary,
      claude_models: models,
      started_at: bounded ? new Date(start).toISOString() : null,
      ended_at: bounded ? new Date(end).toISOString() : null,
      human_turns: live.filter((turn) => turn.kind !== "local_command").length,
      changed_files: changed.size,
      tokens: report.tokens,
      cost_usd: report.cost_usd,
      source_path: mainPath,
      source: "imported"
    }
  }

  return { main, agent, finish, firstResponseKey: () => firstResponseKey }
}
