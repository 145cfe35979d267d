import { classifyUserLine, isLocalCommand, queuedCommandText, systemSlashCommand } from "./classify.js"
import { type Conversation, isAbandoned } from "./conversation.js"
import type { SplitPoint } from "./chunks.js"
import {
  contentBlocks,
  messageText,
  responseKey,
  type SessionEntry,
  toolResultBlocks,
  toolResultText,
  typeOf,
  uuidOf
} from "./entries.js"
import { arrayField, isRecord, recordField, stringField } from "./json.js"

/**
 * What a task prompt may be reconstructed from (docs/history.md, "The task comes from the user"): the
 * user's own messages, each with the question Claude asked right before it, so that a reply like "1"
 * keeps its meaning. Claude's code, tool calls, tool output and its account of what it did never enter.
 */
export interface TaskSourceMessage {
  /** A typed prompt, a slash command (with its expansion), a queued prompt, an answer to AskUserQuestion, or a rejection's reason. */
  readonly kind: "prompt" | "command" | "answer" | "rejection"
  /** The user's own words. */
  readonly text: string
  /** The question Claude asked right before: an AskUserQuestion call with its options, or the asking part of its last text. */
  readonly asked: string | null
  readonly uuid: string | null
  readonly timestamp: string | null
}

/** Above this, the question kept from one assistant message is cut (with a mark). */
export const MAX_QUESTION_CHARS = 2_000

const FENCE = /```[\s\S]*?(```|$)/g
const INLINE_CODE = /`[^`\n]*`/g
const ASKS = /\?(?=\s|$|[*_)"'”’»])/
const LIST_LINE = /^\s*(?:[-*•]|\(?\w{1,2}[.):])\s+\S/

const isList = (paragraph: string) => paragraph.split("\n").every((line) => line.trim() === "" || LIST_LINE.test(line))

const bounded = (text: string) => (text.length > MAX_QUESTION_CHARS ? `${text.slice(0, MAX_QUESTION_CHARS - 1)}…` : text)

const asks = (text: string) => ASKS.test(text.replace(INLINE_CODE, ""))

/** The sentences of a line that ask something. */
const questions = (line: string) => line.trim().split(/(?<=[.!?])\s+/).filter(asks).join(" ")

/**
 * What one paragraph asks: its question sentences, and the option lines that follow a question (a list
 * before any question is an account, not options).
 */
const askingLines = (paragraph: string) => {
  const kept: Array<string> = []
  let asked = false
  for (const line of paragraph.split("\n")) {
    if (LIST_LINE.test(line)) {
      if (asked || asks(line)) kept.push(line.trim())
      asked ||= asks(line)
      continue
    }
    const question = questions(line)
    if (question === "") continue
    kept.push(question)
    asked = true
  }
  return kept.join("\n")
}

/**
 * The asking part of an assistant message: the sentences that ask a question (a "?" that ends a sentence,
 * outside code) and the option lists that follow them; `null` when the message asks nothing. Claude's
 * account of what it did around a question is not kept, nor a list before it (an account, or options the
 * question does not show: the reply may then lose some meaning rather than carry Claude's work).
 */
export const askingPart = (text: string): string | null => {
  const paragraphs = text.replace(FENCE, "\n\n").split(/\n\s*\n/).map((paragraph) => paragraph.trim()).filter((p) => p !== "")
  const asking = paragraphs.map((paragraph) => asks(paragraph))
  if (!asking.includes(true)) return null
  const kept = paragraphs.flatMap((paragraph, index) =>
    asking[index] ? [askingLines(paragraph)] : isList(paragraph) && asking[index - 1] === true ? [paragraph] : []
  )
  return bounded(kept.filter((part) => part !== "").join("\n\n"))
}

/** An AskUserQuestion call as the user saw it: each question with its options. */
export const askedQuestions = (input: unknown): string | null => {
  const questions = arrayField(input, "questions").flatMap((question) => {
    const text = stringField(question, "question")
    if (text === undefined) return []
    const options = arrayField(question, "options").flatMap((option, index) => {
      const label = stringField(option, "label")
      if (label === undefined) return []
      const description = stringField(option, "description")
      return [`${index + 1}. ${label}${description ? ` — ${description}` : ""}`]
    })
    return [[text, ...options].join("\n")]
  })
  return questions.length === 0 ? null : bounded(questions.join("\n\n"))
}

const ANSWERED = "User has answered your questions:"
const REJECTION_REASON = /the user said:\s*([\s\S]+)$/i

/** The user's choices in an AskUserQuestion result, from its recorded answers or its text. */
const answersOf = (entry: SessionEntry, block: Record<string, unknown>): string | null => {
  const answers = recordField(recordField(entry.raw, "toolUseResult"), "answers")
  if (answers !== undefined) {
    const lines = Object.entries(answers).map(([question, answer]) =>
      `${question} → ${typeof answer === "string" ? answer : JSON.stringify(answer)}`
    )
    return lines.length === 0 ? null : lines.join("\n")
  }
  const text = toolResultText(block)
  return text.startsWith(ANSWERED) ? text.slice(ANSWERED.length).replace(/You can now continue[\s\S]*$/, "").trim() : null
}

class SourceCollector {
  readonly messages: Array<TaskSourceMessage> = []
  /** The last assistant message's text, joined over the lines of one response. */
  private lastText: { key: string; text: string } | undefined
  /** AskUserQuestion calls waiting for their answer, by tool-use id. */
  private readonly pending = new Map<string, string>()

  constructor(private readonly conversation: Conversation) {}

  private push(entry: SessionEntry, kind: TaskSourceMessage["kind"], text: string, asked: string | null) {
    if (text.trim() === "") return
    this.messages.push({ kind, text: text.trim(), asked, uuid: uuidOf(entry) ?? null, timestamp: stringField(entry.raw, "timestamp") ?? null })
  }

  assistant(entry: SessionEntry) {
    for (const block of contentBlocks(entry)) {
      if (block.type !== "tool_use" || block.name !== "AskUserQuestion") continue
      const asked = askedQuestions(block.input)
      const id = stringField(block, "id")
      if (asked !== null && id !== undefined) this.pending.set(id, asked)
    }
    const text = messageText(entry).trim()
    if (text === "") return
    const key = responseKey(entry)
    this.lastText = this.lastText?.key === key ? { key, text: `${this.lastText.text}\n\n${text}` } : { key, text }
  }

  /** A message the user typed: it answers the question Claude's last text asked, if it asked one. */
  typed(entry: SessionEntry, kind: TaskSourceMessage["kind"], text: string) {
    const asked = this.lastText === undefined ? null : askingPart(this.lastText.text)
    this.push(entry, kind, text, asked)
    this.lastText = undefined
  }

  toolResult(entry: SessionEntry) {
    const structured = recordField(entry.raw, "toolUseResult")
    for (const block of toolResultBlocks(entry)) {
      const id = stringField(block, "tool_use_id") ?? ""
      const asked = this.pending.get(id) ?? askedQuestions(structured)
      const answer = asked === null && !toolResultText(block).startsWith(ANSWERED) ? null : answersOf(entry, block)
      if (answer !== null) {
        this.pending.delete(id)
        this.push(entry, "answer", answer, asked)
        continue
      }
      if (block.is_error !== true) continue
      const reason = REJECTION_REASON.exec(toolResultText(block))?.[1]?.trim()
      if (reason) this.push(entry, "rejection", reason, null)
    }
  }

  visit(entry: SessionEntry) {
    if (isAbandoned(this.conversation, entry)) return
    const type = typeOf(entry)
    if (type === "assistant") return this.assistant(entry)
    if (type === "system") {
      const command = systemSlashCommand(entry)
      if (command !== undefined && !isLocalCommand(command.name)) this.typed(entry, "command", slash(command.name, command.args))
      return
    }
    if (type === "attachment") {
      const queued = queuedCommandText(entry)
      if (queued !== undefined) this.typed(entry, "prompt", queued)
      return
    }
    if (type !== "user") return
    const kind = classifyUserLine(entry)
    if (kind._tag === "Prompt") this.typed(entry, "prompt", kind.text)
    else if (kind._tag === "SlashCommand" && !isLocalCommand(kind.name)) this.typed(entry, "command", slash(kind.name, kind.args))
    else if (kind._tag === "Meta") this.expansion(entry, kind.text)
    else if (kind._tag === "ToolResult") this.toolResult(entry)
  }

  /** A meta line right after a slash command holds the command's expanded instructions. */
  private expansion(entry: SessionEntry, text: string) {
    const last = this.messages[this.messages.length - 1]
    if (last?.kind !== "command" || last.uuid === null || stringField(entry.raw, "parentUuid") !== last.uuid) return
    this.messages[this.messages.length - 1] = { ...last, text: `${last.text}\n\n${text.trim()}` }
  }
}

const slash = (name: string, args: string) => (args === "" ? `/${name}` : `/${name} ${args}`)

/** The live (not rewound) source of a thread's task, in order (see `TaskSourceMessage`). */
export const taskSourceMessages = (conversation: Conversation): Array<TaskSourceMessage> => {
  const collector = new SourceCollector(conversation)
  for (const entry of conversation.mainChain) collector.visit(entry)
  return collector.messages
}

/** The source of a chunk, and the earlier prompts (the user's own words) that are its background. */
export interface RangeSource {
  readonly messages: ReadonlyArray<TaskSourceMessage>
  readonly earlier: ReadonlyArray<string>
}

const millis = (timestamp: string | null) => (timestamp === null ? Number.NaN : Date.parse(timestamp))

/**
 * The messages of the chunk from split point `range.start` through the work before the split point after
 * `range.end` (whole thread without a range); a message without a time belongs to no chunk.
 */
export const sourceInRange = (
  messages: ReadonlyArray<TaskSourceMessage>,
  points: ReadonlyArray<SplitPoint>,
  range: { readonly start: string; readonly end: string } | undefined
): RangeSource => {
  if (range === undefined) return { messages, earlier: [] }
  const first = points.findIndex((point) => point.message_id === range.start)
  const last = points.findIndex((point) => point.message_id === range.end)
  if (first < 0 || last < first) return { messages: [], earlier: [] }
  const from = millis(points[first]!.timestamp)
  const until = points[last + 1] === undefined ? Number.POSITIVE_INFINITY : millis(points[last + 1]!.timestamp)
  const inside = messages.filter((message) => millis(message.timestamp) >= from && millis(message.timestamp) < until)
  const earlier = messages.filter((message) => millis(message.timestamp) < from && message.kind === "prompt").map((m) => m.text)
  return { messages: inside, earlier }
}

/** A source message as the reconstruction model and the report show it. */
export const renderSourceMessage = (message: TaskSourceMessage) =>
  message.asked === null ? message.text : `[Claude asked] ${message.asked}\n[The user answered] ${message.text}`

/** Whether a value has the shape of a source message (for records written by another version). */
export const isTaskSourceMessage = (value: unknown): value is TaskSourceMessage =>
  isRecord(value) && typeof value.text === "string" && typeof value.kind === "string"
