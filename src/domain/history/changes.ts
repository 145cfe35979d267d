import * as path from "node:path"
import { type Conversation, isAbandoned } from "./conversation.js"
import { applyHunks, parseHunks, unifiedDiff } from "./diff.js"
import {
  contentBlocks,
  isSidechain,
  type SessionEntry,
  toolResultBlocks,
  typeOf
} from "./entries.js"
import { isRecord, type JsonObject, recordField, stringField, timestampMillis } from "./json.js"

export const FILE_TOOLS: ReadonlySet<string> = new Set(["Edit", "MultiEdit", "Write", "NotebookEdit"])

export interface FileOperation {
  readonly absolutePath: string
  readonly tool: string
  readonly failed: boolean
  readonly abandoned: boolean
  readonly bySubagent: boolean
  readonly time: number
  readonly order: number
  /** The file's content before this operation (null = it did not exist; undefined = unknown). */
  readonly before: string | null | undefined
  /** The file's content after this operation (undefined = unknown). */
  readonly after: string | undefined
}

export interface ChangedFile {
  readonly path: string
  readonly kind: "created" | "modified"
  readonly by_subagent: boolean
  readonly abandoned: boolean
  readonly outside_project: boolean
  readonly operations: number
  readonly abandoned_operations: number
  /** A unified diff rebuilt from the file tools' results; null when it cannot be rebuilt (e.g. notebooks). */
  readonly diff: string | null
  /** The content after Claude's last edit, when known (needed to materialise non-git end states). */
  readonly final_content: string | null
}

/** Indexes every tool call by id so that a result can find the call it answers. */
export const indexToolUses = (entries: ReadonlyArray<SessionEntry>) => {
  const index = new Map<string, JsonObject>()
  for (const entry of entries) {
    if (typeOf(entry) !== "assistant") continue
    for (const block of contentBlocks(entry)) {
      const id = stringField(block, "id")
      if (block.type === "tool_use" && id !== undefined) index.set(id, block)
    }
  }
  return index
}

const contentBefore = (tool: string, result: JsonObject | undefined): string | null | undefined => {
  if (result === undefined) return undefined
  if (tool === "Write" && result.type === "create") return null
  const original = result.originalFile ?? result.originalFileContents
  if (typeof original === "string") return original
  return original === null && tool === "Write" ? null : undefined
}

const contentAfter = (tool: string, result: JsonObject | undefined, before: string | null | undefined) => {
  if (result === undefined) return undefined
  if (tool === "Write") return stringField(result, "content")
  if (tool === "NotebookEdit" || typeof before !== "string") return undefined
  const hunks = parseHunks(result.structuredPatch)
  return hunks === undefined ? undefined : applyHunks(before, hunks)
}

/** Every Edit/MultiEdit/Write/NotebookEdit result in the session, main chain and sub-agents alike. */
export const fileOperations = (
  entries: ReadonlyArray<SessionEntry>,
  conversation: Conversation
): Array<FileOperation> => {
  const toolUses = indexToolUses(entries)
  const operations: Array<FileOperation> = []
  entries.forEach((entry, order) => {
    if (typeOf(entry) !== "user") return
    for (const block of toolResultBlocks(entry)) {
      const toolUse = toolUses.get(stringField(block, "tool_use_id") ?? "")
      const tool = stringField(toolUse, "name")
      if (tool === undefined || !FILE_TOOLS.has(tool)) continue
      const rawResult = entry.raw.toolUseResult
      const result = isRecord(rawResult) ? rawResult : undefined
      const input = recordField(toolUse, "input")
      const absolutePath = stringField(result, "filePath") ?? stringField(input, "file_path") ??
        stringField(input, "notebook_path")
      if (absolutePath === undefined) continue
      const failed = block.is_error === true || typeof rawResult === "string"
      const before = contentBefore(tool, result)
      operations.push({
        absolutePath,
        tool,
        failed,
        abandoned: isAbandoned(conversation, entry),
        bySubagent: isSidechain(entry),
        time: timestampMillis(entry.raw) ?? Number.MAX_SAFE_INTEGER,
        order,
        before,
        after: failed ? undefined : contentAfter(tool, result, before)
      })
    }
  })
  return operations.sort((left, right) => left.time - right.time || left.order - right.order)
}

const relativeTo = (projectDir: string | undefined, absolutePath: string) => {
  if (projectDir === undefined) return { path: absolutePath, outside: true }
  const relative = path.posix.relative(projectDir, absolutePath)
  return relative.startsWith("..") || path.posix.isAbsolute(relative)
    ? { path: absolutePath, outside: true }
    : { path: relative, outside: false }
}

const summarise = (projectDir: string | undefined, ops: ReadonlyArray<FileOperation>): ChangedFile => {
  const live = ops.filter((op) => !op.abandoned)
  const basis = live.length > 0 ? live : ops
  const first = basis[0]!
  const last = basis[basis.length - 1]!
  const { path: relative, outside } = relativeTo(projectDir, first.absolutePath)
  const before = first.before
  const after = last.after
  const diff = before === undefined || after === undefined ? null : unifiedDiff(relative, before, after)
  return {
    path: relative,
    kind: before === null ? "created" : "modified",
    by_subagent: ops.some((op) => op.bySubagent),
    abandoned: live.length === 0,
    outside_project: outside,
    operations: ops.length,
    abandoned_operations: ops.length - live.length,
    diff,
    final_content: after ?? null
  }
}

/**
 * Claude's changed files: successful file-tool operations grouped by path. The end state comes from the
 * last live operation's own `originalFile` + hunks (files can change between edits), the start from the
 * first one. Files changed only on abandoned branches are kept and flagged.
 */
export const changedFiles = (
  entries: ReadonlyArray<SessionEntry>,
  conversation: Conversation,
  projectDir: string | undefined
): Array<ChangedFile> => {
  const byPath = new Map<string, Array<FileOperation>>()
  for (const op of fileOperations(entries, conversation)) {
    if (op.failed) continue
    const list = byPath.get(op.absolutePath)
    if (list === undefined) byPath.set(op.absolutePath, [op])
    else list.push(op)
  }
  return [...byPath.values()].map((ops) => summarise(projectDir, ops))
}

