import { isRecord, isTrue, recordField, stringField } from "./json.js"
import {
  isSidechain,
  messageText,
  type SessionEntry,
  toolResultBlocks,
  typeOf
} from "./entries.js"

export type UserLineClass =
  | { readonly _tag: "Sidechain" }
  | { readonly _tag: "CompactionSummary"; readonly text: string }
  | { readonly _tag: "ToolResult" }
  | { readonly _tag: "Meta"; readonly text: string }
  | { readonly _tag: "Interrupt"; readonly text: string }
  | { readonly _tag: "Automated" }
  | { readonly _tag: "SlashCommand"; readonly name: string; readonly args: string }
  | { readonly _tag: "ShellInput"; readonly text: string }
  | { readonly _tag: "LocalOutput" }
  | { readonly _tag: "Prompt"; readonly text: string }

const COMPACTION_PREFIX = "This session is being continued from a previous conversation"
const LOCAL_OUTPUT = /^\s*(<local-command-(stdout|stderr|caveat)>|Caveat: )/
const CONTEXT_TAGS = /<(system-reminder|ide_opened_file|ide_selection)>[\s\S]*?<\/\1>/g

const tagContent = (text: string, tag: string) => {
  const match = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`).exec(text)
  return match?.[1]?.trim()
}

/** Built-in commands that manage the session rather than ask for work. */
export const LOCAL_COMMANDS: ReadonlySet<string> = new Set([
  "add-dir", "agents", "bashes", "bug", "clear", "compact", "config", "context", "cost", "doctor", "exit",
  "export", "help", "hooks", "ide", "install-github-app", "login", "logout", "mcp", "memory", "model",
  "output-style", "permissions", "plugin", "privacy-settings", "quit", "release-notes", "resume", "rewind",
  "status", "statusline", "terminal-setup", "theme", "todos", "upgrade", "usage", "vim"
])

export const parseSlashCommand = (text: string) => {
  const rawName = tagContent(text, "command-name")
  if (rawName === undefined) return undefined
  const name = rawName.startsWith("/") ? rawName.slice(1) : rawName
  return { name, args: tagContent(text, "command-args") ?? "" }
}

export const isLocalCommand = (name: string) => LOCAL_COMMANDS.has(name.toLowerCase())

export const stripContextTags = (text: string) => text.replace(CONTEXT_TAGS, "").trim()

/** Classifies a `user` line, in the order of the reference's decision table. */
export const classifyUserLine = (entry: SessionEntry): UserLineClass => {
  if (isSidechain(entry)) return { _tag: "Sidechain" }
  const flagged = isTrue(entry.raw, "isCompactSummary") || isTrue(entry.raw, "isVisibleInTranscriptOnly")
  if (!flagged && toolResultBlocks(entry).length > 0) return { _tag: "ToolResult" }
  const text = messageText(entry)
  if (flagged || text.startsWith(COMPACTION_PREFIX)) return { _tag: "CompactionSummary", text }
  if (isTrue(entry.raw, "isMeta")) return { _tag: "Meta", text }
  const trimmed = text.trim()
  if (trimmed.startsWith("[Request interrupted by user")) return { _tag: "Interrupt", text: trimmed }
  const originKind = stringField(recordField(entry.raw, "origin"), "kind")
  if ((originKind !== undefined && originKind !== "human") || trimmed.startsWith("<task-notification>")) {
    return { _tag: "Automated" }
  }
  const command = parseSlashCommand(text)
  if (command !== undefined) return { _tag: "SlashCommand", ...command }
  if (trimmed.startsWith("<bash-input>")) return { _tag: "ShellInput", text: tagContent(text, "bash-input") ?? "" }
  if (LOCAL_OUTPUT.test(trimmed) || trimmed.startsWith("<bash-stdout>") || trimmed.startsWith("<bash-stderr>")) {
    return { _tag: "LocalOutput" }
  }
  const prompt = stripContextTags(text)
  return prompt === "" ? { _tag: "LocalOutput" } : { _tag: "Prompt", text: prompt }
}

/** A 2.1.x built-in command logged as `system/local_command`. */
export const systemSlashCommand = (entry: SessionEntry) => {
  if (typeOf(entry) !== "system" || entry.raw.subtype !== "local_command" || isSidechain(entry)) return undefined
  const content = entry.raw.content
  return typeof content === "string" ? parseSlashCommand(content) : undefined
}

/** A steering prompt typed while Claude was busy (later 2.1.x `attachment/queued_command`). */
export const queuedCommandText = (entry: SessionEntry): string | undefined => {
  if (typeOf(entry) !== "attachment" || isSidechain(entry)) return undefined
  const attachment = recordField(entry.raw, "attachment")
  if (attachment?.type !== "queued_command") return undefined
  const prompt = attachment.prompt
  if (typeof prompt === "string") return stripContextTags(prompt) || undefined
  if (Array.isArray(prompt)) {
    const text = prompt.map((block) => (isRecord(block) ? stringField(block, "text") ?? "" : "")).join("\n")
    return stripContextTags(text) || undefined
  }
  return undefined
}
