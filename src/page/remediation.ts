/** A capability gap's remediation, as a sentence instead of its internal identifier. */
export const REMEDIATIONS: Readonly<Record<string, string>> = {
  enable_web_search: "turn on web search for Codex (in ~/.codex/config.toml) so it can look things up as Claude did.",
  configure_mcp_server: "configure the same MCP servers for Codex that Claude used in this thread.",
  describe_images_in_request: "describe in the task prompt the images Claude was shown.",
  copy_claude_md_to_agents_md: "copy the project's CLAUDE.md instructions into an AGENTS.md file that Codex reads."
}

export const remediationText = (action: string) => REMEDIATIONS[action] ?? `${action.replace(/_/g, " ")}.`
