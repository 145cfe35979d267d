/**
 * Ceilings on what an agent's work can put into a run's files, the report and the review
 * (docs/controller.md, "Ceilings on agent output"). What passes a ceiling is cut, and the cut is said:
 * a line in the patch or the response, an entry of the candidate's `output_cuts`, and a concern of the
 * comparability panel. The daemon reads agent output through these ceilings, never whole.
 */
import { utf8Bytes, utf8Length, utf8Text } from "../utf8.js"

/** A side's patch as the report and the reviewer see it. */
export const PATCH_CEILING_BYTES = 2 * 1024 * 1024
/** One file's part of a patch. */
export const COLLECTED_FILE_CEILING_BYTES = 1024 * 1024
/** A side's final response. */
export const FINAL_RESPONSE_CEILING_BYTES = 256 * 1024
/** Entries of a side's changed-file list. */
export const FILE_LIST_CEILING = 2000
/** One line of `run.log` (a Codex event, a tool's output, a controller message). */
export const LOG_LINE_CEILING_BYTES = 128 * 1024

/** What was cut: a whole patch, one file's part of it, a final response or the file list. */
export type OutputCutKind = "patch" | "file" | "final_response" | "changed_files"

export interface OutputCut {
  readonly kind: OutputCutKind
  /** The file, for a `file` cut. */
  readonly path?: string
  /** How much is shown and how much there was, in `unit`s. */
  readonly shown: number
  readonly total: number
  readonly unit: "bytes" | "files"
}

const units = ["bytes", "KB", "MB", "GB", "TB"] as const

/** `512 bytes`, `256 KB`, `2.0 MB`, `165 MB` (powers of 1024). */
export const formatBytes = (bytes: number): string => {
  let value = bytes
  let unit = 0
  // From 1000 up, the next unit: never "1024 KB".
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1024
    unit++
  }
  if (unit === 0) return `${bytes} bytes`
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`
}

const amount = (cut: OutputCut, value: number) =>
  cut.unit === "bytes" ? formatBytes(value) : `${value.toLocaleString("en-US")} files`

/** `truncated: 2.0 MB of 165 MB shown` */
export const truncationText = (cut: OutputCut): string => `truncated: ${amount(cut, cut.shown)} of ${amount(cut, cut.total)} shown`

const CUT_SUBJECTS: Record<OutputCutKind, string> = {
  patch: "patch",
  file: "file",
  final_response: "final response",
  changed_files: "changed-file list"
}

/** One sentence for the report: `Codex's patch was truncated: 2.0 MB of 165 MB shown.` */
export const cutSentence = (side: string, cut: OutputCut): string =>
  cut.kind === "file"
    ? `${side}'s diff of ${cut.path === undefined ? "a file" : quotedPath(cut.path)} was ${truncationText(cut)}.`
    : `${side}'s ${CUT_SUBJECTS[cut.kind]} was ${truncationText(cut)}.`

/** The line that stands where a text was cut, in the text itself (the reviewer reads it too). */
export const cutMarker = (cut: OutputCut): string =>
  cut.kind === "file" ? `… ${quotedPath(cut.path)}: ${truncationText(cut)}` : `… ${CUT_SUBJECTS[cut.kind]} ${truncationText(cut)}`

/**
 * A path as a marker names it: JSON-quoted, so a file name the agent chose (with a newline in it, say)
 * stays on the marker's one line and cannot pass for a line of the patch or a note.
 */
const quotedPath = (file: string | undefined) => (file === undefined ? "file" : JSON.stringify(file).replace(/[\u2028\u2029]/g, (char) => `\\u${char.charCodeAt(0).toString(16)}`))

/** How a binary file is listed: by its size, its content never inlined. */
export const binaryFileText = (bytes: number): string => `Binary file, ${bytes.toLocaleString("en-US")} bytes, not shown`

/** The longest prefix of `text` within `maxBytes` of UTF-8 that does not split a character. */
const utf8Prefix = (text: string, maxBytes: number): string => {
  // No more UTF-16 units than bytes wanted (each is at least a byte), and no half of a surrogate pair.
  let head = text.slice(0, maxBytes)
  if (/[\uD800-\uDBFF]$/.test(head)) head = head.slice(0, -1)
  const bytes = utf8Bytes(head)
  if (bytes.length <= maxBytes) return head
  let end = maxBytes
  // Back off continuation bytes (10xxxxxx) so the cut falls on a character's first byte.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--
  return utf8Text(bytes.subarray(0, end))
}

/** A final response within its ceiling; a longer one is cut and ends with the marker. */
export const boundFinalResponse = (
  text: string,
  maxBytes = FINAL_RESPONSE_CEILING_BYTES
): { readonly text: string; readonly cut: OutputCut | null } => {
  const total = utf8Length(text)
  if (total <= maxBytes) return { text, cut: null }
  const shown = utf8Prefix(text, maxBytes)
  const cut: OutputCut = { kind: "final_response", shown: utf8Length(shown), total, unit: "bytes" }
  return { text: `${shown}\n\n${cutMarker(cut)}`, cut }
}

/** The first `max` entries of a file list; the cut when there were more (`total` counts them all). */
export const boundFileList = <A>(
  entries: ReadonlyArray<A>,
  total = entries.length,
  max = FILE_LIST_CEILING
): { readonly entries: ReadonlyArray<A>; readonly cut: OutputCut | null } =>
  total <= max && entries.length <= max
    ? { entries, cut: null }
    : { entries: entries.slice(0, max), cut: { kind: "changed_files", shown: Math.min(max, entries.length), total, unit: "files" } }

/** A log message within its ceiling; a longer one keeps its start and says how long it was. */
export const boundLogMessage = (message: string, maxBytes = LOG_LINE_CEILING_BYTES): string => {
  const total = utf8Length(message)
  if (total <= maxBytes) return message
  const shown = utf8Prefix(message, maxBytes)
  return `${shown} … line ${truncationText({ kind: "patch", shown: utf8Length(shown), total, unit: "bytes" })}`
}
