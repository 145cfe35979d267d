/**
 * The listing's cheap pre-pass over one transcript line: the long string values that no list summary reads
 * (tool outputs, file contents, thinking, tool inputs other than a file path, sub-agent progress, images) are
 * replaced by `""` before `JSON.parse`, so their bytes are skipped with `indexOf` instead of decoded into
 * strings. What the summary reads is never touched: envelope fields, a prompt's text, ids, names, models,
 * usage, a result's `filePath`, and whether `toolUseResult` is a string. A line it cannot follow (torn, not
 * an object) is returned unchanged, so `JSON.parse` fails on it exactly as before.
 * test/history/summary.test.ts proves the listing equals the full parse on every fixture, whole and torn.
 */

/** Strings shorter than this are kept: dropping them saves nothing. */
const DROP_MIN_CHARS = 256
/** Lines shorter than this are parsed as they are. */
const SKELETON_MIN_CHARS = 8 * 1024

const ALWAYS_DROPPED: ReadonlySet<string> = new Set([
  "thinking", "signature", "originalFile", "originalFileContents", "oldString", "newString", "old_string",
  "new_string", "stdout", "stderr", "data"
])
/** Every string below these keys is dropped (but for the file path a change needs). */
const DROPPED_BELOW: ReadonlySet<string> = new Set(["toolUseResult", "data", "input"])
const KEPT_PATHS: ReadonlySet<string> = new Set(["filePath", "file_path", "notebook_path"])

const QUOTE = 0x22
const BACKSLASH = 0x5c
/** Marks a container that is an array element (its values sit under no key). */
const ELEMENT = "[]"

interface Frame {
  readonly array: boolean
  /** The key this container is the value of, or ELEMENT. */
  readonly key: string
  /** In an object: the last key read. */
  current: string
  awaitingKey: boolean
}

/** The index of the quote closing the string that opens at `start`, or -1 when the line ends first. */
const closingQuote = (line: string, start: number) => {
  let at = start
  for (;;) {
    at = line.indexOf("\"", at + 1)
    if (at === -1) return -1
    let backslashes = 0
    while (line.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes++
    if (backslashes % 2 === 0) return at
  }
}

const dropped = (key: string, frames: ReadonlyArray<Frame>) => {
  if (KEPT_PATHS.has(key)) return false
  if (ALWAYS_DROPPED.has(key)) return true
  let contents = key === "content" ? 1 : 0
  for (const frame of frames) {
    if (DROPPED_BELOW.has(frame.key)) return true
    if (frame.key === "content") contents++
  }
  return contents >= 2
}

const SNAPSHOT_PREFIX = "{\"type\":\"file-history-snapshot\","

/**
 * Whether a line can be left unparsed because no list summary reads anything of it: a file-history snapshot
 * (about one line in ten) whose only `type` is that one and that has no `uuid` or `cwd`, the fields that
 * would place it in the conversation. No key can hide behind a `\u` escape: a line with one is parsed. Such a
 * line adds nothing to a summary whether it is whole or torn, so skipping it gives what parsing it would.
 */
export const isInertLine = (line: string): boolean =>
  line.startsWith(SNAPSHOT_PREFIX) &&
  line.indexOf("\"type\"", SNAPSHOT_PREFIX.length) === -1 &&
  line.indexOf("\"uuid\"") === -1 &&
  line.indexOf("\"cwd\"") === -1 &&
  line.indexOf("\\u") === -1

export const skeletonOf = (line: string): string => {
  if (line.length < SKELETON_MIN_CHARS || line.charCodeAt(0) !== 0x7b) return line
  const frames: Array<Frame> = []
  const parts: Array<string> = []
  let copiedTo = 0
  let at = 0
  while (at < line.length) {
    const code = line.charCodeAt(at)
    if (code === QUOTE) {
      const end = closingQuote(line, at)
      if (end === -1) return line
      const top = frames[frames.length - 1]
      if (top === undefined) return line
      if (!top.array && top.awaitingKey) {
        top.current = line.slice(at + 1, end)
      } else if (end - at > DROP_MIN_CHARS && dropped(top.array ? ELEMENT : top.current, frames)) {
        parts.push(line.slice(copiedTo, at), "\"\"")
        copiedTo = end + 1
      }
      at = end + 1
      continue
    }
    if (code === 0x7b || code === 0x5b) {
      const parent = frames[frames.length - 1]
      const key = parent === undefined ? "" : parent.array ? ELEMENT : parent.current
      frames.push({ array: code === 0x5b, key, current: "", awaitingKey: code === 0x7b })
    } else if (code === 0x7d || code === 0x5d) {
      frames.pop()
      if (frames.length === 0) break
    } else if (code === 0x3a) {
      const top = frames[frames.length - 1]
      if (top !== undefined) top.awaitingKey = false
    } else if (code === 0x2c) {
      const top = frames[frames.length - 1]
      if (top !== undefined && !top.array) top.awaitingKey = true
    }
    at++
  }
  if (parts.length === 0) return line
  parts.push(line.slice(copiedTo))
  return parts.join("")
}
