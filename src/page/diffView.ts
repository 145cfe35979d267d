/**
 * A unified diff on the page: the report's view model (`diffFiles`, src/domain/report/diff.ts) drawn as
 * collapsible per-file blocks — the file's name and facts (status, counts) as report.html heads them, its lines
 * with the same classes, each file scrolling on its own.
 */
import { diffFileFacts, diffFileLabel, diffFiles, diffFileTitle, NO_CHANGES } from "../domain/report/diff.js"
import { h } from "./dom.js"

/** More files than this start folded. */
const OPEN_FILES = 5

export const renderDiff = (patch: string | null | undefined, label: string): HTMLElement => {
  const files = diffFiles(patch ?? "")
  if (files.length === 0) return h("p", { className: "muted", text: NO_CHANGES })
  return h("div", { className: "diff-files", "aria-label": label },
    files.map((file) =>
      h("details", { className: "diff-file", open: files.length <= OPEN_FILES },
        h("summary", {}, h("span", { className: "mono diff-file-name", text: diffFileTitle(file) }),
          diffFileFacts(file).map((fact) => [" ", h("span", { className: fact.className, text: fact.text })])),
        h("pre", { className: "diff-view", tabindex: "0", "aria-label": diffFileLabel(file) },
          file.lines.map((line) => h("span", { className: line.className, text: `${line.text}\n` }))))))
}
