/**
 * A unified diff as per-file collapsible blocks: file headers with their added and removed counts, each
 * line coloured by its kind as the report's classifier decides it (`classifyDiffLine`).
 */
import { classifyDiffLine, type DiffLineKind } from "../domain/report/diff.js"
import { h } from "./dom.js"

/** The page's class of each kind of diff line. */
const DIFF_CLASSES: Readonly<Record<DiffLineKind, string>> = { meta: "meta", hunk: "hunk", added: "add", removed: "del", context: "ctx" }

interface DiffFile {
  name: string
  readonly lines: Array<string>
}

const filesOf = (patch: string): Array<DiffFile> => {
  const files: Array<DiffFile> = []
  for (const line of patch.split("\n")) {
    const starts = line.startsWith("diff --git ")
    if (starts || files.length === 0) files.push({ name: starts ? line.replace(/^diff --git a\/(.*?) b\/.*$/, "$1") : "", lines: [] })
    const file = files[files.length - 1]
    if (file === undefined) continue
    if (line.startsWith("+++ ") && !file.name) file.name = line.slice(4).replace(/^b\//, "")
    file.lines.push(line)
  }
  return files
}

export const renderDiff = (patch: string | null | undefined, label: string): HTMLElement => {
  if (!patch || !patch.trim()) return h("p", { className: "muted", text: "(no changes)" })
  const files = filesOf(patch)
  const wrap = h("div", { className: "diff-files", "aria-label": label })
  for (const file of files) {
    const added = file.lines.filter((l) => l.startsWith("+") && !l.startsWith("+++")).length
    const removed = file.lines.filter((l) => l.startsWith("-") && !l.startsWith("---")).length
    const pre = h("pre", { className: "diff-view", tabindex: "0", "aria-label": `Diff of ${file.name || "file"}` },
      file.lines.map((line) => h("span", { className: `diff-line diff-${DIFF_CLASSES[classifyDiffLine(line)]}`, text: `${line}\n` })))
    wrap.append(h("details", { className: "diff-file", open: files.length <= 5 },
      h("summary", {}, h("span", { className: "mono", text: file.name || "(patch)" }), " ", h("span", { className: "diff-add", text: `+${added}` }), " ", h("span", { className: "diff-del", text: `−${removed}` })),
      pre))
  }
  return wrap
}
