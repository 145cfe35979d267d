import type { Scope } from "effect"
import { prepareRunTool, startRunTool } from "./runs.js"
import { baseTools, type ControllerTool, type ToolRequirements } from "./controllerTools.js"
import {
  getReportTool,
  inferWorkingDirectoryTool,
  inspectThreadTool,
  listThreadsTool,
  synthesizeRequestTool
} from "./threadTools.js"

const tools = {
  ...baseTools,
  list_threads: listThreadsTool,
  inspect_thread: inspectThreadTool,
  synthesize_request: synthesizeRequestTool,
  infer_working_directory: inferWorkingDirectoryTool,
  get_report: getReportTool,
  prepare_run: prepareRunTool,
  start_run: startRunTool
}

export type ControllerToolRequirements = ToolRequirements<typeof tools>

/**
 * The daemon runs tools in its own services, not in a request's context (src/http/controllerApp.ts),
 * so none may need a Scope: it would get the daemon's. This line stops compiling if one does.
 */
export const toolsNeedNoScope: Scope.Scope extends ControllerToolRequirements ? never : true = true

/** Every controller tool of `/api/call`, by name. */
export const controllerTools: Record<string, ControllerTool<ControllerToolRequirements>> = tools
