/**
 * Anonymous candidates (docs/verdicts.md): the task, a patch, a final response and the changed files, with the
 * authorship fingerprints removed so that nothing tells the reviewer who wrote which candidate.
 */
import { fileHeaderPaths, plainHeaderLine } from "./patchPaths.js"

export interface ChangedFile {
  readonly path: string
  readonly additions: number
  readonly deletions: number
  /** A binary file: listed with its size, its content never shown (docs/controller.md, "Ceilings on agent output"). */
  readonly binary?: boolean
  /** The binary file's size as the agent left it (0 when it deleted the file). */
  readonly bytes?: number
}

/** One side's result as the review needs it. */
export interface CandidateResult {
  readonly patch: string
  readonly final_response: string
  readonly files: ReadonlyArray<ChangedFile>
  /** Where the side worked; its path (which names the run or the user's project) never reaches the reviewer. */
  readonly worktree?: string | null
  /** Other directories the side worked in (Claude's recorded working directories, the project as configured): scrubbed like the worktree. */
  readonly working_directories?: ReadonlyArray<string>
}

/** The content of `reviews/candidate-a.json` / `candidate-b.json`. */
export interface AnonymousCandidate {
  readonly task: string
  readonly patch: string
  readonly final_response: string
  readonly changed_files: ReadonlyArray<ChangedFile>
  /** The project's checks on this candidate's result (domain/checks/outcomes.ts `reviewerChecks`), when any ran. */
  readonly checks?: ReadonlyArray<Readonly<Record<string, unknown>>>
}

const AGENT_NAMES = String.raw`(?:Claude[ -]Code|Claude|Anthropic|OpenAI[ -]Codex|Codex[ -]CLI|Codex|OpenAI|ChatGPT|GPT-\d[\w.-]*|Sonnet|Opus|Haiku)`
const AGENT_EMAIL = String.raw`(?:noreply|no-reply|claude|codex)@(?:anthropic|openai)\.com`

/** Whole lines that exist only to claim authorship. */
const FINGERPRINT_LINES: ReadonlyArray<RegExp> = [
  /^\s*co-authored-by:/i,
  new RegExp(String.raw`^\s*(?:signed-off-by|generated-by|assisted-by|from):.*(?:${AGENT_NAMES}|${AGENT_EMAIL})`, "i"),
  new RegExp(String.raw`\b(?:generated|created|written|made|authored)\s+(?:with|by|using)\b.*\b${AGENT_NAMES}\b`, "i"),
  new RegExp(String.raw`🤖.*\b${AGENT_NAMES}\b`, "i"),
  new RegExp(AGENT_EMAIL, "i")
]

/** An agent's name as a word, not as part of a path, file name or identifier (`CLAUDE.md`, `~/.codex/`). */
const AGENT_NAME_IN_PROSE = new RegExp(String.raw`(?<![\w./\\@-])${AGENT_NAMES}(?![\w/\\-]|\.\w)`, "gi")

export const isFingerprintLine = (line: string): boolean => FINGERPRINT_LINES.some((pattern) => pattern.test(line))

/** Replaces agent names in prose with a neutral word. */
export const neutralizeAgentNames = (text: string): string => text.replace(AGENT_NAME_IN_PROSE, "the agent")

const dropFingerprintLines = (text: string): string =>
  text
    .split("\n")
    .filter((line) => !isFingerprintLine(line))
    .join("\n")

/** A final response or message without fingerprint lines and without agent names. */
export const anonymizeProse = (text: string): string => neutralizeAgentNames(dropFingerprintLines(text)).trim()

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$/

interface OpenHunk {
  readonly index: number
  readonly oldStart: string
  readonly oldCount: number
  readonly newStart: string
  readonly newCount: number
  readonly tail: string
  oldLeft: number
  newLeft: number
  dropped: number
}

const openHunk = (index: number, match: RegExpExecArray): OpenHunk => {
  const oldCount = match[2] === undefined ? 1 : Number(match[2])
  const newCount = match[4] === undefined ? 1 : Number(match[4])
  return {
    index,
    oldStart: match[1] ?? "0",
    oldCount,
    newStart: match[3] ?? "0",
    newCount,
    tail: match[5] ?? "",
    oldLeft: oldCount,
    newLeft: newCount,
    dropped: 0
  }
}

const formatRange = (start: string, count: number) => (count === 1 ? start : `${start},${count}`)

/**
 * The hunk header as the transcript-rebuilt diff writes it: git's function-context tail (`@@ … @@ name`)
 * is dropped, since only a patch made by git has one.
 */
const hunkHeader = (hunk: OpenHunk) =>
  `@@ -${formatRange(hunk.oldStart, hunk.oldCount)} +${formatRange(hunk.newStart, hunk.newCount - hunk.dropped)} @@`

const DIFF_METADATA = /^(?:diff |index |--- |\+\+\+ |new file mode|deleted file mode|old mode|new mode|similarity |rename |copy |Binary files|GIT binary patch|\\ No newline)/

/** Consumes one line of an open hunk; answers whether the line is kept. */
const consumeHunkLine = (hunk: OpenHunk, line: string): boolean => {
  if (line.startsWith("\\")) return true
  if (line.startsWith("+")) {
    hunk.newLeft--
    if (isFingerprintLine(line.slice(1))) {
      hunk.dropped++
      return false
    }
    return true
  }
  if (line.startsWith("-")) hunk.oldLeft--
  else {
    hunk.oldLeft--
    hunk.newLeft--
  }
  return true
}

/**
 * A unified diff without authorship fingerprints: added fingerprint lines are dropped (and their
 * hunk headers recounted); `index` hash lines and git's function-context hunk tails are dropped;
 * commit-message lines outside hunks lose fingerprints and agent names; the files come in path order
 * (`sortedPatch`), so a patch rebuilt from a transcript and one made by git have the same form.
 * Code is otherwise untouched, so identifiers and paths that mention an agent stay as they are.
 */
export const anonymizePatch = (patch: string): string => sortedPatch(withoutFingerprintLines(patch))

const withoutFingerprintLines = (patch: string): string => {
  const output: Array<string> = []
  let hunk: OpenHunk | undefined
  const closeHunk = () => {
    if (hunk !== undefined) output[hunk.index] = hunkHeader(hunk)
    hunk = undefined
  }
  for (const line of patch.split("\n")) {
    if (hunk !== undefined && (hunk.oldLeft > 0 || hunk.newLeft > 0) && !line.startsWith("@@")) {
      if (consumeHunkLine(hunk, line)) output.push(line)
      continue
    }
    closeHunk()
    const header = HUNK_HEADER.exec(line)
    if (header !== null) {
      hunk = openHunk(output.length, header)
      output.push(line)
    } else if (/^index [0-9a-f]+\.\.[0-9a-f]+/.test(line)) {
      // Blob hashes say nothing to a reviewer, and whether a patch has them says how it was made.
      continue
    } else if (DIFF_METADATA.test(line)) {
      output.push(plainHeaderLine(line))
    } else if (!isFingerprintLine(line)) {
      output.push(neutralizeAgentNames(line))
    }
  }
  closeHunk()
  return output.join("\n")
}


const byPath = (left: string, right: string) => (left < right ? -1 : left > right ? 1 : 0)

/**
 * The patch with its file sections in path order, each ending with one newline, whatever came before
 * the first section kept in front: git lists files sorted, a patch rebuilt from Claude's transcript in
 * the order they were edited.
 */
export const sortedPatch = (patch: string): string => {
  const lines = patch.split("\n")
  if (lines[lines.length - 1] === "") lines.pop()
  const preamble: Array<string> = []
  const sections: Array<Array<string>> = []
  for (const line of lines) {
    if (line.startsWith("diff --git ")) sections.push([line])
    else (sections[sections.length - 1] ?? preamble).push(line)
  }
  const ordered = sections
    .map((section) => ({ path: fileHeaderPaths(section[0] ?? "")?.new ?? section[0] ?? "", text: section.join("\n") }))
    .sort((left, right) => byPath(left.path, right.path))
  const parts = [...(preamble.length === 0 ? [] : [preamble.join("\n")]), ...ordered.map((section) => section.text)]
  return parts.length === 0 ? "" : `${parts.join("\n")}\n`
}

/** A replay run id (`run-20261129T160737Z-28d3683249`): it would tell the replayed side from the historical one. */
const RUN_ID_SOURCE = String.raw`\brun-\d{8}T\d{6}Z-[0-9a-f]{10}\b`
const RUN_ID = new RegExp(RUN_ID_SOURCE, "g")

/** Where a path ends: a slash (kept as `./`), or anything but more of a name (`codex-old`, `codex.bak`). */
const PATH_END = String.raw`(?:/|(?![\w-]|\.\w))`

/**
 * A run's workspace however its run root is spelled (through any symlink, relative or not): the run id
 * followed by `workspaces/codex` (or an archived attempt), with whatever path leads to it. A match starts
 * only where a path can (the lookbehind), so a long word is scanned once, not once from each of its
 * characters.
 */
const RUN_WORKSPACE = new RegExp(
  String.raw`(?<![^\s"'\`<>()[\]{}|,;])[^\s"'\`<>()[\]{}|,;]*${RUN_ID_SOURCE}/workspaces/codex(?:-attempt-\d+-failed)?${PATH_END}`,
  "g"
)

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

const neutralPlace = (match: string) => (match.endsWith("/") ? "./" : "the workspace")

/**
 * The text with every spelling of the places the sides worked in replaced by neutral words: each of
 * `places` (a workspace, run directory or project, as given: callers add the `realpath` and other
 * spellings they know), with or without a trailing slash; a run's workspace under any run-root spelling;
 * and any run id. Both candidates get the same neutral form (`./x.js`, `the workspace`).
 */
export const withoutWorkspaceTraces = (text: string, places: string | null | undefined | ReadonlyArray<string | null | undefined>): string => {
  const list = typeof places === "string" || places === null || places === undefined ? [places] : places
  const roots = [...new Set(list.flatMap((place) => {
    const root = place?.replace(/\/+$/, "")
    return root === undefined || root.length < 2 ? [] : [root]
  }))].sort((left, right) => right.length - left.length)
  const withoutRoots = roots.length === 0
    ? text
    : text.replace(new RegExp(`(?<![\\w.~-])(?:${roots.map(escapeRegExp).join("|")})${PATH_END}`, "g"), neutralPlace)
  return withoutRoots.replace(RUN_WORKSPACE, neutralPlace).replace(RUN_ID, "the run")
}

/**
 * The anonymous candidate file for one side. `places` are further spellings to scrub (both sides'
 * directories and their `realpath`s, the run directory), so that both candidates are scrubbed alike.
 */
export const anonymousCandidate = (task: string, result: CandidateResult, places: ReadonlyArray<string> = []): AnonymousCandidate => {
  const scrubbed = [result.worktree, ...(result.working_directories ?? []), ...places]
  const patch = withoutWorkspaceTraces(anonymizePatch(result.patch), scrubbed)
  // Line counts follow the anonymous patch, so a dropped fingerprint line leaves no trace in them.
  const counted = new Map(changedFilesFromPatch(patch).map((file) => [file.path, file]))
  return {
    task,
    patch,
    final_response: withoutWorkspaceTraces(anonymizeProse(result.final_response), scrubbed),
    changed_files: [...result.files].sort((left, right) => byPath(left.path, right.path)).map((file) => {
      const fromPatch = counted.get(file.path)
      return {
        path: file.path,
        additions: fromPatch?.additions ?? file.additions,
        deletions: fromPatch?.deletions ?? file.deletions,
        ...(file.binary === true ? { binary: true, bytes: file.bytes ?? 0 } : {})
      }
    })
  }
}

/** Changed files with line counts, read from a unified diff (`diff --git a/x b/x` sections). */
export const changedFilesFromPatch = (patch: string): ReadonlyArray<ChangedFile> => {
  const files: Array<{ path: string; additions: number; deletions: number }> = []
  let current: { path: string; additions: number; deletions: number } | undefined
  for (const line of patch.split("\n")) {
    const header = fileHeaderPaths(line)
    if (header !== undefined) {
      current = { path: header.new, additions: 0, deletions: 0 }
      files.push(current)
    } else if (current !== undefined && line.startsWith("+") && !line.startsWith("+++ ")) current.additions++
    else if (current !== undefined && line.startsWith("-") && !line.startsWith("--- ")) current.deletions++
  }
  return files
}
