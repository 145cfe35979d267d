import { contentBlocks, imageCount, isSidechain, type SessionEntry, typeOf } from "./entries.js"
import { stringField } from "./json.js"

export type CapabilityStatus = "available" | "partial" | "not_available"

export interface Capability {
  readonly name: string
  readonly title: string
  readonly status: CapabilityStatus
  readonly guidance: string
  readonly remediation_action?: string
}

/** What the repository holds at the starting state; undefined when it could not be checked. */
export interface ProjectInstructions {
  readonly claudeMd: boolean
  readonly agentsMd: boolean
  readonly where: string
}

export interface CapabilityEvidence {
  readonly toolNames: ReadonlySet<string>
  readonly mcpServers: ReadonlyMap<string, ReadonlySet<string>>
  readonly images: number
  readonly planMode: boolean
  readonly subagents: boolean
}

const MCP_TOOL = /^mcp__(.+?)__(.+)$/

export const capabilityEvidence = (entries: ReadonlyArray<SessionEntry>, subagentFiles: number): CapabilityEvidence => {
  const toolNames = new Set<string>()
  const mcpServers = new Map<string, Set<string>>()
  let images = 0
  let planMode = false
  let subagents = subagentFiles > 0
  for (const entry of entries) {
    if (isSidechain(entry) && entry.origin !== "warmup") subagents = true
    if (stringField(entry.raw, "permissionMode") === "plan") planMode = true
    const type = typeOf(entry)
    if (type === "user" && !isSidechain(entry)) images += imageCount(entry)
    if (type !== "assistant") continue
    for (const block of contentBlocks(entry)) {
      const name = stringField(block, "name")
      if ((block.type !== "tool_use" && block.type !== "server_tool_use") || name === undefined) continue
      toolNames.add(name)
      const mcp = MCP_TOOL.exec(name)
      if (mcp !== null) {
        const tools = mcpServers.get(mcp[1]!) ?? new Set<string>()
        tools.add(mcp[2]!)
        mcpServers.set(mcp[1]!, tools)
      }
    }
  }
  if (toolNames.has("ExitPlanMode") || toolNames.has("EnterPlanMode")) planMode = true
  if (toolNames.has("Task") || toolNames.has("Agent")) subagents = true
  return { toolNames, mcpServers, images, planMode, subagents }
}

const WEB_TOOLS = ["WebSearch", "WebFetch", "web_search", "web_fetch"]

/** What Claude used that the Codex replay may lack, so the comparison can be judged fairly. */
export const assessCapabilities = (
  evidence: CapabilityEvidence,
  instructions: ProjectInstructions | undefined
): Array<Capability> => {
  const items: Array<Capability> = []
  const web = WEB_TOOLS.filter((tool) => evidence.toolNames.has(tool))
  if (web.length > 0) {
    items.push({
      name: "web_access",
      title: "Web search and fetch",
      status: "partial",
      guidance: `Claude used ${web.join(" and ")}. The replay runs with network access, but Codex's web search ` +
        "returns different results, and pages may have changed since.",
      remediation_action: "enable_web_search"
    })
  }
  for (const [server, tools] of evidence.mcpServers) {
    items.push({
      name: `mcp:${server}`,
      title: `MCP server "${server}"`,
      status: "not_available",
      guidance: `Claude called ${[...tools].sort().join(", ")} through the "${server}" MCP server. ` +
        "The replay has no MCP servers unless you configure the same server for Codex.",
      remediation_action: "configure_mcp_server"
    })
  }
  if (evidence.subagents) {
    items.push({
      name: "subagents",
      title: "Sub-agents",
      status: "partial",
      guidance: "Claude delegated work to sub-agents. Codex does the same work in one agent; the result is " +
        "comparable, the way it was reached is not."
    })
  }
  if (evidence.images > 0) {
    items.push({
      name: "images",
      title: "Images in the prompt",
      status: "not_available",
      guidance: `The request included ${evidence.images} image(s). The replay receives the text only, ` +
        "so Codex cannot see what Claude saw.",
      remediation_action: "describe_images_in_request"
    })
  }
  if (evidence.planMode) {
    items.push({
      name: "plan_mode",
      title: "Plan mode",
      status: "partial",
      guidance: "Claude planned in plan mode and waited for approval before editing. The replay runs " +
        "without that approval step."
    })
  }
  if (instructions !== undefined && instructions.claudeMd && !instructions.agentsMd) {
    items.push({
      name: "project_instructions",
      title: "CLAUDE.md without AGENTS.md",
      status: "partial",
      guidance: `${instructions.where} has a CLAUDE.md but no AGENTS.md. Claude read those project ` +
        "instructions; Codex reads AGENTS.md and will not see them.",
      remediation_action: "copy_claude_md_to_agents_md"
    })
  }
  return items
}
