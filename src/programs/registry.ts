import { baseTools, type ControllerTool, type ToolRequirements } from "./controllerTools.js"

const tools = {
  ...baseTools
}

export type ControllerToolRequirements = ToolRequirements<typeof tools>

/** Every controller tool of `/api/call`, by name. */
export const controllerTools: Record<string, ControllerTool<ControllerToolRequirements>> = tools
