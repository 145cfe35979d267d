import type { Effect } from "effect"
import { cancelBatchTool, getBatchTool } from "./batches/tools.js"
import type { ToolRegistry } from "./controller/tool.js"
import { getStateTool } from "./controller/tools.js"
import { makePortfolioTool } from "./portfolio/tools.js"
import { getReportTool } from "./reports/tools.js"
import { cancelRunTool, getRunTool, listRunsTool, prepareRunTool, startRunTool } from "./runs/tools.js"
import {
  inferWorkingDirectoryTool,
  inspectThreadTool,
  listThreadsProgressTool,
  listThreadsTool,
  synthesizeRequestTool
} from "./threads/tools.js"
import { blindCandidatesTool, revealRunTool, submitVoteTool, voteStatusTool } from "./votes/tools.js"

const tools = {
  get_state: getStateTool,
  get_run: getRunTool,
  list_runs: listRunsTool,
  cancel_run: cancelRunTool,
  list_threads: listThreadsTool,
  list_threads_progress: listThreadsProgressTool,
  inspect_thread: inspectThreadTool,
  synthesize_request: synthesizeRequestTool,
  infer_working_directory: inferWorkingDirectoryTool,
  get_report: getReportTool,
  prepare_run: prepareRunTool,
  start_run: startRunTool,
  make_portfolio: makePortfolioTool,
  get_batch: getBatchTool,
  cancel_batch: cancelBatchTool,
  blind_candidates: blindCandidatesTool,
  submit_vote: submitVoteTool,
  reveal_run: revealRunTool,
  vote_status: voteStatusTool
}


type Tools = typeof tools
/** What the controller's tools need to run. */
export type ControllerToolRequirements = { [Name in keyof Tools]: Effect.Effect.Context<ReturnType<Tools[Name]["run"]>> }[keyof Tools]

/** Every controller tool of `/api/call` and `/api/rpc`, by name: one file of tools per feature folder. */
export const controllerTools: ToolRegistry<ControllerToolRequirements> = tools
