import { describe, expect, it } from "vitest"
import { renderReportHtml } from "../../src/domain/report/html.js"
import { inScrollRegions } from "../../src/domain/report/styles.js"
import { aboutReview, buildReport } from "../../src/domain/report/report.js"
import { aggregateEvaluation } from "../../src/domain/review/evaluation.js"
import { TOKEN_ROWS } from "../../src/domain/report/tokens.js"
import { claudeSide, codexSide, HOSTILE, NARRATIVE, sampleEvaluation, sampleInput, sampleReport } from "./fixtures.js"

describe("renderReportHtml", () => {
  const html = renderReportHtml(sampleReport())

  it("puts the verdict before everything else in the body", () => {
    const verdict = html.indexOf('class="verdict')
    expect(verdict).toBeGreaterThan(0)
    for (const later of ["Evaluation", "Token breakdown", "Codex patch", "Claude final response", "About this review"]) {
      expect(html.indexOf(later)).toBeGreaterThan(verdict)
    }
    expect(html).toContain('<h2 class="verdict-headline">Historical Claude wins</h2>')
  })

  it("escapes all candidate text and has no script or external reference", () => {
    expect(html).not.toContain(HOSTILE)
    expect(html).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;")
    expect(html).not.toMatch(/<script|<link|<img|@import|url\(/i)
    expect(html).not.toMatch(/<[a-z][^>]*\s(?:src|href|action|poster|background)=/i)
    expect(html.replaceAll('xmlns="http://www.w3.org/2000/svg"', "")).not.toMatch(/https?:\/\/(?!example\.invalid)/)
    expect(html).not.toContain(NARRATIVE)
  })

  it("shows both patches with neutral diff colouring, responses and worktrees", () => {
    for (const title of ["Codex patch", "Claude patch", "Codex final response", "Claude final response", "Codex worktree", "Claude worktree"]) {
      expect(html).toContain(`<h3>${title}</h3>`)
    }
    expect(html).toContain('<span class="diff-line diff-added">+const b = &quot;codex &lt;new&gt; &amp; improved&quot;</span>')
    expect(html).toContain('<span class="diff-line diff-removed">-const b = &quot;claude old&quot;</span>')
    expect(html).toContain('<span class="diff-line diff-hunk">@@ -1,3 +1,4 @@</span>')
    expect(html).toContain("<code>src/app.ts</code>")
  })

  it("labels tokens with their descriptions as tooltips, in a table and an SVG chart", () => {
    for (const row of TOKEN_ROWS) {
      expect(html).toContain(`<span class="token-label" tabindex="0" title="${row.description}">${row.label}<span class="token-tooltip" role="tooltip">${row.description}</span></span>`)
      expect(html).toContain(`<title>${row.label}: ${row.description}</title>`)
    }
    expect(html).toMatch(/<svg class="token-chart" role="img"/)
    // Total input = ordinary + cache read + cache write.
    expect(html).toContain('<td class="number">60,000</td><td class="number">172,900</td>')
  })

  it("puts every table and the token chart in one region that scrolls sideways on a narrow window", () => {
    const tables = html.match(/<table\b/g)?.length ?? 0
    expect(tables).toBeGreaterThan(4)
    expect(html.match(/<div class="scroll-x" tabindex="0"><table\b/g)?.length).toBe(tables)
    expect(html).toContain('<div class="scroll-x" tabindex="0"><svg class="token-chart"')
    expect(inScrollRegions(html)).toBe(html)
  })

  it("marks lower elapsed time and cost as better", () => {
    expect(html).toContain('<td class="metric metric--better">1 min 35 s <span class="metric-mark">(better)</span></td><td class="metric metric--worse">4 min 00 s <span class="metric-mark">(worse)</span></td>')
    // Claude's cost is unknown, so neither cost is marked.
    expect(html).toContain('<td class="metric">$0.420</td><td class="metric">Not available: No price is known for this model.</td>')
  })

  it("includes the about-this-review note with the measured figures", () => {
    expect(html).toContain("About this review")
    expect(html).toContain("65.0%")
    expect(html).toContain("66 of 80")
    expect(html).toContain("Codex model judging a Codex result")
  })

  it("still renders when there is no evaluation", () => {
    const empty = renderReportHtml(sampleReport(null))
    expect(empty).toContain("No verdict")
    expect(empty).toContain("No validated blind review ballot is available.")
  })

  it("names the reviewer, says self-review when it judged its own replay, and shows both orders' reasons escaped with identities revealed", () => {
    const neutral = renderReportHtml(sampleReport())
    expect(neutral).toContain("<dt>Reviewer</dt><dd>gpt-review</dd>")
    expect(neutral).not.toContain("self-review")
    expect(neutral).toContain("<h2 id=\"reasons-heading\">Reviewer's reasons</h2>")
    expect(neutral).toContain("B/A order:</span> Codex replay handles &lt;errors&gt; &amp; Historical Claude&#39;s patch does not; A check of Plan B found a gap.")
    expect(neutral).not.toContain("<errors>")
    const self = buildReport({ ...sampleInput(), reviewer_model: codexSide.model })
    expect(self.about_review).toMatchObject({ reviewer_model: "gpt-5.6-terra", self_review: true })
    expect(self.about_review.note).toContain("this is a self-review")
    expect(renderReportHtml(self)).toContain("<dd>gpt-5.6-terra (self-review)</dd>")
  })

  it("a tie because the orders disagreed on every dimension is headed as inconclusive, in a report of any age", () => {
    const report = sampleReport()
    const evaluation = report.evaluation!
    const flipped = Object.fromEntries(Object.entries(evaluation.dimensions).map(([id, result]) => [id, { ...result, winner: "tie", order_dependent: true }]))
    const { caveats: _, ...older } = { ...report, winner: "tie" as const, evaluation: { ...evaluation, dimensions: flipped as typeof evaluation.dimensions } }
    const html = renderReportHtml(older)
    expect(html).toContain('<h2 class="verdict-headline">Inconclusive (the two orders disagreed)</h2>')
    expect(html).toContain("<strong>inconclusive (the two orders disagreed)</strong>")
  })

  it("lists the caveats under the verdict in the words of every other view, recorded in report.json", () => {
    expect(sampleReport().caveats).toEqual([])
    expect(renderReportHtml(sampleReport())).not.toContain('class="caveats"')
    const self = buildReport({ ...sampleInput(), reviewer_model: codexSide.model })
    expect(self.caveats).toEqual([{ kind: "self_review", label: "self-review", detail: "gpt-5.6-terra judged its own replay against Claude's result." }])
    expect(renderReportHtml(self)).toContain(
      '<ul class="caveats" aria-label="Caveats"><li class="caveat caveat--self_review"><strong>self-review</strong>: gpt-5.6-terra judged its own replay against Claude&#39;s result.</li></ul></section>'
    )
  })

  it("explains in the note how many ballots were usable", () => {
    const full = sampleEvaluation()
    const oneFailed = aggregateEvaluation({
      candidate_mapping: full.candidate_mapping,
      reviews: [full.reviews[0]!, { ...full.reviews[1]!, status: "failed", error: "boom", ballot: null }]
    })
    expect(aboutReview(full, "gpt-review", "gpt-5.5").note).toContain("1 of 6 dimensions flipped")
    expect(aboutReview(oneFailed, "gpt-review", "gpt-5.5").note).toContain(
      "The B/A order has no validated ballot, so no dimension could be confirmed in both orders: the verdict is inconclusive."
    )
    expect(oneFailed.missing_orders).toEqual(["BA"])
    const noneValid = aggregateEvaluation({
      candidate_mapping: full.candidate_mapping,
      reviews: full.reviews.map((review) => ({ ...review, status: "invalid" as const, error: "not a ballot", ballot: null }))
    })
    expect(aboutReview(noneValid, "gpt-review", "gpt-5.5").note).toContain("Neither order (A/B, B/A) has a validated ballot: there is no verdict.")
    expect(aboutReview(null, null, "gpt-5.5").note).toContain("No review ran")
    expect(aboutReview(null, null, "gpt-5.5").note).toContain("a Codex model")
    const inconclusive = renderReportHtml(sampleReport(oneFailed))
    // Headed in the words the CLI, the page and the tables use for a winner of `inconclusive`.
    expect(inconclusive).toContain('<h2 class="verdict-headline">Inconclusive (no order-balanced verdict)</h2>')
    expect(inconclusive).toContain("<strong>Failed</strong> boom")
  })
})

describe("renderReportHtml on Claude's interrupted last turn and warm-up probes", () => {
  const report = buildReport({
    run_id: "run-interrupted",
    thread_id: "55604662-thread",
    original_request: "Start the server",
    generated_at: "2026-11-29T12:00:00.000Z",
    codex: codexSide,
    claude: {
      ...claudeSide,
      final_response: "",
      cost: { usd: 0.5, reason: null },
      last_substantive_reply: `Let me check the project structure ${HOSTILE}`,
      cost_lines: [{ label: "of which warm-up probes", usd: 0.0014 }]
    },
    evaluation: null,
    reviewer_model: null
  })
  const html = renderReportHtml(report)

  it("keeps the final response empty and shows the last substantive reply, marked as such and escaped", () => {
    expect(report.candidates.claude.final_response).toBe("")
    expect(report.candidates.claude.last_substantive_reply).toContain("Let me check the project structure")
    expect(html).toContain("<h4>Last substantive reply (the last turn has no final response)</h4>")
    expect(html).toContain("Let me check the project structure &lt;script&gt;")
    expect(html).not.toContain(HOSTILE)
  })

  it("shows the warm-up probes' cost on its own line beside the total", () => {
    expect(html).toMatch(/\$0\.50?[^<]*; of which warm-up probes: \$0\.001/)
  })

  it("shows no such block when the final response is there", () => {
    expect(renderReportHtml(sampleReport())).not.toContain("Last substantive reply")
  })
})
