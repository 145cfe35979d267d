import { Clock, DateTime, Effect, Option } from "effect"
import * as path from "node:path"
import { buildReport, type Report as ReportDocument, type ReportInput } from "../domain/report/report.js"
import { renderReportHtml } from "../domain/report/html.js"
import { ControllerRuntime } from "./ControllerRuntime.js"
import { FileStore } from "./FileStore.js"

export const REPORT_JSON_FILE = "report.json"
export const REPORT_HTML_FILE = "report.html"

export interface WrittenReport {
  readonly report: ReportDocument
  readonly report_json: string
  readonly report_html: string
}

/** Writes a run's `report.json` and `report.html` (docs/verdicts.md), each atomically and private. */
export class Report extends Effect.Service<Report>()("codex-replay/Report", {
  effect: Effect.gen(function*() {
    const files = yield* FileStore

    const write = Effect.fn("Report.write")(function*(runDirectory: string, input: Omit<ReportInput, "generated_at">) {
      const now = yield* Clock.currentTimeMillis
      const report = buildReport({ ...input, generated_at: DateTime.formatIso(DateTime.unsafeMake(now)) })
      const reportJson = path.join(runDirectory, REPORT_JSON_FILE)
      const reportHtml = path.join(runDirectory, REPORT_HTML_FILE)
      yield* files.writeJson(reportJson, report)
      // Within a running controller, the report also links to the run's page there.
      const runtime = yield* Effect.serviceOption(ControllerRuntime)
      yield* files.writeTextAtomic(reportHtml, renderReportHtml(report, Option.isSome(runtime) ? runtime.value.origin : null))
      return { report, report_json: reportJson, report_html: reportHtml } satisfies WrittenReport
    })

    return { write } as const
  }),
  dependencies: [FileStore.Default]
}) {}
