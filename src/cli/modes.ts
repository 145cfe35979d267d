import { Effect } from "effect"
import { LauncherLive } from "../layers.js"
import { serveMcp } from "../mcp/server.js"

/** `codex-replay` with no arguments: the stdio MCP server. */
export const mcpMain = serveMcp.pipe(Effect.provide(LauncherLive))
