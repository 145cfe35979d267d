import { makePortfolioTool } from "./portfolio/portfolio.js"
import { cancelBatchTool, getBatchTool, getStateWithBatch, prepareRunOrBatchTool, startRunOrBatchTool } from "./batches/start.js"
import { baseTools, type ControllerTool, type ToolRequirements } from "./controller/tool.js"
import {
  getReportTool,
  inferWorkingDirectoryTool,
  inspectThreadTool,
  listThreadsProgressTool,
  listThreadsTool,
  synthesizeRequestTool
} from "./threads/tools.js"

const tools = {
  ...baseTools,
  get_state: getStateWithBatch,
  list_threads: listThreadsTool,
  list_threads_progress: listThreadsProgressTool,
  inspect_thread: inspectThreadTool,
  synthesize_request: synthesizeRequestTool,
  infer_working_directory: inferWorkingDirectoryTool,
  get_report: getReportTool,
  prepare_run: prepareRunOrBatchTool,
  start_run: startRunOrBatchTool,
  make_portfolio: makePortfolioTool,
  get_batch: getBatchTool,
  cancel_batch: cancelBatchTool
}

export type ControllerToolRequirements = ToolRequirements<typeof tools>

/** Every controller tool of `/api/call`, by name. */
export const controllerTools: Record<string, ControllerTool<ControllerToolRequirements>> = tools
