import { describe, expect, it } from "vitest"
import { type DiffFile, diffFileFacts, diffFileLabel, diffFiles, diffFileTitle, renderDiff } from "../../src/domain/report/diff.js"

const patch = (...lines: ReadonlyArray<string>) => `${lines.join("\n")}\n`

const kinds = (file: DiffFile) => file.lines.map((line) => line.kind)
const facts = (file: DiffFile) => diffFileFacts(file).map((fact) => fact.text)

describe("the diff view model", () => {
  it("has no file for an empty diff, and both renderers say there are no changes", () => {
    expect(diffFiles("")).toEqual([])
    expect(diffFiles("\n  \n")).toEqual([])
    expect(renderDiff("")).toBe(`<p class="empty">No changes.</p>`)
  })

  it("splits a diff per file with its path, counts and classed lines", () => {
    const files = diffFiles(patch(
      "diff --git a/src/a.ts b/src/a.ts",
      "index 1111111..2222222 100644",
      "--- a/src/a.ts",
      "+++ b/src/a.ts",
      "@@ -1,3 +1,3 @@",
      " keep",
      "-old",
      "+new",
      " keep",
      "diff --git a/docs/new file.md b/docs/new file.md",
      "new file mode 100644",
      "--- /dev/null",
      "+++ b/docs/new file.md",
      "@@ -0,0 +1,2 @@",
      "+# Title",
      "+text",
      "diff --git a/gone.txt b/gone.txt",
      "deleted file mode 100644",
      "--- a/gone.txt",
      "+++ /dev/null",
      "@@ -1 +0,0 @@",
      "-bye"
    ))
    expect(files.map((file) => [file.path, file.status, file.added, file.removed])).toEqual([
      ["src/a.ts", "modified", 1, 1],
      ["docs/new file.md", "added", 2, 0],
      ["gone.txt", "deleted", 0, 1]
    ])
    expect(kinds(files[0]!)).toEqual(["meta", "meta", "meta", "meta", "hunk", "context", "removed", "added", "context"])
    expect(files[0]!.lines.map((line) => line.className)[6]).toBe("diff-line diff-removed")
    expect(files.map(facts)).toEqual([["+1", "−1"], ["new file", "+2", "−0"], ["deleted", "+0", "−1"]])
    expect(diffFileLabel(files[1]!)).toBe("Diff of docs/new file.md")
  })

  it("names a renamed file by both its paths, counting only its content's changes", () => {
    const [renamed, pure] = diffFiles(patch(
      "diff --git a/old/name.ts b/new/name.ts",
      "similarity index 90%",
      "rename from old/name.ts",
      "rename to new/name.ts",
      "index 1111111..2222222 100644",
      "--- a/old/name.ts",
      "+++ b/new/name.ts",
      "@@ -1 +1 @@",
      "-a",
      "+b",
      "diff --git a/x.txt b/y.txt",
      "similarity index 100%",
      "rename from x.txt",
      "rename to y.txt"
    ))
    expect(renamed).toMatchObject({ path: "new/name.ts", previous_path: "old/name.ts", status: "renamed", added: 1, removed: 1 })
    expect(diffFileTitle(renamed!)).toBe("old/name.ts → new/name.ts")
    expect(facts(renamed!)).toEqual(["renamed", "+1", "−1"])
    expect(pure).toMatchObject({ path: "y.txt", previous_path: "x.txt", status: "renamed", added: 0, removed: 0 })
    expect(kinds(pure!)).toEqual(["meta", "meta", "meta", "meta"])
  })

  it("says a binary file is binary, with no counts", () => {
    const [image, patched] = diffFiles(patch(
      "diff --git a/logo.png b/logo.png",
      "new file mode 100644",
      "index 0000000..3333333",
      "Binary files /dev/null and b/logo.png differ",
      "diff --git a/icon.bin b/icon.bin",
      "index 4444444..5555555 100644",
      "GIT binary patch",
      "literal 4",
      "LcmZQzU|;|M00aO5"
    ))
    expect(image).toMatchObject({ path: "logo.png", status: "added", binary: true, added: 0, removed: 0 })
    expect(facts(image!)).toEqual(["new file", "binary"])
    expect(kinds(image!).at(-1)).toBe("meta")
    expect(patched).toMatchObject({ path: "icon.bin", status: "modified", binary: true })
    expect(facts(patched!)).toEqual(["binary"])
  })

  it("keeps '\\ No newline at end of file' as a note, counted as neither side, inside a hunk and after it", () => {
    const [file] = diffFiles(patch(
      "diff --git a/a.txt b/a.txt",
      "--- a/a.txt",
      "+++ b/a.txt",
      "@@ -1 +1 @@",
      "-last",
      "\\ No newline at end of file",
      "+last",
      "\\ No newline at end of file"
    ))
    expect(kinds(file!)).toEqual(["meta", "meta", "meta", "hunk", "removed", "meta", "added", "meta"])
    expect([file!.added, file!.removed]).toEqual([1, 1])
  })

  it("reads a line by the hunk's counts, not its prefix alone: an added '++ x' is an added line", () => {
    const [file] = diffFiles(patch(
      "diff --git a/c.txt b/c.txt",
      "--- a/c.txt",
      "+++ b/c.txt",
      "@@ -1,2 +1,3 @@",
      "--- removed dashes",
      "+++ added pluses",
      "+",
      " context",
      "… \"c.txt\": 1,000 of 9,000 bytes shown"
    ))
    expect(kinds(file!)).toEqual(["meta", "meta", "meta", "hunk", "removed", "added", "added", "context", "meta"])
    expect([file!.added, file!.removed]).toEqual([2, 1])
  })

  it("splits a plain diff -u (no git header) per file, and keeps lines before any header", () => {
    const files = diffFiles(patch(
      "note before",
      "--- a/one.txt\t2026-01-01",
      "+++ b/one.txt\t2026-01-02",
      "@@ -1 +1 @@",
      "-1",
      "+one",
      "--- two.txt",
      "+++ two.txt",
      "@@ -1 +1,2 @@",
      " 2",
      "+two"
    ))
    expect(files.map((file) => [diffFileTitle(file), file.added, file.removed])).toEqual([["one.txt", 1, 1], ["two.txt", 1, 0]])
    expect(files[0]!.lines[0]).toEqual({ text: "note before", kind: "context", className: "diff-line diff-context" })
    expect(diffFileTitle({ ...files[0]!, path: "" })).toBe("(patch)")
  })

  it("draws report.html's diff as a section per file, headed by its name, its lines escaped in a block of their own", () => {
    const html = renderDiff(patch(
      "diff --git a/a<b>.ts b/a<b>.ts",
      "--- a/a<b>.ts",
      "+++ b/a<b>.ts",
      "@@ -1 +1 @@",
      "-<old>",
      "+<new>",
      "diff --git a/x.txt b/y.txt",
      "rename from x.txt",
      "rename to y.txt"
    ))
    expect(html.match(/<section class="diff-file">/g)).toHaveLength(2)
    expect(html).toContain(
      `<h4 class="diff-file-name"><code>a&lt;b&gt;.ts</code> <span class="diff-count-added">+1</span> <span class="diff-count-removed">−1</span></h4><pre class="diff" tabindex="0" aria-label="Diff of a&lt;b&gt;.ts">`
    )
    expect(html).toContain(`<span class="diff-line diff-added">+&lt;new&gt;</span>`)
    expect(html).toContain(`<h4 class="diff-file-name"><code>x.txt → y.txt</code> <span class="diff-status">renamed</span>`)
    expect(html).not.toContain("<new>")
  })
})
