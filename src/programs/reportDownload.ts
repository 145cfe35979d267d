import { Effect, Option } from "effect"
import * as path from "node:path"
import { controllerError } from "../domain/errors.js"
import { MAX_STATE_BYTES, STATE_FILE } from "../domain/product.js"
import type { Download } from "../http/controllerApp.js"
import { FileStore } from "../services/FileStore.js"
import { RunStore } from "../services/RunStore.js"
import { Settings } from "../services/Settings.js"

export const REPORT_FORMATS = {
  json: "application/json; charset=utf-8",
  html: "text/html; charset=utf-8"
} as const
export type ReportFormat = keyof typeof REPORT_FORMATS

export const isReportFormat = (value: unknown): value is ReportFormat =>
  typeof value === "string" && Object.hasOwn(REPORT_FORMATS, value)

export const reportFileName = (runId: string, format: ReportFormat) => `codex-replay-${runId}-report.${format}`

/**
 * The directory of a run this controller may read a report from: a run without a state file is
 * allowed (a report copied in by hand), a run owned by another controller is not.
 */
export const reportRunDirectory = Effect.fn("reportRunDirectory")(function*(runId: string) {
  const runs = yield* RunStore
  const files = yield* FileStore
  const settings = yield* Settings
  const directory = yield* runs.existingDirectory(runId)
  const state = yield* files.readJsonOption(path.join(directory, STATE_FILE), MAX_STATE_BYTES)
  if (Option.isSome(state) && state.value.controller_session_id !== settings.controllerSessionId) {
    return yield* controllerError("The replay belongs to a different controller session.")
  }
  return directory
})

/** A report file inside its run directory, never through a symlink leading out. */
export const reportPath = Effect.fn("reportPath")(function*(directory: string, format: ReportFormat) {
  const files = yield* FileStore
  const file = yield* files.resolveInside(directory, `report.${format}`).pipe(
    Effect.mapError(() => controllerError("The replay report is outside its run directory."))
  )
  if (!(yield* files.exists(file))) return yield* controllerError("The replay report is not ready.")
  return file
})

export const reportDownload = (runId: unknown, format: unknown) =>
  Effect.gen(function*() {
    if (typeof runId !== "string") return yield* controllerError("run_id is required.")
    if (!isReportFormat(format)) return yield* controllerError("format must be json or html.")
    const directory = yield* reportRunDirectory(runId)
    const file = yield* reportPath(directory, format)
    return { path: file, contentType: REPORT_FORMATS[format], fileName: reportFileName(runId, format) } satisfies Download
  })
