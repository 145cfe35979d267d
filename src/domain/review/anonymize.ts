/**
 * Anonymous candidates (SPEC §9): the task, a patch, a final response and the changed files, with the
 * authorship fingerprints removed so that nothing tells the reviewer who wrote which candidate.
 */

export interface ChangedFile {
  readonly path: string
  readonly additions: number
  readonly deletions: number
}

/** One side's result as the review needs it. */
export interface CandidateResult {
  readonly patch: string
  readonly final_response: string
  readonly files: ReadonlyArray<ChangedFile>
  /** Where the side worked; its path (which names the run or the user's project) never reaches the reviewer. */
  readonly worktree?: string | null
}

/** The content of `reviews/candidate-a.json` / `candidate-b.json`. */
export interface AnonymousCandidate {
  readonly task: string
  readonly patch: string
  readonly final_response: string
  readonly changed_files: ReadonlyArray<ChangedFile>
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

const hunkHeader = (hunk: OpenHunk) =>
  `@@ -${hunk.oldStart},${hunk.oldCount} +${hunk.newStart},${hunk.newCount - hunk.dropped} @@${hunk.tail}`

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
 * hunk headers recounted); `index` hash lines are dropped; commit-message lines outside hunks lose
 * fingerprints and agent names.
 * Code is otherwise untouched, so identifiers and paths that mention an agent stay as they are.
 */
export const anonymizePatch = (patch: string): string => {
  const output: Array<string> = []
  let hunk: OpenHunk | undefined
  const closeHunk = () => {
    if (hunk !== undefined && hunk.dropped > 0) output[hunk.index] = hunkHeader(hunk)
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
      output.push(line)
    } else if (!isFingerprintLine(line)) {
      output.push(neutralizeAgentNames(line))
    }
  }
  closeHunk()
  return output.join("\n")
}

/** A replay run id (`run-20261129T160737Z-28d3683249`): it would tell the replayed side from the historical one. */
const RUN_ID = /\brun-\d{8}T\d{6}Z-[0-9a-f]{10}\b/g

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** The text with the side's own workspace path and any run id replaced by neutral words. */
export const withoutWorkspaceTraces = (text: string, worktree: string | null | undefined): string => {
  const root = worktree === undefined || worktree === null || worktree.length < 2 ? undefined : worktree.replace(/\/+$/, "")
  const withoutRoot = root === undefined
    ? text
    : text.replace(new RegExp(`${escapeRegExp(root)}(?:/|(?![\\w-]|\\.\\w))`, "g"), (match) => (match.endsWith("/") ? "./" : "the workspace"))
  return withoutRoot.replace(RUN_ID, "the run")
}

/** The anonymous candidate file for one side. */
export const anonymousCandidate = (task: string, result: CandidateResult): AnonymousCandidate => {
  const patch = withoutWorkspaceTraces(anonymizePatch(result.patch), result.worktree)
  // Line counts follow the anonymous patch, so a dropped fingerprint line leaves no trace in them.
  const counted = new Map(changedFilesFromPatch(patch).map((file) => [file.path, file]))
  return {
    task,
    patch,
    final_response: withoutWorkspaceTraces(anonymizeProse(result.final_response), result.worktree),
    changed_files: result.files.map((file) => {
      const fromPatch = counted.get(file.path)
      return { path: file.path, additions: fromPatch?.additions ?? file.additions, deletions: fromPatch?.deletions ?? file.deletions }
    })
  }
}

/** Changed files with line counts, read from a unified diff (`diff --git a/x b/x` sections). */
export const changedFilesFromPatch = (patch: string): ReadonlyArray<ChangedFile> => {
  const files: Array<{ path: string; additions: number; deletions: number }> = []
  let current: { path: string; additions: number; deletions: number } | undefined
  for (const line of patch.split("\n")) {
    const header = /^diff --git a\/(.+?) b\/(.+)$/.exec(line)
    if (header !== null) {
      current = { path: header[2] ?? header[1] ?? "", additions: 0, deletions: 0 }
      files.push(current)
    } else if (current !== undefined && line.startsWith("+") && !line.startsWith("+++ ")) current.additions++
    else if (current !== undefined && line.startsWith("-") && !line.startsWith("--- ")) current.deletions++
  }
  return files
}
