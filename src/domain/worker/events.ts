import type { WorkerItem, WorkerUsage } from "../worker.js"


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

export type JsonRecord = Readonly<Record<string, unknown>>

export const isRecord = (value: unknown): value is JsonRecord =>
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
