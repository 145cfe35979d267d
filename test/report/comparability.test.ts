import { describe, expect, it } from "vitest"
import { comparabilityFacts } from "../../src/domain/report/comparability.js"
import { renderReportHtml } from "../../src/domain/report/html.js"
import { buildReport } from "../../src/domain/report/report.js"
import { claudeSide, codexSide, HOSTILE, sampleEvaluation } from "./fixtures.js"

const gap = { name: "subagents", title: `Sub-agents ${HOSTILE}`, status: "partial" as const, guidance: "Claude delegated work." }

const reportWith = (options: {
  readonly beginning_kind: "git" | "non_git"
  readonly existing?: ReadonlyArray<string>
  readonly carried?: ReadonlyArray<string>
  readonly gaps?: ReadonlyArray<typeof gap>
  readonly claudeResponse?: string
  readonly reviewer: string
}) =>
  buildReport({
    run_id: "run-compare",
    thread_id: "thread",
    original_request: "Do it.",
    generated_at: "2026-12-01T00:00:00.000Z",
    codex: codexSide,
    claude: { ...claudeSide, final_response: options.claudeResponse ?? claudeSide.final_response },
    evaluation: sampleEvaluation(),
    reviewer_model: options.reviewer,
    comparability: comparabilityFacts({
      beginning_kind: options.beginning_kind,
      baseline_commit: options.beginning_kind === "git" ? "abc1234" : null,
      carried_forward_files: options.carried ?? [],
      existing_files_changed: options.existing ?? []
    }, options.gaps ?? [], options.claudeResponse ?? claudeSide.final_response)
  })

describe("the comparability panel", () => {
  it("is like-for-like from the same commit with another reviewer, no gap and Claude's answer: no label", () => {
    const report = reportWith({ beginning_kind: "git", reviewer: "gpt-6.2-sol" })
    expect(report.comparability).toMatchObject({
      beginning: "same_commit",
      beginning_label: "Same commit as Claude",
      self_review: false,
      like_for_like: true,
      concerns: []
    })
    const html = renderReportHtml(report)
    expect(html).toContain("<p class=\"like-for-like\" id=\"comparability-summary\">Like-for-like:")
    expect(html).toContain("<th scope=\"row\">Reviewer</th><td>gpt-6.2-sol (not the implementing model)</td>")
    expect(html).not.toContain("not-like-for-like\"")
  })

  it("names every concern, escaped, and labels the winner not like-for-like", () => {
    const report = reportWith({
      beginning_kind: "non_git",
      existing: ["a.ts", "b.ts"],
      gaps: [gap],
      claudeResponse: "  ",
      reviewer: codexSide.model!
    })
    expect(report.comparability?.concerns).toEqual([
      "The replay started from an empty directory, while Claude changed 2 files that already existed (a.ts, b.ts).",
      `Capability gap: Sub-agents ${HOSTILE} (partial).`,
      "Self-review: the reviewer (gpt-5.6-terra) is the model that implemented the replay.",
      "Claude's final response is missing, so its reporting was judged on nothing."
    ])
    const html = renderReportHtml(report)
    expect(html).toContain('<h2 class="verdict-headline">Historical Claude wins <span class="not-like-for-like">(not like-for-like)</span></h2>')
    expect(html).toContain("<th scope=\"row\">Claude&#39;s final response</th><td>Missing</td>")
    expect(html).not.toContain("<script>")
    expect(html).toContain("&lt;script&gt;")
  })

  it("tells a carried-forward beginning from an empty one that only created files", () => {
    expect(reportWith({ beginning_kind: "git", carried: ["x.ts"], reviewer: "r" }).comparability?.beginning_label).toBe("Claude's files carried forward")
    expect(reportWith({ beginning_kind: "non_git", reviewer: "r" }).comparability).toMatchObject({
      beginning: "empty_created_only",
      like_for_like: true
    })
  })

  it("leaves an inconclusive verdict unlabelled, and a report without facts without a panel", () => {
    const inconclusive = buildReport({ ...reportInput(), evaluation: null })
    expect(renderReportHtml(inconclusive)).not.toContain("(not like-for-like)")
    const withoutFacts = buildReport({ ...reportInput(), comparability: undefined })
    expect(withoutFacts.comparability).toBeNull()
    expect(renderReportHtml(withoutFacts)).not.toContain("comparability-heading")
  })
})

const reportInput = () => ({
  run_id: "run-compare",
  thread_id: "thread",
  original_request: "Do it.",
  generated_at: "2026-12-01T00:00:00.000Z",
  codex: codexSide,
  claude: claudeSide,
  evaluation: sampleEvaluation(),
  reviewer_model: codexSide.model,
  comparability: comparabilityFacts({ beginning_kind: "non_git", baseline_commit: null, carried_forward_files: [], existing_files_changed: ["a"] }, [], "x")
})
