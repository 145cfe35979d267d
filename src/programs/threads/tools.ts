import { Effect } from "effect"
import { Activity } from "../../services/Activity.js"
import { defineTool } from "../controller/tool.js"
import { inferWorkingDirectory } from "./requestSynthesis.js"
import { decodeReconstructionArguments, reconstructTask, synthesisModel } from "./taskReconstruction.js"
import { ClaudeHistory } from "../../services/history/ClaudeHistory.js"
import { listThreads, listThreadsText, readingMessage } from "./threadList.js"
import { inspectThread, inspectThreadText, threadRecordById } from "./threads.js"

export const listThreadsTool = defineTool("list_threads", listThreads, listThreadsText)

/** How far a cold listing is: the page polls it while `list_threads` reads the history the first time. */
export const listThreadsProgressTool = defineTool(
  "list_threads_progress",
  () =>
    Effect.gen(function*() {
      const progress = yield* (yield* ClaudeHistory).listingProgress
      return { ...progress, message: progress.reading ? readingMessage(progress.done, progress.total) : null }
    }),
  (result) => result.message ?? "The history is not being read."
)

export const inspectThreadTool = defineTool("inspect_thread", inspectThread, inspectThreadText)

export const synthesizeRequestTool = defineTool("synthesize_request", (payload) =>
  Effect.gen(function*() {
    const activity = yield* Activity
    const { threadId, range } = yield* decodeReconstructionArguments(payload)
    return yield* activity.track(reconstructTask(threadId, range))
  }), (result) => result.cached === true ? "Task prompt answered from the cache." : "Task prompt reconstruction finished.")

export const inferWorkingDirectoryTool = defineTool("infer_working_directory", ({ thread_id }) =>
  Effect.gen(function*() {
    const activity = yield* Activity
    const record = yield* threadRecordById(thread_id)
    const model = yield* synthesisModel
    const result = yield* activity.track(inferWorkingDirectory({
      thread_id,
      turns: record.prompt_reconstruction_turns,
      truncated: record.prompt_reconstruction_truncated,
      ...(record.project_dir ? { recorded_cwd: record.project_dir } : {}),
      observed_project_directories: record.project_dirs,
      observed_changed_files: record.historical_changed_files.map((file) => file.path),
      ...(model === undefined ? {} : { model })
    }))
    return result
  }), () => "Replay working directory inferred.")


