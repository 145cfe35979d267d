import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { getReport, getReportText, openReportDownload } from "../../src/programs/reports/reports.js"
import { FileStore } from "../../src/services/FileStore.js"

const withFiles = <A, E>(effect: Effect.Effect<A, E, FileStore>) => Effect.provide(effect, FileStore.Default)

const NINETEEN_MIB = 19 * 1024 * 1024

const scratch = () =>
  Effect.promise(async () => {
    const root = await fs.mkdtemp(path.join(os.tmpdir(), "codex-replay-reports-"))
    const runDirectory = path.join(root, "runs", "run-1")
    await fs.mkdir(runDirectory, { recursive: true })
    return { root, runDirectory }
  })

const write = (file: string, text: string) => Effect.promise(() => fs.writeFile(file, text, "utf8"))

const failureMessage = <A, E>(exit: Exit.Exit<A, E>) =>
  Exit.isFailure(exit) && exit.cause._tag === "Fail" ? (exit.cause.error as { message?: string }).message : `not a failure: ${String(exit)}`

describe("get_report", () => {
  it.effect("answers the parsed report and paths, or exactly the artifact fields, also beyond 19 MiB", () =>
    withFiles(Effect.gen(function*() {
      const { runDirectory } = yield* scratch()
      const bodies = {
        json: JSON.stringify({ winner: "codex", summary: "Résumé", original_request: "x".repeat(NINETEEN_MIB) }),
        html: `<!doctype html><title>Replay report</title><p>Résumé</p>${"x".repeat(NINETEEN_MIB)}`
      }
      yield* write(path.join(runDirectory, "report.json"), bodies.json)
      yield* write(path.join(runDirectory, "report.html"), bodies.html)

      const plain = yield* getReport(runDirectory, { run_id: "run-1" })
      expect(Object.keys(plain).sort()).toEqual(["report", "report_html", "report_json"])
      if (!("report" in plain)) throw new Error("expected the report")
      expect(plain.report.winner).toBe("codex")
      expect((plain.report.original_request as string).length).toBe(NINETEEN_MIB)
      expect(plain.report_json).toBe(path.join(runDirectory, "report.json"))
      expect(plain.report_html).toBe(path.join(runDirectory, "report.html"))
      expect(getReportText(plain)).toBe("The replay report is ready.")

      for (const format of ["json", "html"] as const) {
        const artifact = yield* getReport(runDirectory, { run_id: "run-1", format })
        expect(artifact).toEqual({
          artifact_content: bodies[format],
          artifact_format: format,
          artifact_mime_type: format === "json" ? "application/json" : "text/html",
          artifact_file_name: `codex-replay-run-1-report.${format}`
        })
        expect(getReportText(artifact)).toBe(`The ${format.toUpperCase()} replay report is ready.`)
      }
      const withNull = yield* getReport(runDirectory, { run_id: "run-1", format: null })
      expect("report" in withNull).toBe(true)
    })), 60_000)

  it.effect("rejects any other format value", () =>
    withFiles(Effect.gen(function*() {
      const { runDirectory } = yield* scratch()
      yield* write(path.join(runDirectory, "report.json"), "{}")
      for (const format of ["pdf", ["json"], { format: "json" }, false, 1, "JSON"]) {
        const exit = yield* Effect.exit(getReport(runDirectory, { run_id: "run-1", format }))
        expect(failureMessage(exit)).toBe("Report format must be json or html.")
      }
      expect(failureMessage(yield* Effect.exit(getReport(runDirectory, { format: "json" })))).toBe("run_id is required.")
    })))

  it.effect("says the report is not ready when it does not exist", () =>
    withFiles(Effect.gen(function*() {
      const { runDirectory } = yield* scratch()
      expect(failureMessage(yield* Effect.exit(getReport(runDirectory, { run_id: "run-1" })))).toBe("The replay report is not ready.")
      yield* write(path.join(runDirectory, "report.json"), "{}")
      expect(failureMessage(yield* Effect.exit(getReport(runDirectory, { run_id: "run-1", format: "html" })))).toBe("The replay report is not ready.")
    })))

  it.effect("refuses report symlinks leading out of the run directory", () =>
    withFiles(Effect.gen(function*() {
      const { root, runDirectory } = yield* scratch()
      const externalJson = path.join(root, "external.json")
      yield* write(externalJson, '{"secret":"outside the run"}')
      const reportJson = path.join(runDirectory, "report.json")
      yield* Effect.promise(() => fs.symlink(externalJson, reportJson))
      for (const payload of [{ run_id: "run-1" }, { run_id: "run-1", format: "json" }]) {
        const exit = yield* Effect.exit(getReport(runDirectory, payload))
        expect(failureMessage(exit)).toBe("The replay report is outside its run directory.")
      }
      yield* Effect.promise(() => fs.unlink(reportJson))
      yield* write(reportJson, "{}")
      const externalHtml = path.join(root, "external.html")
      yield* write(externalHtml, "outside the run")
      yield* Effect.promise(() => fs.symlink(externalHtml, path.join(runDirectory, "report.html")))
      const exit = yield* Effect.exit(getReport(runDirectory, { run_id: "run-1", format: "html" }))
      expect(failureMessage(exit)).toBe("The replay report is outside its run directory.")
    })))
})

describe("report download", () => {
  it.effect("opens a report of any size for streaming, with its type and attachment name", () =>
    withFiles(Effect.gen(function*() {
      const { runDirectory } = yield* scratch()
      const body = `<!doctype html><p>${"y".repeat(NINETEEN_MIB + 1024)}</p>`
      yield* write(path.join(runDirectory, "report.html"), body)
      const download = yield* openReportDownload(runDirectory, "run-1", "html")
      expect(download).toEqual({
        path: yield* Effect.promise(() => fs.realpath(path.join(runDirectory, "report.html"))),
        size: Buffer.byteLength(body),
        contentType: "text/html; charset=utf-8",
        fileName: "codex-replay-run-1-report.html"
      })
      expect(download.size).toBeGreaterThan(NINETEEN_MIB)
      expect(failureMessage(yield* Effect.exit(openReportDownload(runDirectory, "run-1", "json")))).toBe("The replay report is not ready.")
    })), 60_000)

  it.effect("allows a symlink inside the run directory and refuses one leading out or dangling", () =>
    withFiles(Effect.gen(function*() {
      const { root, runDirectory } = yield* scratch()
      yield* write(path.join(runDirectory, "inner.json"), "{}")
      yield* Effect.promise(() => fs.symlink(path.join(runDirectory, "inner.json"), path.join(runDirectory, "report.json")))
      const inside = yield* openReportDownload(runDirectory, "run-1", "json")
      expect(inside.path).toBe(yield* Effect.promise(() => fs.realpath(path.join(runDirectory, "inner.json"))))
      yield* write(path.join(root, "secret.html"), "secret")
      yield* Effect.promise(() => fs.symlink(path.join(root, "secret.html"), path.join(runDirectory, "report.html")))
      expect(failureMessage(yield* Effect.exit(openReportDownload(runDirectory, "run-1", "html")))).toBe("The replay report is outside its run directory.")
      yield* Effect.promise(() => fs.rm(path.join(root, "secret.html")))
      expect(failureMessage(yield* Effect.exit(openReportDownload(runDirectory, "run-1", "html")))).toBe("The replay report is outside its run directory.")
    })))
})
