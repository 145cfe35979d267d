import { makePortfolioTool } from "./portfolio.js"
import { prepareRunTool, startRunTool } from "./runs.js"
import { baseTools, type ControllerTool, type ToolRequirements } from "./controllerTools.js"
import {
  getReportTool,
  inferWorkingDirectoryTool,
  inspectThreadTool,
  listThreadsProgressTool,
  listThreadsTool,
  synthesizeRequestTool
} from "./threadTools.js"

const tools = {
  ...baseTools,
  list_threads: listThreadsTool,
  list_threads_progress: listThreadsProgressTool,
  inspect_thread: inspectThreadTool,
  synthesize_request: synthesizeRequestTool,
  infer_working_directory: inferWorkingDirectoryTool,
  get_report: getReportTool,
  prepare_run: prepareRunTool,
  start_run: startRunTool,
  make_portfolio: makePortfolioTool
}

export type ControllerToolRequirements = ToolRequirements<typeof tools>

/** Every controller tool of `/api/call`, by name. */
export const controllerTools: Record<string, ControllerTool<ControllerToolRequirements>> = tools
