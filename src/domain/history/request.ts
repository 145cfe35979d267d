import { classifyUserLine, isLocalCommand, queuedCommandText, systemSlashCommand } from "./classify.js"
import { type Conversation, isAbandoned } from "./conversation.js"
import {
  messageText,
  responseKey,
  type SessionEntry,
  toolResultBlocks,
  toolResultText,
  typeOf,
  uuidOf
} from "./entries.js"
import { recordField, stringField } from "./json.js"

/** The Codex model that turns several request turns into one task prompt (docs/security.md). */
export const REQUEST_SYNTHESIS_MODEL = "gpt-5.6-terra"
/** Above this the turns are too long to hand to the synthesis model. */
export const MAX_RECONSTRUCTION_BYTES = 256 * 1024

export type RequestTurnKind =
  | "prompt"
  | "slash_command"
  | "queued_prompt"
  | "clarification"
  | "rejection"
  | "local_command"
  | "interrupt"
  | "compaction_summary"
  | "shell_input"

export interface RequestTurn {
  readonly kind: RequestTurnKind
  readonly text: string
  readonly uuid: string | null
  readonly timestamp: string | null
  readonly abandoned: boolean
  readonly command?: string
  readonly args?: string
  readonly expansion?: string
  /** For a terse reply: the previous assistant message it answers. */
  readonly assistant_context?: string
  /** For a numbered reply: the option it picked from that message. */
  readonly resolved_option?: string
}

export interface ReconstructionTurn {
  readonly role: "user" | "assistant"
  readonly text: string
}

export interface ReconstructedRequest {
  readonly turns: ReadonlyArray<RequestTurn>
  readonly abandonedTurns: ReadonlyArray<RequestTurn>
  readonly request: string
  readonly reconstructionTurns: ReadonlyArray<ReconstructionTurn>
  readonly truncated: boolean
  /** The single prompt when the whole request is one user turn. */
  readonly singlePrompt: string | undefined
}

const TERSE_REPLY =
  /^(\d{1,2}[.)]?|[a-e][.)]?|option \d+|yes|y|no|n|ok|okay|sure|go( ahead)?|do it|proceed|continue|both|all|none)[.!]?$/i

export const isTerseReply = (text: string) => TERSE_REPLY.test(text.trim())

/** Finds enumerated item `N` (`3.`, `3)`, `**3.**`, `Option 3:`) in an assistant message. */
export const resolveOption = (reply: string, assistantText: string): string | undefined => {
  const number = /\d{1,2}/.exec(reply)?.[0]
  if (number === undefined) return undefined
  const item = new RegExp(`^\\s*(?:[-*]\\s*)?(?:\\*\\*)?(?:Option\\s+)?${number}[.):]\\s*(?:\\*\\*)?\\s*(.+)$`, "im")
  return item.exec(assistantText)?.[1]?.trim()
}

/** Human input that starts a turn, built-in commands (`/model`, `/compact`…) included. */
export const HUMAN_KINDS: ReadonlySet<RequestTurnKind> = new Set(["prompt", "slash_command", "queued_prompt", "local_command"])
/** Human prompts: what `human_turns` counts (built-in commands manage the session, they ask for nothing). */
export const PROMPT_KINDS: ReadonlySet<RequestTurnKind> = new Set(["prompt", "slash_command", "queued_prompt"])
/** Turns whose text belongs in the task request. */
export const REQUEST_KINDS: ReadonlySet<RequestTurnKind> = new Set([
  "prompt",
  "slash_command",
  "queued_prompt",
  "clarification",
  "rejection"
])

const REJECTION_REASON = /the user said:\s*([\s\S]+)$/i

const clarifications = (entry: SessionEntry): Array<string> => {
  const answers = recordField(recordField(entry.raw, "toolUseResult"), "answers")
  if (answers !== undefined) {
    return Object.entries(answers).map(([question, answer]) =>
      `Q: ${question}  A: ${typeof answer === "string" ? answer : JSON.stringify(answer)}`
    )
  }
  return toolResultBlocks(entry)
    .map(toolResultText)
    .filter((text) => text.startsWith("User has answered your questions:"))
}

const rejectionReasons = (entry: SessionEntry): Array<string> =>
  toolResultBlocks(entry).flatMap((block) => {
    if (block.is_error !== true) return []
    const reason = REJECTION_REASON.exec(toolResultText(block))?.[1]?.trim()
    return reason ? [reason] : []
  })

const slashText = (command: string, args: string, expansion: string | undefined) => {
  const invocation = args === "" ? `/${command}` : `/${command} ${args}`
  return expansion === undefined || expansion.trim() === "" ? invocation : `${invocation}\n\n${expansion.trim()}`
}

const renderForRequest = (turn: RequestTurn) => {
  if (turn.resolved_option !== undefined) return `${turn.text} (= option: ${turn.resolved_option})`
  if (turn.kind === "clarification") return `[clarification] ${turn.text}`
  if (turn.kind === "rejection") return `[rejected a tool use] ${turn.text}`
  return turn.text
}

class TurnCollector {
  readonly turns: Array<RequestTurn> = []
  private lastAssistant: { key: string; text: string } | undefined
  private pendingSlash: { index: number; uuid: string | undefined } | undefined

  constructor(private readonly conversation: Conversation) {}

  add(entry: SessionEntry, kind: RequestTurnKind, text: string, extra: Partial<RequestTurn> = {}) {
    this.turns.push({
      kind,
      text,
      uuid: uuidOf(entry) ?? null,
      timestamp: stringField(entry.raw, "timestamp") ?? null,
      abandoned: isAbandoned(this.conversation, entry),
      ...extra
    })
  }

  assistant(entry: SessionEntry) {
    if (isAbandoned(this.conversation, entry)) return
    const text = messageText(entry).trim()
    if (text === "") return
    const key = responseKey(entry)
    this.lastAssistant = this.lastAssistant?.key === key
      ? { key, text: `${this.lastAssistant.text}\n\n${text}` }
      : { key, text }
  }

  prompt(entry: SessionEntry, text: string) {
    const context = this.lastAssistant?.text
    const earlierPrompt = this.turns.some((turn) => turn.kind === "prompt" || turn.kind === "slash_command")
    if (earlierPrompt && context !== undefined && isTerseReply(text)) {
      const option = resolveOption(text, context)
      this.add(entry, "prompt", text, { assistant_context: context, ...(option ? { resolved_option: option } : {}) })
    } else {
      this.add(entry, "prompt", text)
    }
  }

  slash(entry: SessionEntry, name: string, args: string) {
    if (isLocalCommand(name)) {
      this.add(entry, "local_command", args === "" ? `/${name}` : `/${name} ${args}`, { command: name, args })
      return
    }
    this.pendingSlash = { index: this.turns.length, uuid: uuidOf(entry) }
    this.add(entry, "slash_command", slashText(name, args, undefined), { command: name, args })
  }

  /** A meta line right after a slash command holds the command's expanded instructions. */
  meta(entry: SessionEntry, text: string) {
    const pending = this.pendingSlash
    if (pending === undefined || stringField(entry.raw, "parentUuid") !== pending.uuid) return
    const turn = this.turns[pending.index]!
    this.turns[pending.index] = { ...turn, expansion: text, text: slashText(turn.command!, turn.args!, text) }
    this.pendingSlash = undefined
  }
}

const isCompactCommand = (turn: RequestTurn) => turn.kind === "local_command" && turn.command?.toLowerCase() === "compact"

/**
 * Claude Code writes a manual compaction's summary before the `/compact` line that caused it; the turns are
 * put back in the order they happened (the summary right after its command).
 */
export const inTimeOrder = (turns: ReadonlyArray<RequestTurn>): Array<RequestTurn> => {
  const ordered = [...turns]
  for (let index = 0; index < ordered.length; index++) {
    if (ordered[index]!.kind !== "compaction_summary") continue
    let command = index + 1
    while (command < ordered.length && !isCompactCommand(ordered[command]!) && !PROMPT_KINDS.has(ordered[command]!.kind)) command++
    if (command >= ordered.length || !isCompactCommand(ordered[command]!)) continue
    const [summary] = ordered.splice(index, 1)
    ordered.splice(command, 0, summary!)
    index = command
  }
  return ordered
}

const collectTurns = (conversation: Conversation): Array<RequestTurn> => {
  const collector = new TurnCollector(conversation)
  for (const entry of conversation.mainChain) {
    const type = typeOf(entry)
    if (type === "assistant") collector.assistant(entry)
    else if (type === "system") {
      const command = systemSlashCommand(entry)
      if (command !== undefined) collector.slash(entry, command.name, command.args)
    } else if (type === "attachment") {
      const queued = queuedCommandText(entry)
      if (queued !== undefined) collector.add(entry, "queued_prompt", queued)
    } else if (type === "user") {
      const kind = classifyUserLine(entry)
      switch (kind._tag) {
        case "Prompt":
          collector.prompt(entry, kind.text)
          break
        case "SlashCommand":
          collector.slash(entry, kind.name, kind.args)
          break
        case "Meta":
          collector.meta(entry, kind.text)
          break
        case "Interrupt":
          collector.add(entry, "interrupt", kind.text)
          break
        case "CompactionSummary":
          collector.add(entry, "compaction_summary", kind.text)
          break
        case "ShellInput":
          collector.add(entry, "shell_input", kind.text)
          break
        case "ToolResult":
          for (const text of clarifications(entry)) collector.add(entry, "clarification", text)
          for (const text of rejectionReasons(entry)) collector.add(entry, "rejection", text)
          break
        default:
          break
      }
    }
  }
  return inTimeOrder(collector.turns)
}

const reconstructionTurns = (turns: ReadonlyArray<RequestTurn>): Array<ReconstructionTurn> =>
  turns.flatMap((turn): Array<ReconstructionTurn> => {
    const user: ReconstructionTurn = { role: "user", text: renderForRequest(turn) }
    return turn.assistant_context === undefined ? [user] : [{ role: "assistant", text: turn.assistant_context }, user]
  })

/** Rebuilds what the user asked for from the live conversation (docs/history.md, reference §6.2). */
export const reconstructRequest = (conversation: Conversation): ReconstructedRequest => {
  const all = collectTurns(conversation)
  const turns = all.filter((turn) => !turn.abandoned)
  const requestTurns = turns.filter((turn) => REQUEST_KINDS.has(turn.kind))
  const reconstruction = reconstructionTurns(requestTurns)
  const userTurns = reconstruction.filter((turn) => turn.role === "user")
  const truncated = Buffer.byteLength(JSON.stringify(reconstruction), "utf8") > MAX_RECONSTRUCTION_BYTES
  return {
    turns,
    abandonedTurns: all.filter((turn) => turn.abandoned),
    request: requestTurns.map(renderForRequest).join("\n\n"),
    reconstructionTurns: truncated ? [] : reconstruction,
    truncated,
    singlePrompt: userTurns.length === 1 && reconstruction.length === 1 ? userTurns[0]!.text : undefined
  }
}

export const humanTurnCount = (turns: ReadonlyArray<RequestTurn>) =>
  turns.filter((turn) => !turn.abandoned && PROMPT_KINDS.has(turn.kind)).length

/** A file is a thread when the human asked for something: a prompt or a non-built-in command. */
export const hasRequest = (turns: ReadonlyArray<RequestTurn>) =>
  turns.some((turn) => turn.kind === "prompt" || turn.kind === "slash_command" || turn.kind === "queued_prompt")

