import { Effect } from "effect"
/** The run tools: `get_run`, `list_runs`, `cancel_run`, and `prepare_run` and `start_run` of one configuration or a batch. */
import { type PrepareResult, type StartResult } from "../../domain/contracts/index.js"
import { prepareBatch } from "../batches/prepare.js"
import { startBatch } from "../batches/start.js"
import { defineTool } from "../controller/tool.js"
import { cancelRun, cancelRunText, getRun } from "./cancel.js"
import { listRuns, listRunsText, supervisionText } from "./history.js"
import { prepareRun } from "./prepare.js"
import { startRun } from "./start.js"

export const getRunTool = defineTool(
  "get_run",
  ({ run_id }) => getRun(run_id),
  ({ run }) => `Replay ${run.run_id} is ${run.status}.${supervisionText(run.supervision)}`
)

export const listRunsTool = defineTool("list_runs", listRuns, listRunsText)

export const cancelRunTool = defineTool("cancel_run", ({ run_id }) => cancelRun(run_id), cancelRunText)

const prepareText = (result: PrepareResult) => {
  const estimate = result.ready && result.estimate !== undefined ? `\n${result.estimate.text}` : ""
  return prepareSentence(result) + estimate
}

const prepareSentence = (result: PrepareResult) => {
  if ("batch" in result) {
    return [
      result.ready ? result.approval_prompt : "The batch is blocked: every configuration is blocked.",
      ...result.blocked.map((entry) => `Blocked: ${entry.thread_id}: ${entry.reasons.join(" ")}`)
    ].join("\n")
  }
  return result.ready ? result.approval_prompt ?? "The replay is ready for approval." : `The replay is blocked: ${result.blockers.join(" ")}`
}

/** `prepare_run`: one configuration, or a batch (`configurations`). */
export const prepareRunTool = defineTool(
  "prepare_run",
  (payload) =>
    Effect.gen(function*() {
      const result: PrepareResult = "configurations" in payload ? yield* prepareBatch(payload) : yield* prepareRun(payload)
      return result
    }),
  prepareText
)

const startText = (result: StartResult) => {
  if ("batch_id" in result) {
    return result.idempotent ? `Batch ${result.batch_id} was already started.` : `Started batch ${result.batch_id}: ${result.batch.total} replay(s).`
  }
  return result.idempotent
    ? "These replays were already started."
    : `Started ${result.runs.length} replay run(s)${result.errors.length > 0 ? `; ${result.errors.length} failed to launch` : ""}.`
}

/** `start_run`: one approved configuration, or a prepared batch (`configurations`). */
export const startRunTool = defineTool(
  "start_run",
  (payload) =>
    Effect.gen(function*() {
      const result: StartResult = "configurations" in payload ? yield* startBatch(payload) : yield* startRun(payload)
      return result
    }),
  startText
)
