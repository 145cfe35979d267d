import { Option, Schema } from "effect"

/**
 * Whether Codex's result is Claude's: a replay that reached Claude's answer (through a leak of the
 * history, a saved report or the user's repository) would otherwise be judged a tie and count as one.
 *
 * The measure: each patch's changed lines (added and removed lines inside hunks, marker kept, whitespace
 * trimmed and runs of whitespace collapsed to one space, blank lines left out) as a multiset; the
 * similarity is the size of the two multisets' intersection over the size of the larger one. File order
 * and file headers do not count. A patch that changes no line is never a match.
 */

/** The similarity from which a Codex patch counts as Claude's. */
export const LEAK_THRESHOLD = 0.9
export const POSSIBLE_LEAK = "matches Claude's result: possible leak"

/** `report.json`'s `integrity` (absent in reports written before the check). */
export const Integrity = Schema.Struct({
  /** True when the similarity reaches `threshold`: the run is not counted as a verdict. */
  matches_claude: Schema.Boolean,
  /** Shared changed lines over the larger side's changed lines; `null` when neither patch changes a line. */
  similarity: Schema.NullOr(Schema.Number),
  shared_lines: Schema.Number,
  codex_lines: Schema.Number,
  claude_lines: Schema.Number,
  threshold: Schema.Number,
  /** The sentence to show when the patches match; `null` otherwise. */
  note: Schema.NullOr(Schema.String)
})
export type Integrity = typeof Integrity.Type

const HUNK_HEADER = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/

/** Trimmed, runs of whitespace as one space; a line that has none to collapse is not rewritten (most are not). */
const normalized = (text: string) => {
  const trimmed = text.trim()
  return /\s\s|[^\S ]/.test(trimmed) ? trimmed.replace(/\s+/g, " ") : trimmed
}

/** The added (`+…`) and removed (`-…`) lines of a unified diff, whitespace normalised, blank ones left out. */
export const changedLines = (patch: string): Array<string> => {
  const changed: Array<string> = []
  let oldLeft = 0
  let newLeft = 0
  for (const line of patch.split("\n")) {
    if (oldLeft > 0 || newLeft > 0) {
      const marker = line[0]
      if (marker === "\\") continue
      if (marker === "+") newLeft--
      else if (marker === "-") oldLeft--
      else {
        oldLeft--
        newLeft--
        continue
      }
      const content = normalized(line.slice(1))
      if (content !== "") changed.push(`${marker}${content}`)
      continue
    }
    const header = HUNK_HEADER.exec(line)
    if (header !== null) {
      oldLeft = header[1] === undefined ? 1 : Number(header[1])
      newLeft = header[2] === undefined ? 1 : Number(header[2])
    }
  }
  return changed
}

const counts = (lines: ReadonlyArray<string>) => {
  const map = new Map<string, number>()
  for (const line of lines) map.set(line, (map.get(line) ?? 0) + 1)
  return map
}

/** How much of the two patches' changed lines they share (see the module's comment). */
export const patchSimilarity = (codexPatch: string, claudePatch: string) => {
  const codex = changedLines(codexPatch)
  const claude = counts(changedLines(claudePatch))
  let shared = 0
  for (const [line, count] of counts(codex)) shared += Math.min(count, claude.get(line) ?? 0)
  const claudeLines = [...claude.values()].reduce((sum, count) => sum + count, 0)
  const larger = Math.max(codex.length, claudeLines)
  return { similarity: larger === 0 ? null : shared / larger, shared_lines: shared, codex_lines: codex.length, claude_lines: claudeLines }
}

/** The integrity check of one run: whether Codex's patch is (nearly) Claude's. */
export const integrityOf = (codexPatch: string, claudePatch: string): Integrity => {
  const measured = patchSimilarity(codexPatch, claudePatch)
  // Claude's lines padded out with a few of Codex's own (a test file, comments) are a copy too: nearly
  // all of Claude's changed lines, making at least half of Codex's. A short patch of Claude's inside a
  // much larger rewrite is not.
  const padded = measured.claude_lines > 0 && measured.codex_lines > 0 &&
    measured.shared_lines / measured.claude_lines >= LEAK_THRESHOLD && measured.shared_lines / measured.codex_lines >= 0.5
  const matches = measured.similarity !== null && measured.codex_lines > 0 && measured.claude_lines > 0 &&
    (measured.similarity >= LEAK_THRESHOLD || padded)
  return {
    matches_claude: matches,
    ...measured,
    threshold: LEAK_THRESHOLD,
    note: matches
      ? `Codex's patch ${POSSIBLE_LEAK}: it holds ${measured.shared_lines} of Claude's ${measured.claude_lines} changed lines (${Math.floor((measured.similarity ?? 0) * 100)}% of the larger patch), so the verdict is not counted.`
      : null
  }
}

/** The parts of a report the check reads: its recorded check, else the two patches. */
const ReportPatches = Schema.Struct({
  integrity: Schema.optional(Schema.NullOr(Integrity)),
  candidates: Schema.optional(Schema.Struct({
    codex: Schema.optional(Schema.Struct({ patch: Schema.optional(Schema.String) })),
    claude: Schema.optional(Schema.Struct({ patch: Schema.optional(Schema.String) }))
  }))
})

/**
 * A report's integrity check: the one it recorded, or for a report written before the check, one
 * computed from the two patches it holds; `null` when it has neither.
 */
export const reportIntegrity = (report: unknown): Integrity | null =>
  Option.match(Schema.decodeUnknownOption(ReportPatches)(report), {
    onNone: () => null,
    onSome: ({ candidates, integrity }) => {
      if (integrity !== undefined && integrity !== null) return integrity
      const codex = candidates?.codex?.patch
      const claude = candidates?.claude?.patch
      return codex === undefined || claude === undefined ? null : integrityOf(codex, claude)
    }
  })
