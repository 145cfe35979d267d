/**
 * A unified diff as the page and report.html show it: one view model (`diffFiles`: files, each with its path,
 * status, counts and classed lines) drawn by report.html's HTML-string renderer here (`renderDiff`) and by the
 * page's DOM renderer (src/page/diffView.ts), each file a section of its own that scrolls on its own.
 */
import { fileHeaderPaths, unquoteGitPath } from "../review/patchPaths.js"
import { escapeHtml } from "./format.js"

export type DiffLineKind = "added" | "removed" | "hunk" | "meta" | "context"

/**
 * Classifies a unified-diff line by its prefix only, so that colouring never depends on the language:
 * headers, "\ No newline at end of file" and the "… cut" markers of a cut patch are meta.
 */
export const classifyDiffLine = (line: string): DiffLineKind => {
  if (/^(?:diff |index |--- |\+\+\+ |new file mode|deleted file mode|old mode|new mode|similarity |dissimilarity |rename |copy |Binary files|GIT binary patch|\\ |… )/.test(line)) {
    return "meta"
  }
  if (line.startsWith("@@")) return "hunk"
  if (line.startsWith("+")) return "added"
  if (line.startsWith("-")) return "removed"
  return "context"
}

export type DiffFileStatus = "modified" | "added" | "deleted" | "renamed" | "copied"

export interface DiffLine {
  readonly text: string
  readonly kind: DiffLineKind
  /** The line's classes in both renderers: `diff-line diff-<kind>`. */
  readonly className: string
}

export interface DiffFile {
  /** The file's path (its new one when renamed or copied); "" for lines before any file's header. */
  readonly path: string
  /** The path it was renamed or copied from; null otherwise. */
  readonly previous_path: string | null
  readonly status: DiffFileStatus
  /** Git wrote no lines for it ("Binary files … differ", or a binary patch). */
  readonly binary: boolean
  readonly added: number
  readonly removed: number
  /** Every line of its section, its header included. */
  readonly lines: ReadonlyArray<DiffLine>
}

interface Draft {
  path: string
  previous_path: string | null
  status: DiffFileStatus
  binary: boolean
  added: number
  removed: number
  hunks: number
  readonly lines: Array<DiffLine>
}

const HUNK = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/

/** The name on a `---`/`+++` line: unquoted, without `a/`/`b/` and what follows a tab; null for /dev/null. */
const sideName = (line: string): string | null => {
  const name = unquoteGitPath(line.slice(4).replace(/\t.*$/, ""))
  return name === "/dev/null" ? null : name.replace(/^[ab]\//, "")
}

/** What a header line says of its file. */
const readHeader = (file: Draft, line: string) => {
  if (line.startsWith("new file mode")) file.status = "added"
  else if (line.startsWith("deleted file mode")) file.status = "deleted"
  else if (line.startsWith("rename from ") || line.startsWith("copy from ")) {
    file.status = line.startsWith("rename") ? "renamed" : "copied"
    file.previous_path = unquoteGitPath(line.replace(/^(rename|copy) from /, ""))
  } else if (line.startsWith("rename to ") || line.startsWith("copy to ")) file.path = unquoteGitPath(line.replace(/^(rename|copy) to /, ""))
  else if (line.startsWith("Binary files ") || line === "GIT binary patch") file.binary = true
  else if (line.startsWith("--- ") || line.startsWith("+++ ")) {
    const name = sideName(line)
    if (name === null) file.status = line.startsWith("---") ? "added" : "deleted"
    else if (file.path === "") file.path = name
  }
}

const classed = (text: string, kind: DiffLineKind): DiffLine => ({ text, kind, className: `diff-line diff-${kind}` })

/**
 * A unified diff (git's, or a plain `diff -u`'s) as its files. Inside a hunk its line counts decide what a line
 * is, so an added line that reads `++ x` (`+++ x`) is still an added line; outside, its prefix does. `[]` for
 * an empty diff.
 */
export const diffFiles = (patch: string): ReadonlyArray<DiffFile> => {
  if (patch.trim() === "") return []
  const files: Array<Draft> = []
  let oldLeft = 0
  let newLeft = 0
  const start = (path: string, previous: string | null): Draft => {
    const file: Draft = { path, previous_path: previous, status: "modified", binary: false, added: 0, removed: 0, hunks: 0, lines: [] }
    files.push(file)
    return file
  }
  for (const text of patch.replace(/\r?\n$/, "").split("\n")) {
    let file = files[files.length - 1]
    if ((oldLeft > 0 || newLeft > 0) && file !== undefined && /^(?:[ +\\-]|$)/.test(text)) {
      const kind = text.startsWith("+") ? "added" : text.startsWith("-") ? "removed" : text.startsWith("\\") ? "meta" : "context"
      if (kind !== "added" && kind !== "meta") oldLeft--
      if (kind !== "removed" && kind !== "meta") newLeft--
      if (kind === "added") file.added++
      if (kind === "removed") file.removed++
      file.lines.push(classed(text, kind))
      continue
    }
    oldLeft = 0
    newLeft = 0
    const header = fileHeaderPaths(text)
    if (text.startsWith("diff --git ")) {
      file = start(header?.new ?? "", header !== undefined && header.old !== header.new ? header.old : null)
    } else if (file === undefined || (text.startsWith("--- ") && file.hunks > 0)) {
      // Lines before any header, or the next file of a plain `diff -u` (no `diff --git` line).
      file = start("", null)
    }
    readHeader(file, text)
    const hunk = HUNK.exec(text)
    if (hunk !== null) {
      oldLeft = Number(hunk[1] ?? 1)
      newLeft = Number(hunk[2] ?? 1)
      file.hunks++
    }
    file.lines.push(classed(text, classifyDiffLine(text)))
  }
  return files.map(({ hunks: _, ...file }) => file)
}

/** What is said for an empty diff. */
export const NO_CHANGES = "No changes."

/** A file's name as its heading says it: `old → new` when renamed or copied; "(patch)" for lines before any file. */
export const diffFileTitle = (file: DiffFile) =>
  file.previous_path !== null && file.previous_path !== file.path ? `${file.previous_path} → ${file.path}` : file.path === "" ? "(patch)" : file.path

/** The accessible name of a file's scrolling lines. */
export const diffFileLabel = (file: DiffFile) => `Diff of ${file.path === "" ? "the patch" : file.path}`

const STATUS_WORDS: Readonly<Record<DiffFileStatus, string | null>> = { modified: null, added: "new file", deleted: "deleted", renamed: "renamed", copied: "copied" }

/** What a file's heading says beside its name, each part with its class: its status, then `binary` or its counts. */
export const diffFileFacts = (file: DiffFile): ReadonlyArray<{ readonly text: string; readonly className: string }> => {
  const status = STATUS_WORDS[file.status]
  return [
    ...(status === null ? [] : [{ text: status, className: "diff-status" }]),
    ...(file.binary
      ? [{ text: "binary", className: "diff-status" }]
      : [{ text: `+${file.added}`, className: "diff-count-added" }, { text: `−${file.removed}`, className: "diff-count-removed" }])
  ]
}

/**
 * report.html's diff: a section per file, its name as a heading beside its facts, its lines escaped, each a
 * block-level span (so no newline between them) in a block that scrolls on its own.
 */
export const renderDiff = (patch: string): string => {
  const files = diffFiles(patch)
  if (files.length === 0) return `<p class="empty">${NO_CHANGES}</p>`
  const sections = files.map((file) => {
    const facts = diffFileFacts(file).map((fact) => ` <span class="${fact.className}">${escapeHtml(fact.text)}</span>`).join("")
    const lines = file.lines.map((entry) => `<span class="${entry.className}">${escapeHtml(entry.text)}</span>`).join("")
    return `<section class="diff-file"><h4 class="diff-file-name"><code>${escapeHtml(diffFileTitle(file))}</code>${facts}</h4><pre class="diff" tabindex="0" aria-label="${
      escapeHtml(diffFileLabel(file))
    }">${lines}</pre></section>`
  })
  return `<div class="diff-files">${sections.join("")}</div>`
}
