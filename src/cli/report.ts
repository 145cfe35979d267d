import { Effect, Either, Layer } from "effect"
import * as fs from "node:fs"
import { controllerError } from "../domain/errors.js"
import { isRunId } from "../domain/ids.js"
import { CoreLive } from "../layers.js"
import { locateReport } from "../programs/reports.js"
import { RunStore } from "../services/RunStore.js"
import { Settings } from "../services/Settings.js"
import { makeOutput, openWithDesktop } from "./terminal.js"

export interface ReportOptions {
  readonly runId: string
  readonly open: boolean
  readonly json: boolean
}

const ReportLive = CoreLive.pipe(Layer.provideMerge(Settings.fromEnv))

/** The real paths of a run's `report.html` and `report.json` (each inside the run directory), if written. */
export const reportPaths = (runId: string) =>
  Effect.gen(function*() {
    if (!isRunId(runId)) return yield* controllerError("The run ID is invalid.")
    const runs = yield* RunStore
    // Without a run root there is no run (resolving inside a missing root would blame containment).
    if (!fs.existsSync(runs.runRoot)) return yield* controllerError("The replay run is unavailable.")
    const directory = yield* runs.existingDirectory(runId)
    const html = yield* Effect.either(locateReport(directory, "html"))
    const json = yield* Effect.either(locateReport(directory, "json"))
    if (Either.isLeft(html) && Either.isLeft(json)) return yield* html.left
    return {
      run_id: runId,
      run_directory: directory,
      report_html: Either.isRight(html) ? html.right.path : null,
      report_json: Either.isRight(json) ? json.right.path : null
    }
  })

/** `codex-replay report <run-id> [--open]`: reads the run root directly, no controller needed. */
export const reportCommand = (options: ReportOptions) =>
  Effect.gen(function*() {
    const out = makeOutput(options.json)
    const found = yield* reportPaths(options.runId)
    if (options.open) {
      if (found.report_html === null) return yield* controllerError("The HTML report is not ready.")
      yield* openWithDesktop(found.report_html)
    }
    if (options.json) return yield* out.result({ ...found, opened: options.open })
    if (found.report_html !== null) yield* out.say(found.report_html)
    if (found.report_json !== null) yield* out.say(found.report_json)
  }).pipe(Effect.provide(ReportLive))
