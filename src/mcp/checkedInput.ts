import {
  CallToolRequestSchema,
  InitializeRequestSchema,
  JSONRPCMessageSchema,
  ListToolsRequestSchema,
  PingRequestSchema
} from "@modelcontextprotocol/sdk/types.js"
import { StringDecoder } from "node:string_decoder"
import { Transform } from "node:stream"
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../domain/jsonDepth.js"

/**
 * The SDK's stdio transport drops a line it cannot read as a JSON-RPC message (the client waits forever), and
 * answers a request whose params its own schema refuses with "Internal error" and a dump of the schema's
 * complaint. In front of it, every line is checked first: one that is not a message, or a request whose params
 * are wrong, is answered here with JSON-RPC's own code and one sentence, and never reaches the SDK.
 */

/** As the SDK's own read buffer. */
const MAX_LINE_CHARS = 10 * 1024 * 1024

const PARSE_ERROR = -32700
const INVALID_REQUEST = -32600
const INVALID_PARAMS = -32602

const PARAMS: Readonly<Record<string, { readonly safeParse: (value: unknown) => { success: boolean; error?: unknown } }>> = {
  initialize: InitializeRequestSchema,
  "tools/list": ListToolsRequestSchema,
  "tools/call": CallToolRequestSchema,
  ping: PingRequestSchema
}

type Refusal = { readonly id: string | number | null; readonly code: number; readonly message: string }

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const idOf = (message: Record<string, unknown>) =>
  typeof message.id === "string" || (typeof message.id === "number" && Number.isFinite(message.id)) ? message.id : null

/** The first thing a schema refused, as `params.name: Expected string, received number`. */
const firstIssue = (error: unknown) => {
  const issue = (error as { issues?: ReadonlyArray<{ path?: ReadonlyArray<unknown>; message?: string }> }).issues?.[0]
  const where = issue?.path?.length ? `${issue.path.join(".")}: ` : ""
  return `${where}${issue?.message ?? "not as the method expects"}`.replace(/\.?$/, ".")
}

/** Why a line is not a message the SDK should see, or undefined when it is one. */
export const refusalOf = (line: string): Refusal | undefined => {
  if (nestsDeeperThan(line)) return { id: null, code: INVALID_REQUEST, message: `Invalid request: it nests deeper than ${MAX_JSON_DEPTH} levels.` }
  let value: unknown
  try {
    value = JSON.parse(line)
  } catch {
    return { id: null, code: PARSE_ERROR, message: "Parse error: the line is not JSON." }
  }
  if (!isObject(value)) return { id: null, code: INVALID_REQUEST, message: "Invalid request: a message must be a JSON object." }
  const id = idOf(value)
  if (value.jsonrpc !== "2.0") return { id, code: INVALID_REQUEST, message: "Invalid request: \"jsonrpc\" must be \"2.0\"." }
  const isResponse = "result" in value || "error" in value
  if (!isResponse && typeof value.method !== "string") {
    return { id, code: INVALID_REQUEST, message: "Invalid request: \"method\" must be a string." }
  }
  if ("params" in value && !isObject(value.params)) {
    return { id, code: INVALID_PARAMS, message: "Invalid params: \"params\" must be an object." }
  }
  if (!JSONRPCMessageSchema.safeParse(value).success) {
    return { id, code: INVALID_REQUEST, message: "Invalid request: it is not a JSON-RPC request, notification or response." }
  }
  const schema = typeof value.method === "string" && id !== null ? PARAMS[value.method] : undefined
  const checked = schema?.safeParse(value)
  if (checked !== undefined && !checked.success) return { id, code: INVALID_PARAMS, message: `Invalid params: ${firstIssue(checked.error)}` }
  return undefined
}

/**
 * The MCP input, checked line by line: what passes goes on to the SDK's transport unchanged; what does not is
 * answered through `answer` (stdout) with a JSON-RPC error.
 */
export const checkedInput = (answer: (text: string) => void) => {
  const decoder = new StringDecoder("utf8")
  let pending = ""
  // A line past the limit is answered once and dropped up to its end.
  let skipping = false
  const refuse = (refusal: Refusal) =>
    answer(`${JSON.stringify({ jsonrpc: "2.0", id: refusal.id, error: { code: refusal.code, message: refusal.message } })}\n`)
  const pass = (stream: Transform, line: string) => {
    if (skipping) return void (skipping = false)
    if (line.trim() === "") return
    const refusal = refusalOf(line)
    if (refusal === undefined) return void stream.push(`${line}\n`)
    refuse(refusal)
  }
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      pending += decoder.write(chunk)
      let newline = pending.indexOf("\n")
      while (newline >= 0) {
        pass(this, pending.slice(0, newline).replace(/\r$/, ""))
        pending = pending.slice(newline + 1)
        newline = pending.indexOf("\n")
      }
      if (pending.length > MAX_LINE_CHARS) {
        if (!skipping) refuse({ id: null, code: INVALID_REQUEST, message: "Invalid request: a message is larger than 10 MiB." })
        skipping = true
        pending = ""
      }
      done()
    },
    flush(done) {
      pass(this, pending + decoder.end())
      pending = ""
      done()
    }
  })
}
