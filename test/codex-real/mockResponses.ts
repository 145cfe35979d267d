import * as http from "node:http"
import type { AddressInfo } from "node:net"

/** A local stand-in for the OpenAI Responses API (protocol reference §5), scripted per request. */

export type SseEvent = { readonly type: string; readonly [key: string]: unknown }

export type MockReply =
  | { readonly kind: "sse"; readonly events: ReadonlyArray<SseEvent> }
  | { readonly kind: "status"; readonly status: number; readonly body: string }
  /** Accepts the request and never answers (until the server closes). */
  | { readonly kind: "hang" }

export interface MockResponses {
  readonly url: string
  /** The JSON bodies of every POST /responses so far. */
  readonly requests: Array<Record<string, unknown>>
  readonly close: () => Promise<void>
}

export const sse = (...events: ReadonlyArray<SseEvent>): MockReply => ({ kind: "sse", events })

export const created = (): SseEvent => ({ type: "response.created", response: { id: "resp_mock" } })

export const assistantMessage = (text: string): SseEvent => ({
  type: "response.output_item.done",
  item: { type: "message", role: "assistant", id: "msg_mock", content: [{ type: "output_text", text }] }
})

export const shellCall = (cmd: string): SseEvent => ({
  type: "response.output_item.done",
  item: { type: "function_call", id: "fc_mock", call_id: "call_mock", name: "exec_command", arguments: JSON.stringify({ cmd }) }
})

export const completed = (usage = { input: 100, cached: 40, output: 20, reasoning: 5 }): SseEvent => ({
  type: "response.completed",
  response: {
    id: "resp_mock",
    usage: {
      input_tokens: usage.input,
      input_tokens_details: { cached_tokens: usage.cached },
      output_tokens: usage.output,
      output_tokens_details: { reasoning_tokens: usage.reasoning },
      total_tokens: usage.input + usage.output
    }
  }
})

/** Serves `replies` in order; the last one repeats for any further request. */
export const startMockResponses = (replies: ReadonlyArray<MockReply>): Promise<MockResponses> => {
  const requests: Array<Record<string, unknown>> = []
  const sockets = new Set<import("node:net").Socket>()
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      if (request.method !== "POST" || !request.url?.endsWith("/responses")) {
        response.writeHead(404).end()
        return
      }
      try {
        requests.push(JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>)
      } catch {
        requests.push({})
      }
      const reply = replies[Math.min(requests.length - 1, replies.length - 1)]!
      if (reply.kind === "hang") return
      if (reply.kind === "status") {
        response.writeHead(reply.status, { "content-type": "application/json" }).end(reply.body)
        return
      }
      response.writeHead(200, { "content-type": "text/event-stream" })
      for (const event of reply.events) response.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`)
      response.end()
    })
  })
  server.on("connection", (socket) => {
    sockets.add(socket)
    socket.on("close", () => sockets.delete(socket))
  })
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      resolve({
        url: `http://127.0.0.1:${port}`,
        requests,
        close: () =>
          new Promise<void>((done) => {
            for (const socket of sockets) socket.destroy()
            server.close(() => done())
          })
      })
    })
  })
}
