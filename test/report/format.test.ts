import { describe, expect, it } from "vitest"
import { classifyDiffLine } from "../../src/domain/report/diff.js"
import { compareLowerIsBetter, escapeHtml, formatElapsed, formatPercent, formatUsd } from "../../src/domain/report/format.js"
import { tokensFromCodexUsage, totalInput } from "../../src/domain/report/tokens.js"

describe("report formatting", () => {
  it("rounds shares to whole percentages", () => {
    expect([formatPercent(2 / 3), formatPercent(1 / 3), formatPercent(1), formatPercent(0), formatPercent(null)]).toEqual(["67%", "33%", "100%", "0%", "N/A"])
  })

  it("formats elapsed time and cost", () => {
    expect([formatElapsed(850), formatElapsed(12_340), formatElapsed(185_000), formatElapsed(3_720_000), formatElapsed(null)]).toEqual([
      "850 ms",
      "12.3 s",
      "3 min 05 s",
      "1 h 02 min",
      "Not available"
    ])
    expect([formatUsd(12.5), formatUsd(0.42), formatUsd(0.0042), formatUsd(0)]).toEqual(["$12.50", "$0.420", "$0.0042", "$0.00"])
  })

  it("marks the lower value better and compares nothing unknown", () => {
    expect(compareLowerIsBetter(1, 2)).toBe("better")
    expect(compareLowerIsBetter(2, 1)).toBe("worse")
    expect(compareLowerIsBetter(2, 2)).toBe("same")
    expect(compareLowerIsBetter(null, 1)).toBe("unknown")
  })

  it("escapes markup and quotes", () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe("&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;")
  })

  it("classifies diff lines by prefix only", () => {
    expect(["diff --git a/x b/x", "+++ b/x", "@@ -1 +1 @@", "+a", "-b", " c", "plain"].map(classifyDiffLine)).toEqual([
      "meta", "meta", "hunk", "added", "removed", "context", "context"
    ])
  })

  it("splits Codex usage into the report buckets (cached input is part of input)", () => {
    const tokens = tokensFromCodexUsage({ input: 100, cached_input: 40, cache_write: 5, output: 20 })
    expect(tokens).toEqual({ ordinary_input: 60, cache_read: 40, cache_write: 5, output: 20 })
    expect(totalInput(tokens)).toBe(105)
  })
})
