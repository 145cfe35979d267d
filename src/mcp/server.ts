import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import { type CallToolResult, CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { Effect, Runtime } from "effect"
import { homedir } from "node:os"
import { SERVER_NAME } from "../domain/product.js"
import { VERSION } from "../services/internal/packageInfo.js"
import { toolFailure } from "../domain/toolResult.js"
import { openController } from "../programs/controller/openController.js"
import type { ControllerClient } from "../services/ControllerClient.js"
import type { FileStore } from "../services/FileStore.js"

export const OPEN_CONTROLLER_TOOL = {
  name: "open_controller",
  description:
    "Start the local Codex Replay browser controller (a daemon on 127.0.0.1) for this Codex session and return its URL for the user to open. Codex Replay replays a past Claude Code task with Codex models and compares the results in a blind review. Call it once per controller session id: a retry with the same id answers the same URL while that controller lives, and is refused otherwise. It never opens a browser.",
  inputSchema: {
    type: "object",
    properties: {
      controller_session_id: {
        type: "string",
        pattern: "^[a-f0-9]{32}$",
        description:
          "A new random id for this launch: exactly 32 lowercase hexadecimal characters (16 random bytes), for example from `openssl rand -hex 16`. Use a fresh id for each new controller; the same id is used only once."
      },
      codex_cli_path: {
        type: "string",
        description:
          "Optional absolute path of the Codex executable the replays should drive (an executable file). Leave it out to use CODEX_CLI_PATH from the environment, or else `codex` on PATH."
      }
    },
    required: ["controller_session_id"],
    additionalProperties: false
  },
  annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false }
} as const

/**
 * The stdio MCP server (README.md#ways-in): one tool, `open_controller`. The official SDK handles
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
