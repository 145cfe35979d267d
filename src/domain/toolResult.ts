import { Option, ParseResult, SchemaAST } from "effect"
import { MAX_TEXT_BYTES } from "./product.js"
import { utf8Bytes, utf8Text } from "./utf8.js"

export interface ToolResult {
  readonly content: ReadonlyArray<{ readonly type: "text"; readonly text: string }>
  readonly structuredContent?: object
  readonly isError?: true
}

/** Cuts a text to at most `maxBytes` UTF-8 bytes without splitting a character. */
export const boundText = (text: string, maxBytes = MAX_TEXT_BYTES) => {
  // A UTF-16 code unit never takes more than 3 UTF-8 bytes, so short texts need no encoding.
  if (text.length * 3 <= maxBytes) return text
  const bytes = utf8Bytes(text)
  if (bytes.length <= maxBytes) return text
  return utf8Text(bytes.subarray(0, maxBytes)).replace(/\uFFFD$/, "")
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

export const toolSuccess = (text: string, structuredContent: object): ToolResult => ({
  content: [{ type: "text", text: boundText(text) }],
  structuredContent
})

export const toolFailure = (text: string): ToolResult => ({
  content: [{ type: "text", text: boundText(text) }],
  isError: true
})

/**
 * A field's own message, as a whole sentence answered as it is (no "field: " prefix): a text, or a
 * function of the value given. Put it on a Schema with `.annotations(sentence(...))`.
 */
export const SentenceAnnotationId: unique symbol = Symbol.for("codex-replay/Sentence")
export type Sentence = string | ((actual: unknown) => string)
export const sentence = (message: Sentence) => ({ [SentenceAnnotationId]: message })

const sentenceOf = (ast: SchemaAST.Annotated): Sentence | undefined =>
  Option.getOrUndefined(SchemaAST.getAnnotation<Sentence>(ast, SentenceAnnotationId))

const actualOf = (issue: ParseResult.ParseIssue): unknown => ("actual" in issue ? issue.actual : undefined)

/**
 * The sentence annotated nearest the first failure on its way down from the field that failed; a
 * sentence on a struct speaks only for the struct itself, not for its fields.
 */
const annotatedSentence = (issue: ParseResult.ParseIssue, found: Sentence | undefined): string | undefined => {
  const own = "ast" in issue ? sentenceOf(issue.ast) ?? found : found
  switch (issue._tag) {
    case "Pointer":
      return annotatedSentence(issue.issue, undefined)
    case "Composite": {
      const first = Array.isArray(issue.issues) ? issue.issues[0] : issue.issues
      return first === undefined ? render(own, issue.actual) : annotatedSentence(first as ParseResult.ParseIssue, own) ?? render(own, issue.actual)
    }
    case "Refinement":
    case "Transformation":
      return annotatedSentence(issue.issue, own) ?? render(own, issue.actual)
    case "Missing":
      // A missing field: the sentence of the field's type, or of its property signature.
      return render(sentenceOf(issue.ast.type) ?? own, undefined)
    default:
      return render(own, actualOf(issue))
  }
}

const render = (message: Sentence | undefined, actual: unknown) =>
  message === undefined ? undefined : typeof message === "string" ? message : message(actual)

/**
 * One sentence for a payload that does not match its Schema: the field's own sentence when it has one,
 * else one naming the first offending field.
 */
export const describeParseError = (error: ParseResult.ParseError) => {
  const annotated = annotatedSentence(error.issue, undefined)
  if (annotated !== undefined) return boundText(annotated)
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

/**
 * What is wrong with a stored file that does not decode, in a phrase naming the first offending field
 * (`started_at is missing`, `phases has the wrong type or value`, `events is out of bounds`); the value is
 * never quoted.
 */
export const describeStoredIssue = (error: ParseResult.ParseError) => {
  const first = ParseResult.ArrayFormatter.formatErrorSync(error)[0]
  if (first === undefined) return "it does not have the expected shape"
  const field = excerpt(first.path.map(String).join("."))
  const name = field || "the file"
  if (first._tag === "Missing") return `${field || "a field"} is missing`
  if (first._tag === "Type") return `${name} has the wrong type or value`
  // A refinement of ours says what it wants in a phrase ("is not an ISO 8601 time"); Schema's own name the bound.
  if (first._tag === "Refinement") return /^(is|has) /.test(first.message) ? `${name} ${first.message}` : `${name} is out of bounds`
  const message = first.message.length <= 200 ? first.message : `${first.message.slice(0, 200)}…`
  return field === "" ? message : `${field}: ${message}`
}
