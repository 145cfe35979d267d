import { isRecord, type JsonObject } from "./json.js"

/** One decoded transcript line with its 1-based line number in its file. */
export interface Entry {
  readonly line: number
  readonly raw: JsonObject
}

export interface LineProblem {
  readonly line: number
  readonly message: string
}

/** Lines above this many UTF-8 bytes are skipped: no real transcript line comes close, and it bounds memory. */
export const MAX_LINE_BYTES = 32 * 1024 * 1024

/** Entry types seen in Claude Code transcripts up to 2.1.x; anything else is kept out with a diagnostic. */
export const KNOWN_ENTRY_TYPES: ReadonlySet<string> = new Set([
  "user",
  "assistant",
  "system",
  "summary",
  "custom-title",
  "ai-title",
  "agent-name",
  "agent-setting",
  "last-prompt",
  "file-history-snapshot",
  "file-history-delta",
  "progress",
  "queue-operation",
  "attachment",
  "permission-mode",
  "mode",
  "pr-link",
  "frame-link",
  "worktree-state",
  "relocated",
  "bridge-session"
])

export type DecodedLine =
  | { readonly _tag: "Entry"; readonly entry: Entry }
  | { readonly _tag: "Blank" }
  | { readonly _tag: "Problem"; readonly problem: LineProblem }

const problem = (line: number, message: string): DecodedLine => ({ _tag: "Problem", problem: { line, message } })

/** Decodes one line leniently: blank, torn, non-JSON, non-object and unknown lines never throw. */
export const decodeLine = (text: string, line: number): DecodedLine => {
  if (text.trim() === "") return { _tag: "Blank" }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return problem(line, `line ${line} is not valid JSON (torn or corrupt); skipped`)
  }
  if (!isRecord(value)) return problem(line, `line ${line} is not a JSON object; skipped`)
  const type = value.type
  if (typeof type !== "string") return problem(line, `line ${line} has no entry type; skipped`)
  if (!KNOWN_ENTRY_TYPES.has(type)) {
    return problem(line, `line ${line} has an unknown entry type "${type.slice(0, 40)}"; ignored`)
  }
  return { _tag: "Entry", entry: { line, raw: value } }
}

/**
 * The listing's decoder: the entry of a line, or undefined for a line `decodeLine` would report or skip (the
 * listing reports no line problems). Same outcome as `decodeLine`, without its result objects.
 */
export const parseEntry = (text: string): JsonObject | undefined => {
  if (text.length === 0 || (text.charCodeAt(0) !== 0x7b && text.trim() === "")) return undefined
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undefined
  }
  if (!isRecord(value)) return undefined
  const type = value.type
  return typeof type === "string" && KNOWN_ENTRY_TYPES.has(type) ? value : undefined
}

const NEWLINE = 0x0a

/**
 * Splits a byte stream into lines across chunk boundaries. A newline byte never occurs inside a multi-byte
 * UTF-8 character, so each complete line is found with a byte search and decoded by itself, without a
 * StringDecoder; only the bytes of a line that straddles chunks are kept (copied: the caller may reuse its
 * buffer). A line longer than `maxLineBytes` UTF-8 bytes is reported and dropped without being decoded.
 */
export class LineSplitter {
  private pending: Array<Buffer> = []
  private pendingBytes = 0
  private oversized = false
  private lineNumber = 0

  constructor(
    private readonly onLine: (text: string, line: number) => void,
    private readonly onOversized: (line: number) => void,
    private readonly maxLineBytes: number = MAX_LINE_BYTES
  ) {}

  push(chunk: Buffer): void {
    let start = 0
    if (this.pendingBytes > 0 || this.oversized) {
      const first = chunk.indexOf(NEWLINE)
      if (first === -1) {
        this.keep(chunk)
        return
      }
      this.keep(chunk.subarray(0, first))
      this.finishPending()
      start = first + 1
    }
    // Line by line rather than one decode of many lines: most lines are ASCII and decode to compact one-byte
    // strings, where one non-ASCII character would make a whole multi-line string two-byte (measured: a
    // third of the listing's decode and parse time).
    for (let newline = chunk.indexOf(NEWLINE, start); newline !== -1; newline = chunk.indexOf(NEWLINE, start)) {
      this.lineNumber += 1
      if (newline - start > this.maxLineBytes) this.onOversized(this.lineNumber)
      else this.onLine(chunk.toString("utf8", start, newline), this.lineNumber)
      start = newline + 1
    }
    if (start < chunk.length) this.keep(chunk.subarray(start))
  }

  /** Emits the last line when the stream did not end with a newline (a torn last line stays torn). */
  end(): void {
    if (this.pendingBytes > 0 || this.oversized) this.finishPending()
  }

  private keep(part: Buffer) {
    if (this.oversized || part.length === 0) return
    if (this.pendingBytes + part.length > this.maxLineBytes) {
      this.oversized = true
      this.pending = []
      this.pendingBytes = 0
      return
    }
    this.pending.push(Buffer.from(part))
    this.pendingBytes += part.length
  }

  private finishPending() {
    this.lineNumber += 1
    const oversized = this.oversized
    const parts = this.pending
    this.oversized = false
    this.pending = []
    this.pendingBytes = 0
    if (oversized) {
      this.onOversized(this.lineNumber)
      return
    }
    this.onLine(parts.length === 1 ? parts[0]!.toString("utf8") : Buffer.concat(parts).toString("utf8"), this.lineNumber)
  }
}

export interface DecodedFile {
  readonly entries: ReadonlyArray<Entry>
  readonly problems: ReadonlyArray<LineProblem>
  readonly lineCount: number
}

/** Collects decoded entries and problems from the splitter's callbacks. */
export const makeFileDecoder = (maxLineBytes: number = MAX_LINE_BYTES) => {
  const entries: Array<Entry> = []
  const problems: Array<LineProblem> = []
  let lineCount = 0
  const splitter = new LineSplitter(
    (text, line) => {
      lineCount = line
      const decoded = decodeLine(text, line)
      if (decoded._tag === "Entry") entries.push(decoded.entry)
      else if (decoded._tag === "Problem") problems.push(decoded.problem)
    },
    (line) => {
      lineCount = line
      problems.push({ line, message: `line ${line} exceeds ${maxLineBytes} bytes; skipped` })
    },
    maxLineBytes
  )
  return {
    push: (chunk: Buffer) => splitter.push(chunk),
    finish: (): DecodedFile => {
      splitter.end()
      return { entries, problems, lineCount }
    }
  }
}

/** Decodes a whole in-memory text (tests, samples). */
export const decodeText = (text: string, maxLineBytes?: number): DecodedFile => {
  const decoder = makeFileDecoder(maxLineBytes)
  decoder.push(Buffer.from(text, "utf8"))
  return decoder.finish()
}
