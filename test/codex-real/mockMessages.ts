import * as http from "node:http"
import type { AddressInfo } from "node:net"

/**
 * A local stand-in for the Anthropic Messages API, as far as Claude Code drives it for a judge: every
 * POST /v1/messages is answered (streamed, as Claude Code asks) with a call of the StructuredOutput tool
 * whose input is a ballot built from that tool's own input schema, favouring the candidate whose part of
 * the prompt holds `prefer` more often.
 */
export interface MockMessages {
  readonly url: string
  /** Every request: its method, path and JSON body. */
  readonly requests: Array<{ readonly method: string; readonly path: string; readonly body: Record<string, any> }>
  readonly close: () => Promise<void>
}

export const MOCK_USAGE = { input_tokens: 1500, output_tokens: 400, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 }

type Json = Record<string, any>

const textOf = (body: Json): string =>
  (body.messages ?? []).flatMap((message: Json) =>
    typeof message.content === "string" ? [message.content] : (message.content ?? []).map((part: Json) => part.text ?? "")).join("\n")

const section = (prompt: string, letter: string) => {
  const start = prompt.indexOf(`=== Candidate ${letter} ===`)
  if (start < 0) return ""
  const next = prompt.indexOf("=== Candidate ", start + 10)
  return prompt.slice(start, next < 0 ? undefined : next)
}

const ballotFrom = (schema: Json, preferred: "A" | "B") => {
  const dimensions: Json = {}
  for (const [id, dimension] of Object.entries<Json>(schema.properties.dimensions.properties)) {
    const checks = Object.keys(dimension.properties.candidates.properties.A.properties.checks.properties)
    const side = (letter: string) => ({
      checks: Object.fromEntries(checks.map((check) => [check, { evidence: `Candidate ${letter}, ${check}`, result: letter === preferred ? 1 : 0 }])),
      score: letter === preferred ? 1 : 0
    })
    dimensions[id] = {
      candidates: { A: side("A"), B: side("B") },
      comparison: `Candidate ${preferred} does better.`,
      reason: `Candidate ${preferred} satisfies every check.`,
      winner: preferred
    }
  }
  return { dimensions }
}

export const startMockMessages = (prefer: string): Promise<MockMessages> => {
  const requests: MockMessages["requests"] = []
  const server = http.createServer((request, response) => {
    let raw = ""
    request.on("data", (chunk: Buffer) => void (raw += chunk.toString("utf8")))
    request.on("end", () => {
      const body = raw === "" ? {} : JSON.parse(raw) as Json
      const pathname = (request.url ?? "").split("?")[0] ?? ""
      requests.push({ method: request.method ?? "", path: pathname, body })
      if (request.method !== "POST" || pathname !== "/v1/messages") {
        response.writeHead(404, { "content-type": "application/json" })
        response.end(JSON.stringify({ type: "error", error: { type: "not_found_error", message: "not here" } }))
        return
      }
      const tool = (body.tools ?? []).find((entry: Json) => entry.name === "StructuredOutput")
      const prompt = textOf(body)
      const count = (letter: string) => section(prompt, letter).split(prefer).length - 1
      const content = tool === undefined
        ? [{ type: "text", text: "No output tool was offered." }]
        : [{ type: "tool_use", id: "toolu_mock", name: "StructuredOutput", input: ballotFrom(tool.input_schema, count("A") >= count("B") ? "A" : "B") }]
      const message = { id: "msg_mock", type: "message", role: "assistant", model: body.model, content, stop_reason: tool === undefined ? "end_turn" : "tool_use", stop_sequence: null, usage: MOCK_USAGE }
      if (body.stream !== true) {
        response.writeHead(200, { "content-type": "application/json" })
        response.end(JSON.stringify(message))
        return
      }
      response.writeHead(200, { "content-type": "text/event-stream" })
      const event = (type: string, data: Json) => response.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`)
      event("message_start", { message: { ...message, content: [], stop_reason: null, usage: { ...MOCK_USAGE, output_tokens: 1 } } })
      content.forEach((block: Json, index) => {
        if (block.type === "text") {
          event("content_block_start", { index, content_block: { type: "text", text: "" } })
          event("content_block_delta", { index, delta: { type: "text_delta", text: block.text } })
        } else {
          event("content_block_start", { index, content_block: { type: "tool_use", id: block.id, name: block.name, input: {} } })
          event("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) } })
        }
        event("content_block_stop", { index })
      })
      event("message_delta", { delta: { stop_reason: message.stop_reason, stop_sequence: null }, usage: { output_tokens: MOCK_USAGE.output_tokens } })
      event("message_stop", {})
      response.end()
    })
  })
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      resolve({
        url: `http://127.0.0.1:${port}`,
        requests,
        close: () => new Promise((done) => {
          server.closeAllConnections()
          server.close(() => done())
        })
      })
    })
  })
}
