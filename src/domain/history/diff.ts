import { arrayField, isRecord, numberField } from "./json.js"

/** A jsdiff `structuredPatch` hunk as Claude Code records it. */
export interface Hunk {
  readonly oldStart: number
  readonly oldLines: number
  readonly lines: ReadonlyArray<string>
}

export const parseHunks = (value: unknown): Array<Hunk> | undefined => {
  if (!Array.isArray(value)) return undefined
  const hunks: Array<Hunk> = []
  for (const item of value) {
    if (!isRecord(item)) return undefined
    const oldStart = numberField(item, "oldStart")
    const oldLines = numberField(item, "oldLines")
    const lines = arrayField(item, "lines")
    if (oldStart === undefined || oldLines === undefined || !lines.every((line) => typeof line === "string")) {
      return undefined
    }
    hunks.push({ oldStart, oldLines, lines: lines as ReadonlyArray<string> })
  }
  return hunks
}

/**
 * Applies hunks to `original`: untouched lines are copied, `' '` lines kept, `'-'` dropped, `'+'`
 * added, `'\'` markers ignored. Returns undefined when a hunk does not fit the original.
 */
export const applyHunks = (original: string, hunks: ReadonlyArray<Hunk>): string | undefined => {
  const source = original.split("\n")
  const output: Array<string> = []
  let cursor = 0
  for (const hunk of hunks) {
    const start = Math.max(hunk.oldLines === 0 ? hunk.oldStart : hunk.oldStart - 1, 0)
    if (start < cursor || start > source.length) return undefined
    while (cursor < start) output.push(source[cursor++]!)
    for (const line of hunk.lines) {
      const marker = line[0]
      const text = line.slice(1)
      if (marker === " " || marker === "-") {
        if (source[cursor] !== text) return undefined
        cursor++
        if (marker === " ") output.push(text)
      } else if (marker === "+") {
        output.push(text)
      }
    }
  }
  while (cursor < source.length) output.push(source[cursor++]!)
  return output.join("\n")
}

type Operation = { readonly kind: " " | "-" | "+"; readonly text: string }

/** Above this many trace cells the diff degrades to "replace everything" to bound memory. */
const MAX_TRACE_CELLS = 20_000_000

/** Myers' O(ND) line diff of the middle part that differs. */
const myers = (a: ReadonlyArray<string>, b: ReadonlyArray<string>): Array<Operation> => {
  const n = a.length
  const m = b.length
  const max = n + m
  const offset = max + 1
  const v = new Int32Array(2 * max + 3)
  const trace: Array<Int32Array> = []
  let found = max === 0
  for (let d = 0; d <= max && !found; d++) {
    if ((d + 1) * v.length > MAX_TRACE_CELLS) {
      return [...a.map((text) => ({ kind: "-" as const, text })), ...b.map((text) => ({ kind: "+" as const, text }))]
    }
    trace.push(v.slice())
    for (let k = -d; k <= d; k += 2) {
      const down = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!)
      let x = down ? v[offset + k + 1]! : v[offset + k - 1]! + 1
      let y = x - k
      while (x < n && y < m && a[x] === b[y]) {
        x++
        y++
      }
      v[offset + k] = x
      if (x >= n && y >= m) {
        found = true
        break
      }
    }
  }
  const operations: Array<Operation> = []
  let x = n
  let y = m
  for (let d = trace.length - 1; d >= 0; d--) {
    const previous = trace[d]!
    const k = x - y
    const down = k === -d || (k !== d && previous[offset + k - 1]! < previous[offset + k + 1]!)
    const previousK = down ? k + 1 : k - 1
    const previousX = previous[offset + previousK]!
    const previousY = previousX - previousK
    while (x > previousX && y > previousY) {
      x--
      y--
      operations.push({ kind: " ", text: a[x]! })
    }
    if (d === 0) break
    if (down) operations.push({ kind: "+", text: b[--y]! })
    else operations.push({ kind: "-", text: a[--x]! })
  }
  return operations.reverse()
}

/** Strips the common prefix and suffix (most edits are local) before running Myers on the rest. */
const diffLines = (a: ReadonlyArray<string>, b: ReadonlyArray<string>): Array<Operation> => {
  let prefix = 0
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++
  let suffix = 0
  while (suffix < a.length - prefix && suffix < b.length - prefix &&
    a[a.length - 1 - suffix] === b[b.length - 1 - suffix]) suffix++
  const same = (text: string): Operation => ({ kind: " ", text })
  return [
    ...a.slice(0, prefix).map(same),
    ...myers(a.slice(prefix, a.length - suffix), b.slice(prefix, b.length - suffix)),
    ...a.slice(a.length - suffix).map(same)
  ]
}

/** Marks the last line of a file without a final newline so that it differs from the same text with one. */
const NO_EOL = "\u0000no-eol"
const NO_NEWLINE = "\\ No newline at end of file"

const splitText = (text: string | null): Array<string> => {
  if (text === null || text === "") return []
  const lines = text.split("\n")
  if (text.endsWith("\n")) lines.pop()
  else lines[lines.length - 1] += NO_EOL
  return lines
}

const CONTEXT = 3

const formatRange = (start: number, count: number) =>
  count === 1 ? `${start}` : `${count === 0 ? start - 1 : start},${count}`

const renderLine = (operation: Operation): Array<string> =>
  operation.text.endsWith(NO_EOL)
    ? [`${operation.kind}${operation.text.slice(0, -NO_EOL.length)}`, NO_NEWLINE]
    : [`${operation.kind}${operation.text}`]

/** Groups an edit script into unified-diff hunks with three lines of context. */
const hunksOf = (operations: ReadonlyArray<Operation>): Array<string> => {
  const changed = operations.flatMap((operation, index) => (operation.kind === " " ? [] : [index]))
  const output: Array<string> = []
  let groupStart = 0
  while (groupStart < changed.length) {
    let groupEnd = groupStart
    while (groupEnd + 1 < changed.length && changed[groupEnd + 1]! - changed[groupEnd]! <= 2 * CONTEXT) groupEnd++
    const from = Math.max(changed[groupStart]! - CONTEXT, 0)
    const to = Math.min(changed[groupEnd]! + CONTEXT, operations.length - 1)
    let oldLine = 1
    let newLine = 1
    for (let index = 0; index < from; index++) {
      if (operations[index]!.kind !== "+") oldLine++
      if (operations[index]!.kind !== "-") newLine++
    }
    const slice = operations.slice(from, to + 1)
    const oldCount = slice.filter((operation) => operation.kind !== "+").length
    const newCount = slice.filter((operation) => operation.kind !== "-").length
    output.push(`@@ -${formatRange(oldLine, oldCount)} +${formatRange(newLine, newCount)} @@`, ...slice.flatMap(renderLine))
    groupStart = groupEnd + 1
  }
  return output
}

/**
 * A git-style unified diff of one file from `before` (null = did not exist) to `after`
 * (null = deleted). Returns "" when nothing changed.
 */
export const unifiedDiff = (relativePath: string, before: string | null, after: string | null): string => {
  if (before === after) return ""
  const hunks = hunksOf(diffLines(splitText(before), splitText(after)))
  const header = [`diff --git a/${relativePath} b/${relativePath}`]
  if (before === null) header.push("new file mode 100644")
  if (after === null) header.push("deleted file mode 100644")
  header.push(before === null ? "--- /dev/null" : `--- a/${relativePath}`)
  header.push(after === null ? "+++ /dev/null" : `+++ b/${relativePath}`)
  return `${[...header, ...hunks].join("\n")}\n`
}
