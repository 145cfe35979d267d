import { describe, expect, it } from "vitest"
import { renderReportHtml } from "../../src/domain/report/html.js"
import { buildReport } from "../../src/domain/report/report.js"
import { CONTROL_COMMAND, HOSTILE_COMMAND, sampleChecks } from "./checksFixture.js"
import { sampleInput } from "./fixtures.js"

describe("the report's Checks section", () => {
  const checks = sampleChecks()
  const report = buildReport({ ...sampleInput(), checks })
  const html = renderReportHtml(report)
  const section = /<section class="checks".*?<\/section>/s.exec(html)?.[0] ?? ""

  it("is in report.json as built, and in report.html after the reviewer's reasons and before time and cost", () => {
    expect(report.checks).toEqual(checks)
    expect(section).not.toBe("")
    expect(html.indexOf('id="checks-heading"')).toBeLessThan(html.indexOf('id="metrics-heading"'))
    expect(html.indexOf('id="checks-heading"')).toBeGreaterThan(html.indexOf('id="evaluation-heading"'))
  })

  it("gives the sentence, then one row per check: at the start, Claude's result, Codex's result with exit code and change", () => {
    expect(checks.sentence).toContain("Codex fixed `npm test`, which Claude's result still failed")
    expect(section).toContain(`<p class="checks-sentence" id="checks-sentence">checks: Codex 3 of 3, Claude 1 of 2; Codex fixed \`npm test\`, which Claude&#39;s result still failed;`)
    expect(section).toContain("<th scope=\"col\">At the start</th><th scope=\"col\">Claude's result</th><th scope=\"col\">Codex's result</th>")
    const npmTest = /<tr><th scope="row"><code>npm test<\/code><\/th>(.*?)<\/tr>/.exec(section)![1]!
    expect(npmTest).toBe(
      '<td class="check check--failed">failed</td>' +
        '<td class="check check--failed change--still_failing">failed (exit 1)<br><span class="check-change">still failing</span></td>' +
        '<td class="check check--passed change--fixed">passed (exit 0)<br><span class="check-change">fixed</span></td>'
    )
  })

  it("shows a check that could not run with its reason, not counted against the side", () => {
    const lint = /<tr><th scope="row"><code>npm run lint\\u\{1b\}\[2J<\/code> <span class="muted">\(in packages\/web\)<\/span><\/th>(.*?)<\/tr>/.exec(section)![1]!
    expect(lint).toContain("could not run<br><span class=\"check-change\">not comparable — not counted</span><br><span class=\"check-reason\">npx is not installed here.</span>")
    expect(checks.tally.claude).toEqual({ passed: 1, ran: 2, could_not_run: 1 })
  })

  it("escapes every command and excerpt, and gives the time limit, the set-up and each state's output in a <details>", () => {
    expect(section).not.toContain(HOSTILE_COMMAND)
    expect(section).not.toMatch(/<script|<b>x/)
    expect(section).toContain("node --test &quot;&lt;b&gt;x&lt;/b&gt;&quot; &amp;&amp; echo &#39;&lt;script&gt;1&lt;/script&gt;&#39;")
    expect(CONTROL_COMMAND).toContain("\u001b")
    expect(html).not.toContain("\u001b")
    expect(section).toContain("<code>npm run lint\\u{1b}[2J</code>")
    expect(section).toContain("`npm run lint\\u{1b}[2J` (in packages/web) could not run on every side (not counted).</p>")
    expect(section).toContain("within 300 s; set-up first: <code>npm ci</code>.")
    expect(section.match(/<details class="check-state">/g)).toHaveLength(3)
    for (const title of ["At the start", "Claude&#39;s result", "Codex&#39;s result"]) expect(section).toContain(`<summary>${title}: output of each command</summary>`)
    expect(section).toContain('<pre class="check-excerpt">codex: 3 tests &lt;ok&gt;</pre>')
    expect(section).toContain('<pre class="check-excerpt">start: added 12 packages</pre>')
  })

  it("is absent when the report has no checks, or was written before them (no checks key)", () => {
    const { checks: _none, ...older } = buildReport(sampleInput())
    expect(renderReportHtml(buildReport(sampleInput()))).not.toContain("checks-heading")
    expect(renderReportHtml({ ...older } as typeof report)).not.toContain("checks-heading")
  })
})
