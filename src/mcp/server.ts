import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import { type CallToolResult, CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { Effect, JSONSchema, Runtime } from "effect"
import { OpenControllerArguments } from "../domain/contracts/index.js"
import { homedir } from "node:os"
import { SERVER_NAME } from "../domain/product.js"
import { VERSION } from "../services/internal/packageInfo.js"
import { boundText } from "../domain/toolResult.js"
import { checkedInput } from "./checkedInput.js"
import { openController, openControllerText } from "../programs/controller/openController.js"
import type { ControllerClient } from "../services/ControllerClient.js"
import type { FileStore } from "../services/FileStore.js"

/** The tool's input schema, derived from the Schema its arguments are decoded with. */
const { $schema: _draft, ...inputSchema } = JSONSchema.make(OpenControllerArguments)

export const OPEN_CONTROLLER_TOOL = {
  name: "open_controller",
  description:
    "Start the local Codex Replay browser controller (a daemon on 127.0.0.1) for this Codex session and return its URL for the user to open. Codex Replay replays a past Claude Code task with Codex models and compares the results in a blind review. Call it once per controller session id: a retry with the same id answers the same URL while that controller lives, and is refused otherwise. It never opens a browser.",
  inputSchema: { ...inputSchema, type: "object" as const },
  annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false }
}

/** `open_controller`'s answer as MCP shows it: the text and the typed result, or the refusal. */
const callOpenController = (args: unknown) =>
  Effect.match(openController(args, process.env, homedir()), {
    onFailure: refusal,
    onSuccess: (result): CallToolResult => ({
      content: [{ type: "text", text: boundText(openControllerText(result)) }],
      structuredContent: { ...result }
    })
  })

const refusal = (text: string): CallToolResult => ({ content: [{ type: "text", text: boundText(text) }], isError: true })

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
    return request.params.name === OPEN_CONTROLLER_TOOL.name
      ? await Runtime.runPromise(runtime)(callOpenController(request.params.arguments ?? {}))
      : refusal(`Only ${OPEN_CONTROLLER_TOOL.name} is exposed through MCP.`)
  })

  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve()
  })
  process.stdin.once("end", () => void server.close())
  const input = process.stdin.pipe(checkedInput((text) => void process.stdout.write(text)))
  yield* Effect.promise(() => server.connect(new StdioServerTransport(input, process.stdout)))
  yield* Effect.promise(() => closed)
})
