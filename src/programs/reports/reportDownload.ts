import { Effect, Option } from "effect"
import * as path from "node:path"
import { RunState } from "../../domain/contracts/index.js"
import { conflict, invalidArgument, unreadableFile } from "../../domain/errors.js"
import { MAX_STATE_BYTES, STATE_FILE } from "../../domain/product.js"
import { FileStore } from "../../services/FileStore.js"
import { RunStore } from "../../services/RunStore.js"
import { openReportDownload } from "./reports.js"

/**
 * The directory of a run to read a report from: any run of the run root, whichever controller ran it
 * (runs belong to the run root). A report is ready only once its run completed: the run is marked
 * completed after both report files were written whole, so a run that ended any other way (killed
 * while reporting, say) has no report to serve, whatever files it left.
 */
export const reportRunDirectory = Effect.fn("reportRunDirectory")(function*(runId: string) {
  const runs = yield* RunStore
  const files = yield* FileStore
  if (runId === "") return yield* invalidArgument("run_id is required.")
  const directory = yield* runs.existingDirectory(runId)
  const state = yield* files.readDecodedOption(path.join(directory, STATE_FILE), MAX_STATE_BYTES, RunState).pipe(
    Effect.catchTag("UnreadableFile", (error) => unreadableFile(`The state of run ${runId} is damaged (${error.message})`))
  )
  if (Option.isNone(state) || state.value.status !== "completed") return yield* conflict("The replay report is not ready.")
  return directory
})

/** `POST /api/download`: the report of a completed run, as an attachment. */
export const reportDownload = (runId: unknown, format: unknown) =>
  Effect.gen(function*() {
    if (typeof runId !== "string") return yield* invalidArgument("run_id is required.")
    if (format !== "json" && format !== "html") return yield* invalidArgument("format must be json or html.")
    return yield* openReportDownload(yield* reportRunDirectory(runId), runId, format)
  })
