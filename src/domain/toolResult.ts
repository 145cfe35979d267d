import { ParseResult } from "effect"
import { MAX_TEXT_BYTES } from "./product.js"

export interface ToolResult {
  readonly content: ReadonlyArray<{ readonly type: "text"; readonly text: string }>
  readonly structuredContent?: Readonly<Record<string, unknown>>
  readonly isError?: true
}

/** Cuts a text to at most `maxBytes` UTF-8 bytes without splitting a character. */
export const boundText = (text: string, maxBytes = MAX_TEXT_BYTES) => {
  // A UTF-16 code unit never takes more than 3 UTF-8 bytes, so short texts need no encoding.
  if (text.length * 3 <= maxBytes) return text
  const bytes = Buffer.from(text, "utf8")
  if (bytes.length <= maxBytes) return text
  return new TextDecoder("utf-8", { fatal: false }).decode(bytes.subarray(0, maxBytes)).replace(/\uFFFD$/, "")
}

export const toolSuccess = (text: string, structuredContent: Record<string, unknown>): ToolResult => ({
  content: [{ type: "text", text: boundText(text) }],
  structuredContent
})

export const toolFailure = (text: string): ToolResult => ({
  content: [{ type: "text", text: boundText(text) }],
  isError: true
})

/** One sentence naming the first offending field, for a payload that does not match its Schema. */
export const describeParseError = (error: ParseResult.ParseError) => {
  const issues = ParseResult.ArrayFormatter.formatErrorSync(error)
  const first = issues[0]
  if (first === undefined) return "The arguments are invalid."
  const field = first.path.map(String).join(".")
  if (first._tag === "Missing") return `${field || "A field"} is required.`
  if (first._tag === "Unexpected") return `${field || "A field"} is not a known argument.`
  return field === "" ? first.message : `${field}: ${first.message}`
}
