import { arrayField, isRecord, isTrue, type JsonObject, recordField, stringField } from "./json.js"
import type { Entry } from "./lines.js"

/** Where a line came from: the session file itself or one of its sub-agent transcripts. */
export type Origin = "main" | "subagent" | "compaction" | "warmup"

/** A transcript line placed in its session: inline sidechain lines of the main file count as sub-agent lines. */
export interface SessionEntry {
  readonly raw: JsonObject
  readonly line: number
  readonly file: string
  readonly origin: Origin
}

export const typeOf = (entry: SessionEntry) => entry.raw.type as string
export const uuidOf = (entry: SessionEntry) => stringField(entry.raw, "uuid")
export const parentOf = (entry: SessionEntry) =>
  stringField(entry.raw, "parentUuid") ?? stringField(entry.raw, "logicalParentUuid")
export const isSidechain = (entry: SessionEntry) => entry.origin !== "main" || isTrue(entry.raw, "isSidechain")
export const isMainChain = (entry: SessionEntry) => !isSidechain(entry)

export const placeEntries = (
  entries: ReadonlyArray<Entry>,
  file: string,
  origin: Origin
): Array<SessionEntry> => entries.map((entry) => ({ raw: entry.raw, line: entry.line, file, origin }))

export const messageOf = (entry: SessionEntry) => recordField(entry.raw, "message")

/** The content blocks of a message; a plain string becomes one text block. */
export const contentBlocks = (entry: SessionEntry): ReadonlyArray<JsonObject> => {
  const message = messageOf(entry)
  const content = message?.content
  if (typeof content === "string") return [{ type: "text", text: content }]
  if (!Array.isArray(content)) return []
  // The common case needs no copy: every block is already an object.
  if (content.every(isRecord)) return content as ReadonlyArray<JsonObject>
  return content.flatMap((block): Array<JsonObject> =>
    isRecord(block) ? [block] : typeof block === "string" ? [{ type: "text", text: block }] : []
  )
}

/** Text of a message: text blocks joined, images shown as placeholders. */
export const messageText = (entry: SessionEntry): string =>
  contentBlocks(entry)
    .map((block) => {
      if (block.type === "text") return stringField(block, "text") ?? ""
      if (block.type === "image") return "[image]"
      if (block.type === "document") return "[document]"
      return ""
    })
    .filter((text) => text !== "")
    .join("\n")

export const toolResultBlocks = (entry: SessionEntry) =>
  contentBlocks(entry).filter((block) => block.type === "tool_result")

export const toolResultText = (block: JsonObject): string => {
  const content = block.content
  if (typeof content === "string") return content
  return arrayField(block, "content")
    .map((part) => stringField(part, "text") ?? "")
    .join("\n")
}

export const imageCount = (entry: SessionEntry) => contentBlocks(entry).filter((block) => block.type === "image").length

export const modelOf = (entry: SessionEntry) => stringField(messageOf(entry), "model")
export const SYNTHETIC_MODEL = "<synthetic>"

/** Assistant lines that are not real model output: local placeholders and API error text. */
export const isBillableAssistant = (entry: SessionEntry) =>
  typeOf(entry) === "assistant" && modelOf(entry) !== SYNTHETIC_MODEL && !isTrue(entry.raw, "isApiErrorMessage")

/** Key grouping the streamed lines of one API response. */
export const responseKey = (entry: SessionEntry) =>
  stringField(messageOf(entry), "id") ?? `uuid:${uuidOf(entry) ?? `${entry.file}:${entry.line}`}`
