import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, TestClock } from "effect"
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { renderReportHtml } from "../../src/domain/report/html.js"
import { FileStore } from "../../src/services/FileStore.js"
import { Report } from "../../src/services/Report.js"
import { claudeSide, codexSide, sampleEvaluation } from "./fixtures.js"

describe("Report service", () => {
  it.effect("writes report.json and report.html privately, with the run's identity and the verdict", () =>
    Effect.gen(function*() {
      const runDirectory = yield* Effect.promise(() => fs.mkdtemp(path.join(os.tmpdir(), "codex-replay-report-")))
      yield* TestClock.setTime(Date.parse("2026-11-29T10:00:00.000Z"))
      const evaluation = sampleEvaluation({ A: "codex", B: "claude" })
      const written = yield* Effect.flatMap(Report, (report) =>
        report.write(runDirectory, {
          run_id: "run-7",
          thread_id: "thread-7",
          original_request: "Do it",
          codex: codexSide,
          claude: claudeSide,
          evaluation,
          reviewer_model: "gpt-review"
        })
      ).pipe(Effect.provide(Report.DefaultWithoutDependencies.pipe(Layer.provide(FileStore.Default))))
      expect(written.report_json).toBe(path.join(runDirectory, "report.json"))
      const json = JSON.parse(yield* Effect.promise(() => fs.readFile(written.report_json, "utf8")))
      expect(Object.keys(json)).toEqual(expect.arrayContaining(["run_id", "thread_id", "original_request", "winner", "candidates", "evaluation", "about_review"]))
      expect(json).toMatchObject({ run_id: "run-7", thread_id: "thread-7", original_request: "Do it", winner: "claude", generated_at: "2026-11-29T10:00:00.000Z" })
      expect(json.evaluation.candidate_mapping).toEqual({ A: "codex", B: "claude" })
      expect(json.evaluation.flips).toBe(1)
      expect(json.evaluation.reviews).toHaveLength(2)
      expect(json.candidates.codex).toMatchObject({ label: "Codex replay", elapsed_ms: 95_000, cost: { usd: 0.42, reason: null } })
      expect(json.candidates.codex.tokens).toEqual({ ordinary_input: 12_000, cache_read: 48_000, cache_write: 0, output: 3_500, total_input: 60_000 })
      expect(json.candidates.claude.cost).toEqual({ usd: null, reason: "No price is known for this model." })
      expect(json.candidates.claude.changed_files).toEqual([{ path: "src/app.ts", additions: 2, deletions: 1 }])
      // The stable place for the reviewer: about_review.reviewer_model and about_review.self_review.
      expect(json.about_review).toMatchObject({ reviewer_model: "gpt-review", order_balanced: true, self_review: false, flips: 1 })
      expect(json.review_reasons.reliability).toEqual([
        { order: "AB", reason: "Codex replay handles <errors> & Historical Claude's patch does not; A check of Plan B found a gap." },
        { order: "BA", reason: "Historical Claude handles <errors> & Codex replay's patch does not; A check of Plan B found a gap." }
      ])
      expect(json.integrity).toMatchObject({ matches_claude: false, shared_lines: 1, codex_lines: 3, claude_lines: 3, threshold: 0.9, note: null })
      const html = yield* Effect.promise(() => fs.readFile(written.report_html, "utf8"))
      expect(html).toBe(renderReportHtml(written.report))
      expect(html).not.toContain("possible leak")
      for (const file of [written.report_json, written.report_html]) {
        const stat = yield* Effect.promise(() => fs.stat(file))
        expect(stat.mode & 0o777).toBe(0o600)
      }
      expect((yield* Effect.promise(() => fs.readdir(runDirectory))).sort()).toEqual(["report.html", "report.json"])
    }))

  it.effect("a Codex patch that is Claude's up to whitespace is flagged as a possible leak in report.json and report.html", () =>
    Effect.gen(function*() {
      const runDirectory = yield* Effect.promise(() => fs.mkdtemp(path.join(os.tmpdir(), "codex-replay-report-")))
      const copied = claudeSide.patch.replace("+const c = 3", "+const  c =  3   ").replace("index 1111111..2222222", "index 3333333..4444444")
      const written = yield* Effect.flatMap(Report, (report) =>
        report.write(runDirectory, {
          run_id: "run-8",
          thread_id: "thread-8",
          original_request: "Do it",
          codex: { ...codexSide, patch: copied },
          claude: claudeSide,
          evaluation: sampleEvaluation({ A: "codex", B: "claude" }),
          reviewer_model: "gpt-review"
        })
      ).pipe(Effect.provide(Report.DefaultWithoutDependencies.pipe(Layer.provide(FileStore.Default))))
      const json = JSON.parse(yield* Effect.promise(() => fs.readFile(written.report_json, "utf8")))
      expect(json.integrity).toEqual({
        matches_claude: true,
        similarity: 1,
        shared_lines: 3,
        codex_lines: 3,
        claude_lines: 3,
        threshold: 0.9,
        note: "Codex's patch matches Claude's result: possible leak: it holds 3 of Claude's 3 changed lines (100% of the larger patch), so the verdict is not counted."
      })
      const html = yield* Effect.promise(() => fs.readFile(written.report_html, "utf8"))
      const verdict = html.slice(html.indexOf(`aria-label="Verdict"`), html.indexOf("</section>", html.indexOf(`aria-label="Verdict"`)))
      expect(verdict).toContain(`<p class="possible-leak" role="alert"><strong>matches Claude&#39;s result: possible leak.</strong>`)
    }))
})
