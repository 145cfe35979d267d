/** The report tool: `get_report`. */
import { Effect } from "effect"
import { defineTool } from "../controller/tool.js"
import { reportRunDirectory } from "./reportDownload.js"
import { getReport, getReportText } from "./reports.js"

export const getReportTool = defineTool(
  "get_report",
  (payload) => Effect.flatMap(reportRunDirectory(payload.run_id), (directory) => getReport(directory, payload)),
  getReportText
)
