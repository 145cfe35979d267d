import { escapeHtml } from "./format.js"

export type DiffLineKind = "added" | "removed" | "hunk" | "meta" | "context"

/** Classifies a unified-diff line by its prefix only, so that colouring never depends on the language. */
export const classifyDiffLine = (line: string): DiffLineKind => {
  if (/^(?:diff |index |--- |\+\+\+ |new file mode|deleted file mode|old mode|new mode|similarity |rename |Binary files)/.test(line)) {
    return "meta"
  }
  if (line.startsWith("@@")) return "hunk"
  if (line.startsWith("+")) return "added"
  if (line.startsWith("-")) return "removed"
  return "context"
}

/** A patch as escaped lines, each a block-level span classed by its kind (so no newline between them). */
export const renderDiff = (patch: string): string => {
  if (patch.trim() === "") return `<p class="empty">No changes.</p>`
  const lines = patch.replace(/\n$/, "").split("\n")
  const body = lines.map((line) => `<span class="diff-line diff-${classifyDiffLine(line)}">${escapeHtml(line)}</span>`).join("")
  return `<pre class="diff">${body}</pre>`
}
