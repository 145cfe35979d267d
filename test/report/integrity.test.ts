import { describe, expect, it } from "vitest"
import { changedLines, integrityOf, LEAK_THRESHOLD, patchSimilarity, reportIntegrity } from "../../src/domain/report/integrity.js"

/** A one-hunk patch of `file` that adds `added` and removes `removed`. */
const patchOf = (file: string, added: ReadonlyArray<string>, removed: ReadonlyArray<string> = []) =>
  [
    `diff --git a/${file} b/${file}`,
    `--- a/${file}`,
    `+++ b/${file}`,
    `@@ -1,${removed.length + 1} +1,${added.length + 1} @@`,
    " context",
    ...removed.map((line) => `-${line}`),
    ...added.map((line) => `+${line}`),
    ""
  ].join("\n")

const hundred = Array.from({ length: 100 }, (_, index) => `const value${index} = compute(${index})`)

describe("how close Codex's patch is to Claude's", () => {
  it("reads only the changed lines of hunks, whitespace normalised, blank lines left out", () => {
    const patch = patchOf("a.js", ["  const  a =\t1  ", "   ", "--- not a header"], ["old line"])
    expect(changedLines(patch)).toEqual(["-old line", "+const a = 1", "+--- not a header"])
  })

  it("an identical patch matches", () => {
    const claude = patchOf("a.js", hundred.slice(0, 10), ["gone"])
    expect(integrityOf(claude, claude)).toMatchObject({ matches_claude: true, similarity: 1, shared_lines: 11, codex_lines: 11, claude_lines: 11 })
    expect(integrityOf(claude, claude).note).toBe("Codex's patch matches Claude's result: possible leak: it holds 11 of Claude's 11 changed lines (100% of the larger patch), so the verdict is not counted.")
  })

  it("differences only in whitespace, blank lines and hunk context still match", () => {
    const claude = patchOf("a.js", ["function f() {", "  return 1", "}"])
    const codex = patchOf("a.js", ["function f()  {", "", "\treturn 1   ", "}", "   "]).replace(" context", " other context")
    expect(patchSimilarity(codex, claude).similarity).toBe(1)
    expect(integrityOf(codex, claude).matches_claude).toBe(true)
  })

  it("89 of 100 equal lines is not a match; 91 of 100 is", () => {
    const claude = patchOf("a.js", hundred)
    const changing = (count: number) => patchOf("a.js", hundred.map((line, index) => (index < count ? `${line} // mine` : line)))
    expect(integrityOf(changing(11), claude)).toMatchObject({ similarity: 0.89, matches_claude: false, note: null })
    expect(integrityOf(changing(9), claude)).toMatchObject({ similarity: 0.91, matches_claude: true })
    expect(integrityOf(changing(10), claude)).toMatchObject({ similarity: LEAK_THRESHOLD, matches_claude: true })
  })

  it("the order of the files does not count", () => {
    const claude = patchOf("a.js", ["alpha()"]) + patchOf("z/b.js", ["beta()", "gamma()"])
    const codex = patchOf("z/b.js", ["beta()", "gamma()"]) + patchOf("a.js", ["alpha()"])
    expect(integrityOf(codex, claude)).toMatchObject({ similarity: 1, matches_claude: true })
  })

  it("Claude's whole patch padded with lines of Codex's own is still a match while it makes half of Codex's", () => {
    const claude = patchOf("a.js", hundred)
    const padding = (count: number) => patchOf("z/padding.test.js", Array.from({ length: count }, (_, index) => `expect(${index}).toBe(${index})`))
    expect(integrityOf(claude + padding(15), claude)).toMatchObject({ similarity: 100 / 115, matches_claude: true })
    expect(integrityOf(claude + padding(100), claude)).toMatchObject({ similarity: 0.5, matches_claude: true })
    expect(integrityOf(claude + padding(101), claude)).toMatchObject({ matches_claude: false })
  })

  it("Claude's lines inside a much larger patch are not a match (a rewrite holds them too)", () => {
    const claude = patchOf("a.js", hundred.slice(0, 5))
    const codex = patchOf("a.js", hundred)
    expect(integrityOf(codex, claude)).toMatchObject({ similarity: 0.05, matches_claude: false })
  })

  it("empty patches never match", () => {
    expect(integrityOf("", "")).toMatchObject({ similarity: null, matches_claude: false })
    expect(integrityOf("", patchOf("a.js", ["x()"]))).toMatchObject({ similarity: 0, matches_claude: false })
    expect(integrityOf(patchOf("a.js", ["x()"]), "")).toMatchObject({ similarity: 0, matches_claude: false })
    // Only blank lines changed on both sides: nothing to compare.
    expect(integrityOf(patchOf("a.js", ["", "  "]), patchOf("a.js", [""]))).toMatchObject({ similarity: null, matches_claude: false })
  })

  it("a report written before the check is measured from its patches; a recorded check is read as it is", () => {
    const patch = patchOf("a.js", ["x()"])
    expect(reportIntegrity({ candidates: { codex: { patch }, claude: { patch } } })).toMatchObject({ matches_claude: true, similarity: 1 })
    const recorded = integrityOf(patch, patchOf("a.js", ["y()"]))
    expect(reportIntegrity({ integrity: recorded, candidates: { codex: { patch }, claude: { patch } } })).toEqual(recorded)
    expect(reportIntegrity({ candidates: { codex: { patch } } })).toBeNull()
    expect(reportIntegrity("not a report")).toBeNull()
  })
})
