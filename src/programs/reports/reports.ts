import { Effect, Schema } from "effect"
import * as path from "node:path"
import { GetReportPayload, ReplayReport, ReportFormat } from "../../domain/contracts/index.js"
import { caveatsOfReport } from "../../domain/report/caveats.js"
import { conflict, type ControllerError, invalidArgument, notFound, unreadableFile } from "../../domain/errors.js"
import { describeParseError } from "../../domain/toolResult.js"
import { FileStore } from "../../services/FileStore.js"

export { GetReportPayload, ReportFormat } from "../../domain/contracts/index.js"

export const REPORT_MIME_TYPES: Record<ReportFormat, string> = { json: "application/json", html: "text/html" }
export const REPORT_CONTENT_TYPES: Record<ReportFormat, string> = {
  json: "application/json; charset=utf-8",
  html: "text/html; charset=utf-8"
}

export const reportFileName = (runId: string, format: ReportFormat) => `codex-replay-${runId}-report.${format}`

/** Validates `get_report` arguments into a clear user error. */
export const decodeGetReportPayload = (argumentsValue: unknown): Effect.Effect<GetReportPayload, ControllerError> =>
  Schema.decodeUnknown(GetReportPayload)(argumentsValue).pipe(
    Effect.mapError((error) => invalidArgument(describeParseError(error)))
  )

const OUTSIDE = "The replay report is outside its run directory."
const NOT_READY = "The replay report is not ready."
const NOT_JSON = "The run's report.json is not valid JSON (damaged or cut short); download report.html instead, or replay the thread again."
const NOT_A_REPORT = "The run's report.json is not a replay report (damaged); download report.html instead, or replay the thread again."

/**
 * The real path of `report.<format>` in a run directory the caller already resolved and checked:
 * it must be a regular file whose real location is inside the run directory (no symlink leading out).
 */
export const locateReport = (runDirectory: string, format: ReportFormat) =>
  Effect.flatMap(FileStore, (files) => files.locateFileInside(runDirectory, `report.${format}`)).pipe(
    Effect.mapError(() => conflict(NOT_READY)),
    Effect.flatMap((found) =>
      found._tag === "Found"
        ? Effect.succeed({ path: found.path, size: found.size })
        : Effect.fail(found._tag === "Outside" ? invalidArgument(OUTSIDE) : conflict(NOT_READY)))
  )

export interface ReportDownload {
  /** The file to stream (its real path, inside the run directory). */
  readonly path: string
  readonly size: number
  readonly contentType: string
  readonly fileName: string
}

/**
 * `POST /api/download` (docs/controller.md): the report file to send as an attachment, without a size cap.
 * `runDirectory` has been resolved and ownership-checked by the caller.
 */
export const openReportDownload = Effect.fn("reports.openReportDownload")(function*(
  runDirectory: string,
  runId: string,
  format: ReportFormat
) {
  const found = yield* locateReport(runDirectory, format)
  return {
    path: found.path,
    size: found.size,
    contentType: REPORT_CONTENT_TYPES[format],
    fileName: reportFileName(runId, format)
  } satisfies ReportDownload
})

/** The whole report, never through a link; reports have no size limit here. */
const readWhole = (file: string, format: ReportFormat) =>
  Effect.flatMap(FileStore, (files) => files.readBounded(file, Number.MAX_SAFE_INTEGER)).pipe(
    Effect.mapError(() => notFound(`The ${format.toUpperCase()} replay report is unavailable.`))
  )

const parseReport = (text: string) =>
  Effect.try({
    try: () => JSON.parse(text) as unknown,
    catch: () => unreadableFile(NOT_JSON)
  }).pipe(
    Effect.filterOrFail(
      (value): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value),
      () => unreadableFile(NOT_JSON)
    ),
    Effect.flatMap((value) => Effect.mapError(Schema.decodeUnknown(ReplayReport)(value), () => unreadableFile(NOT_A_REPORT)))
  )

export type GetReportResult =
  | { readonly report: ReplayReport; readonly report_json: string; readonly report_html: string }
  | {
    readonly artifact_content: string
    readonly artifact_format: ReportFormat
    readonly artifact_mime_type: string
    readonly artifact_file_name: string
  }

/**
 * The `get_report` tool (docs/controller.md) for a run directory the caller resolved and ownership-checked.
 * Without a format: the parsed report and both paths; with one: exactly the artifact fields.
 * Reports have no size limit here (they can exceed 19 MiB).
 */
export const getReport = Effect.fn("reports.getReport")(function*(runDirectory: string, argumentsValue: unknown) {
  const payload = yield* decodeGetReportPayload(argumentsValue)
  const reportJson = yield* locateReport(runDirectory, "json")
  if (payload.format === undefined) {
    const report = yield* parseReport(yield* readWhole(reportJson.path, "json"))
    return {
      // A report written before its caveats were recorded gets them derived, in the same words.
      report: { ...report, caveats: caveatsOfReport(report) },
      report_json: path.join(runDirectory, "report.json"),
      report_html: path.join(runDirectory, "report.html")
    } satisfies GetReportResult
  }
  const artifact = yield* locateReport(runDirectory, payload.format)
  return {
    artifact_content: yield* readWhole(artifact.path, payload.format),
    artifact_format: payload.format,
    artifact_mime_type: REPORT_MIME_TYPES[payload.format],
    artifact_file_name: reportFileName(payload.run_id, payload.format)
  } satisfies GetReportResult
})

/** The one-line text of a `get_report` answer. */
export const getReportText = (result: GetReportResult) =>
  "artifact_format" in result ? `The ${result.artifact_format.toUpperCase()} replay report is ready.` : "The replay report is ready."
