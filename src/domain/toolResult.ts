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

const EXCERPT_CHARS = 100
const PLAIN = /^[\x20-\x21\x23-\x7e]*$/

/**
 * How a message quotes a value from a request: a short plain value as it is, anything else (long,
 * quotes, control characters, non-ASCII) as a JSON string of at most its first 100 characters.
 */
export const excerpt = (value: string) => {
  if (value.length <= EXCERPT_CHARS && PLAIN.test(value)) return value
  return value.length <= EXCERPT_CHARS ? JSON.stringify(value) : `${JSON.stringify(value.slice(0, EXCERPT_CHARS))}…`
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
  const field = excerpt(first.path.map(String).join("."))
  if (first._tag === "Missing") return `${field || "A field"} is required.`
  if (first._tag === "Unexpected") return `${field || "A field"} is not a known argument.`
  // A Schema message quotes the value it was given, which may be any size.
  const message = first.message.length <= 300 ? first.message : `${first.message.slice(0, 300)}…`
  return field === "" ? message : `${field}: ${message}`
}
