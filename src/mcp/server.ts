import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import { type CallToolResult, CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { Effect, Runtime } from "effect"
import { homedir } from "node:os"
import { SERVER_NAME, VERSION } from "../domain/product.js"
import { toolFailure } from "../domain/toolResult.js"
import { openController } from "../programs/openController.js"
import type { ControllerClient } from "../services/ControllerClient.js"
import type { FileStore } from "../services/FileStore.js"

export const OPEN_CONTROLLER_TOOL = {
  name: "open_controller",
  description: "Start the local Codex Replay browser controller for this session and return its URL.",
  inputSchema: {
    type: "object",
    properties: {
      controller_session_id: { type: "string", pattern: "^[a-f0-9]{32}$" },
      codex_cli_path: { type: "string" }
    },
    required: ["controller_session_id"],
    additionalProperties: false
  },
  annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false }
} as const

/**
 * The stdio MCP server (SPEC §4): one tool, `open_controller`. The official SDK handles
 * `initialize` version negotiation, `ping`, notifications and unknown methods; stdout carries
 * nothing but its JSON-RPC messages.
 */
export const serveMcp = Effect.gen(function*() {
  const runtime = yield* Effect.runtime<FileStore | ControllerClient>()
  const server = new Server({ name: SERVER_NAME, version: VERSION }, { capabilities: { tools: {} } })

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [OPEN_CONTROLLER_TOOL] }))
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const result = request.params.name === OPEN_CONTROLLER_TOOL.name
      ? await Runtime.runPromise(runtime)(openController(request.params.arguments ?? {}, process.env, homedir()))
      : toolFailure(`Only ${OPEN_CONTROLLER_TOOL.name} is exposed through MCP.`)
    return { ...result, content: [...result.content] }
  })

  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve()
  })
  process.stdin.once("end", () => void server.close())
  yield* Effect.promise(() => server.connect(new StdioServerTransport()))
  yield* Effect.promise(() => closed)
})
