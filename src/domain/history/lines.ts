import { StringDecoder } from "node:string_decoder"
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

/** Lines above this size are skipped: no real transcript line comes close, and it bounds memory. */
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
 * Splits a byte stream into lines across chunk boundaries. Each chunk is decoded to text once (a
 * StringDecoder keeps multi-byte characters split by a chunk boundary intact) and split on newlines.
 * A line longer than `maxLineBytes` (counted in UTF-16 units, a close proxy) is reported and dropped.
 */
export class LineSplitter {
  private readonly decoder = new StringDecoder("utf8")
  private pending = ""
  private oversized = false
  private lineNumber = 0

  constructor(
    private readonly onLine: (text: string, line: number) => void,
    private readonly onOversized: (line: number) => void,
    private readonly maxLineBytes: number = MAX_LINE_BYTES
  ) {}

  push(chunk: Buffer): void {
    this.pushText(this.decoder.write(chunk))
  }

  /** Emits the last line when the stream did not end with a newline (a torn last line stays torn). */
  end(): void {
    this.pushText(this.decoder.end())
    if (this.pending !== "" || this.oversized) this.finishLine("")
  }

  private pushText(text: string) {
    let start = 0
    for (;;) {
      const newline = text.indexOf("\n", start)
      if (newline === -1) break
      this.finishLine(text.slice(start, newline))
      start = newline + 1
    }
    if (start < text.length) this.keep(start === 0 ? text : text.slice(start))
  }

  private keep(part: string) {
    if (this.oversized) return
    if (this.pending.length + part.length > this.maxLineBytes) {
      this.oversized = true
      this.pending = ""
      return
    }
    this.pending = this.pending === "" ? part : this.pending + part
  }

  private finishLine(tail: string) {
    this.lineNumber += 1
    if (this.oversized || this.pending.length + tail.length > this.maxLineBytes) {
      this.oversized = false
      this.pending = ""
      this.onOversized(this.lineNumber)
      return
    }
    const text = this.pending === "" ? tail : this.pending + tail
    this.pending = ""
    this.onLine(text, this.lineNumber)
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
