/**
 * The checks Claude ran: the commands of its `Bash` calls that test, build, type-check or lint the project
 * (by the tables of checkCommands.ts), with how often each ran, how it ended the last time and whether
 * that was after Claude's last edit; and the set-up commands (dependency installs) it ran before them.
 */
import * as path from "node:path"
import { MAX_CHECKS, MAX_COMMAND_CHARS, MAX_SETUP_COMMANDS } from "../contracts/payloads.js"
import { FILE_TOOLS, indexToolUses } from "./changes.js"
import { type CheckKind, checkKindOf, isPlainCommand, isSetupCommand } from "./checkCommands.js"
import { type Conversation, isAbandoned } from "./conversation.js"
import { type SessionEntry, toolResultBlocks, toolResultText, typeOf } from "./entries.js"
import { isRecord, recordField, stringField, timestampMillis } from "./json.js"

export { type CheckKind, checkKindOf, isPlainCommand, isSetupCommand } from "./checkCommands.js"

/** One simple command of a `Bash` call, with the directory it ran in (after the call's own `cd`s). */
export interface CommandStep {
  readonly command: string
  readonly directory: string
}

/**
 * The simple commands of a shell line in the order they run, each with its directory: `&&`, `||` and `;`
 * separate them, `cd DIR` moves the ones after it, and a pipeline counts as its first command
 * (`npm test 2>&1 | tail -20` is `npm test`). Redirections of the check's output are dropped. A line with
 * a construct this does not follow (a subshell, a here-document, a loop) yields only what precedes it.
 */
export const commandSteps = (line: string, cwd: string): ReadonlyArray<CommandStep> => {
  const steps: Array<CommandStep> = []
  let directory = cwd
  for (const part of splitOutsideQuotes(line, /&&|\|\||;|\n/)) {
    const pipeline = splitOutsideQuotes(part, /\|/)[0] ?? ""
    const command = pipeline.replace(/\s+(\d?>>?|&>)\s*(&\d|\S+)/g, "").trim()
    if (command === "") continue
    if (/^(\(|\{|if\b|for\b|while\b|case\b)|<</.test(command)) break
    const cd = /^cd(?:\s+(.*))?$/.exec(command)
    if (cd !== null) {
      const target = unquote((cd[1] ?? "~").trim())
      // Only a plain directory is followed; `cd ~`, `cd -`, `cd $X` or `` cd `…` `` end what can be known.
      if (!/^[A-Za-z0-9 _.\-/@+,%]+$/.test(target)) break
      directory = path.posix.resolve(directory, target)
      continue
    }
    steps.push({ command, directory })
  }
  return steps
}

const unquote = (text: string) => (/^(['"]).*\1$/.test(text) ? text.slice(1, -1) : text)

/** `text` split at `separator` wherever it is outside single or double quotes. */
const splitOutsideQuotes = (text: string, separator: RegExp): Array<string> => {
  const parts: Array<string> = []
  let current = ""
  let quote: string | undefined
  for (let index = 0; index < text.length; index++) {
    const char = text[index]!
    if (quote !== undefined) {
      if (char === "\\" && quote === "\"") {
        current += char + (text[index + 1] ?? "")
        index++
        continue
      }
      if (char === quote) quote = undefined
      current += char
      continue
    }
    if (char === "'" || char === "\"") {
      quote = char
      current += char
      continue
    }
    const match = new RegExp(`^(?:${separator.source})`).exec(text.slice(index))
    if (match !== null) {
      parts.push(current)
      current = ""
      index += match[0].length - 1
      continue
    }
    current += char
  }
  parts.push(current)
  return parts
}

export type CheckOutcome = "passed" | "failed" | "unknown"

/** A check Claude ran, as `inspect_thread` lists it. */
export interface ThreadCheck {
  readonly command: string
  /** Where it ran, relative to the project directory (`.` for the project itself). */
  readonly directory: string
  readonly kind: CheckKind
  readonly runs: number
  /** How its last run ended: `unknown` when the transcript holds no result for it. */
  readonly last_outcome: CheckOutcome
  readonly last_exit_code: number | null
  /** Whether its last run came after Claude's last successful edit (so it judged Claude's result). */
  readonly after_last_edit: boolean
}

/** A set-up command Claude ran (a dependency install). */
export interface SetupCommand {
  readonly command: string
  readonly directory: string
  readonly runs: number
}

export interface ThreadChecks {
  readonly checks: ReadonlyArray<ThreadCheck>
  readonly setup: ReadonlyArray<SetupCommand>
}

/** The longest `Bash` line looked at for checks. */
const MAX_LINE_CHARS = 4 * MAX_COMMAND_CHARS

const EXIT_CODE = /^(?:Error: )?Exit code (\d+)/

/** How a `Bash` call ended, from its result block's error flag and the "Exit code N" Claude Code records. */
const outcomeOf = (block: Record<string, unknown> | undefined, toolUseResult: unknown) => {
  if (block === undefined) return { outcome: "unknown" as const, exitCode: null }
  const text = toolResultText(block)
  const code = EXIT_CODE.exec(text) ?? (typeof toolUseResult === "string" ? EXIT_CODE.exec(toolUseResult) : null)
  if (block.is_error === true || typeof toolUseResult === "string") {
    return { outcome: "failed" as const, exitCode: code === null ? null : Number(code[1]) }
  }
  if (isRecord(toolUseResult) && toolUseResult.interrupted === true) return { outcome: "failed" as const, exitCode: null }
  return { outcome: "passed" as const, exitCode: 0 }
}

const relativeDirectory = (projectDir: string | null, directory: string) => {
  if (projectDir === null) return undefined
  const relative = path.posix.relative(projectDir, directory)
  if (relative.startsWith("..") || path.posix.isAbsolute(relative)) return undefined
  return relative === "" ? "." : relative
}

/**
 * The checks and set-up commands of the `Bash` calls in `entries` (off rewound branches), in the order
 * they first ran. A command that ran outside the project directory is left out: it cannot be run again
 * inside a copy of the project.
 */
export const threadChecks = (
  entries: ReadonlyArray<SessionEntry>,
  conversation: Conversation,
  projectDir: string | null
): ThreadChecks => {
  const toolUses = indexToolUses(entries)
  const results = new Map<string, { block: Record<string, unknown>; toolUseResult: unknown }>()
  let lastEdit: Position | undefined
  entries.forEach((entry, order) => {
    if (typeOf(entry) !== "user" || isAbandoned(conversation, entry)) return
    for (const block of toolResultBlocks(entry)) {
      const id = stringField(block, "tool_use_id") ?? ""
      results.set(id, { block, toolUseResult: entry.raw.toolUseResult })
      const tool = stringField(toolUses.get(id), "name")
      const failed = block.is_error === true || typeof entry.raw.toolUseResult === "string"
      if (tool !== undefined && FILE_TOOLS.has(tool) && !failed) {
        const position = positionOf(entry, order)
        if (lastEdit === undefined || isAfter(position, lastEdit)) lastEdit = position
      }
    }
  })
  const checks = new Map<string, ThreadCheck>()
  const setup = new Map<string, SetupCommand>()
  entries.forEach((entry, order) => {
    if (typeOf(entry) !== "assistant" || isAbandoned(conversation, entry)) return
    if (checks.size >= MAX_CHECKS && setup.size >= MAX_SETUP_COMMANDS) return
    const cwd = stringField(entry.raw, "cwd") ?? projectDir
    if (cwd === null || cwd === undefined) return
    const message = recordField(entry.raw, "message")
    const blocks = Array.isArray(message?.content) ? message.content.filter(isRecord) : []
    for (const block of blocks) {
      if (block.type !== "tool_use" || block.name !== "Bash") continue
      const line = stringField(recordField(block, "input"), "command")
      // A line longer than a few checks could be is no check line (and splitting it would cost time).
      if (line === undefined || line.length > MAX_LINE_CHARS) continue
      const result = results.get(stringField(block, "id") ?? "")
      const { outcome, exitCode } = outcomeOf(result?.block, result?.toolUseResult)
      const lineSteps = commandSteps(line, cwd)
      // A chain reports one exit code: a step of a failed chain may or may not be the one that failed.
      const known = outcome !== "failed" || lineSteps.length === 1
      for (const step of lineSteps) {
        const directory = relativeDirectory(projectDir, step.directory)
        if (directory === undefined) continue
        const key = `${directory}\u0000${step.command}`
        if (!isPlainCommand(step.command)) continue
        if (isSetupCommand(step.command)) {
          if (setup.has(key) || setup.size < MAX_SETUP_COMMANDS) setup.set(key, { command: step.command, directory, runs: (setup.get(key)?.runs ?? 0) + 1 })
          continue
        }
        const kind = checkKindOf(step.command)
        if (kind === undefined || (!checks.has(key) && checks.size >= MAX_CHECKS)) continue
        checks.set(key, {
          command: step.command,
          directory,
          kind,
          runs: (checks.get(key)?.runs ?? 0) + 1,
          last_outcome: known ? outcome : "unknown",
          last_exit_code: known ? exitCode : null,
          after_last_edit: lastEdit === undefined || isAfter(positionOf(entry, order), lastEdit)
        })
      }
    }
  })
  return { checks: [...checks.values()], setup: [...setup.values()] }
}

/** A line's place: its time, then its place in the session (lines without a timestamp keep their order). */
interface Position {
  readonly time: number
  readonly order: number
}
const positionOf = (entry: SessionEntry, order: number): Position => ({ time: timestampMillis(entry.raw) ?? 0, order })
const isAfter = (left: Position, right: Position) => left.time > right.time || (left.time === right.time && left.order > right.order)

/**
 * What a replay runs when its configuration names no checks: each check whose last run passed after
 * Claude's last edit (so it held for Claude's result), and every set-up command Claude ran.
 */
export const defaultChecks = (found: ThreadChecks) => ({
  checks: found.checks
    .filter((check) => check.last_outcome === "passed" && check.after_last_edit)
    .map(({ command, directory }) => ({ command, directory })),
  setup: found.setup.map(({ command, directory }) => ({ command, directory }))
})
