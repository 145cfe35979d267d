import { Effect } from "effect"
import { conflict, invalidArgument } from "../../domain/errors.js"
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
  if (runId === "") return yield* invalidArgument("run_id is required.")
  const directory = yield* runs.existingDirectory(runId)
  // The state as the store knows it: decoded, naming its own directory, or a final state the disk has not taken yet.
  const state = yield* runs.readAny(runId).pipe(
    Effect.map(({ state }) => state),
    Effect.catchTag("NotFound", () => conflict("The replay report is not ready."))
  )
  if (state.status !== "completed") return yield* conflict("The replay report is not ready.")
  return directory
})

/** `POST /api/download`: the report of a completed run, as an attachment. */
export const reportDownload = (runId: unknown, format: unknown) =>
  Effect.gen(function*() {
    if (typeof runId !== "string") return yield* invalidArgument("run_id is required.")
    if (format !== "json" && format !== "html") return yield* invalidArgument("format must be json or html.")
    return yield* openReportDownload(yield* reportRunDirectory(runId), runId, format)
  })
