import { Effect } from "effect"
import { controllerError } from "../domain/errors.js"
import { RunStore } from "../services/RunStore.js"
import { openReportDownload } from "./reports.js"

/**
 * The directory of a run to read a report from: any run of the run root, whichever controller ran
 * it (runs belong to the run root), and a run without a state file (a report copied in by hand).
 */
export const reportRunDirectory = Effect.fn("reportRunDirectory")(function*(runId: string) {
  const runs = yield* RunStore
  if (runId === "") return yield* controllerError("run_id is required.")
  return yield* runs.existingDirectory(runId)
})

/** `POST /api/download`: the report of an owned run, as an attachment. */
export const reportDownload = (runId: unknown, format: unknown) =>
  Effect.gen(function*() {
    if (typeof runId !== "string") return yield* controllerError("run_id is required.")
    if (format !== "json" && format !== "html") return yield* controllerError("format must be json or html.")
    return yield* openReportDownload(yield* reportRunDirectory(runId), runId, format)
  })
