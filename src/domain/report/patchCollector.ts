/**
 * Reads a patch as it streams out of git, keeping at most the patch ceiling and, per file, the file
 * ceiling; the rest is counted, never held. A file whose part passes its ceiling is cut at a line and
 * marked; once the whole patch passes its ceiling, nothing more is kept and the end is marked. Memory is
 * bounded by the two ceilings, whatever git writes (a single line of a gigabyte included).
 */
import { COLLECTED_FILE_CEILING_BYTES, cutMarker, type OutputCut, PATCH_CEILING_BYTES } from "./ceilings.js"
import type { ChangedFile } from "../review/anonymize.js"
import { fileHeaderPaths } from "../review/patchPaths.js"

export interface CollectedPatch {
  readonly patch: string
  /** Bytes git wrote in all. */
  readonly total_bytes: number
  /** Each file cut at its ceiling, then the patch itself when it was cut. */
  readonly cuts: ReadonlyArray<OutputCut>
  /**
   * Every file the change touched, read apart from the patch (so one past the patch's cut is still listed),
   * with how many there were in all; absent when only the patch is known.
   */
  readonly listing?: { readonly files: ReadonlyArray<ChangedFile>; readonly total: number }
}

export interface PatchCeilings {
  readonly patch: number
  readonly file: number
}

const NEWLINE = 0x0a
const HEADER = Buffer.from("diff --git ")

interface FileSection {
  readonly path: string
  bytes: number
  kept: number
  /** Where its marker goes in the kept output, once the file is cut. */
  marker: number | undefined
}

export interface PatchCollector {
  /** Takes the next piece of git's output. */
  readonly push: (chunk: Buffer) => void
  /** The patch kept, with its cuts marked. */
  readonly finish: () => CollectedPatch
}

export const patchCollector = (
  ceilings: PatchCeilings = { patch: PATCH_CEILING_BYTES, file: COLLECTED_FILE_CEILING_BYTES }
): PatchCollector => {
  const kept: Array<Buffer | string> = []
  let keptBytes = 0
  let total = 0
  let patchCut = false
  const cuts: Array<OutputCut> = []
  let section: FileSection | undefined
  // The line being read: its start (at most the file ceiling) and its whole length.
  let partial: Array<Buffer> = []
  let partialKept = 0
  let partialLength = 0

  const closeSection = () => {
    if (section?.marker === undefined) return
    const cut: OutputCut = { kind: "file", path: section.path, shown: section.kept, total: section.bytes, unit: "bytes" }
    kept[section.marker] = `${cutMarker(cut)}\n`
    cuts.push(cut)
  }

  const line = (start: Buffer, length: number) => {
    if (start.subarray(0, HEADER.length).equals(HEADER)) {
      closeSection()
      const header = fileHeaderPaths(start.subarray(0, Math.min(start.length, 16 * 1024)).toString("utf8").replace(/\r?\n$/, ""))
      section = { path: header?.new ?? "(unnamed)", bytes: 0, kept: 0, marker: undefined }
    }
    if (section !== undefined) section.bytes += length
    if (patchCut || section?.marker !== undefined) return
    if (section !== undefined && (section.kept + length > ceilings.file || start.length < length)) {
      section.marker = kept.length
      kept.push("")
      return
    }
    if (keptBytes + length > ceilings.patch || start.length < length) {
      patchCut = true
      return
    }
    kept.push(start)
    keptBytes += length
    if (section !== undefined) section.kept += length
  }

  const take = (piece: Buffer) => {
    const room = ceilings.file + 1 - partialKept
    if (room > 0) {
      const part = Buffer.from(piece.subarray(0, room))
      partial.push(part)
      partialKept += part.length
    }
    partialLength += piece.length
  }

  const endLine = () => {
    const start = partial.length === 1 ? partial[0]! : Buffer.concat(partial)
    line(start, partialLength)
    partial = []
    partialKept = 0
    partialLength = 0
  }

  const push = (chunk: Buffer) => {
    total += chunk.length
    let from = 0
    for (;;) {
      const at = chunk.indexOf(NEWLINE, from)
      if (at === -1) {
        if (from < chunk.length) take(chunk.subarray(from))
        return
      }
      take(chunk.subarray(from, at + 1))
      endLine()
      from = at + 1
    }
  }

  const finish = (): CollectedPatch => {
    if (partialLength > 0) {
      // Git ends a patch with a newline; a last line without one is kept whole or not at all.
      partial.push(Buffer.from("\n"))
      partialLength += 1
      partialKept += 1
      endLine()
    }
    closeSection()
    if (patchCut) {
      const cut: OutputCut = { kind: "patch", shown: keptBytes, total, unit: "bytes" }
      kept.push(`${cutMarker(cut)}\n`)
      cuts.push(cut)
    }
    const patch = kept.map((part) => (typeof part === "string" ? part : part.toString("utf8"))).join("")
    return { patch, total_bytes: total, cuts }
  }

  return { push, finish }
}

/** A patch already in memory (rebuilt from a transcript) through the same ceilings. */
export const boundPatch = (patch: string, ceilings?: PatchCeilings): CollectedPatch => {
  const collector = patchCollector(ceilings)
  collector.push(Buffer.from(patch, "utf8"))
  return collector.finish()
}

/** One entry of `git diff --numstat -z`: a text file's line counts, or a binary file's (`binary`, counts 0). */
export interface NumstatEntry {
  readonly path: string
  readonly additions: number
  readonly deletions: number
  readonly binary: boolean
}

export interface CollectedNumstat {
  /** The first `max` entries. */
  readonly entries: ReadonlyArray<NumstatEntry>
  /** Every entry git listed. */
  readonly total: number
}

const NUL = 0x00
/** Longer than any path a file system allows: a record this long is counted, never kept. */
const MAX_RECORD_BYTES = 64 * 1024

const NUMSTAT_RECORD = /^(-|\d+)\t(-|\d+)\t(.*)$/s

/** A record's counts and path; a rename's path is empty and its two names follow as records of their own. */
const numstatCounts = (record: string) => {
  const match = NUMSTAT_RECORD.exec(record)
  if (match === null) return undefined
  const binary = match[1] === "-" && match[2] === "-"
  return { path: match[3]!, additions: binary ? 0 : Number(match[1]), deletions: binary ? 0 : Number(match[2]), binary }
}

/** Reads `git diff --numstat -z` as it streams, keeping the first `max` entries and counting the rest. */
export const numstatCollector = (max: number) => {
  const entries: Array<NumstatEntry> = []
  let total = 0
  let partial: Array<Buffer> = []
  let partialLength = 0
  // A rename: its counts, then the names still to read (old, then new).
  let rename: { counts: NumstatEntry; names: number } | undefined
  const add = (entry: NumstatEntry) => {
    total++
    if (entries.length < max) entries.push(entry)
  }
  const record = () => {
    const text = partialLength > 0 && partialLength <= MAX_RECORD_BYTES ? Buffer.concat(partial).toString("utf8") : undefined
    const counted = partialLength > MAX_RECORD_BYTES
    partial = []
    partialLength = 0
    if (rename !== undefined) {
      rename.names--
      if (rename.names > 0) return
      const { counts } = rename
      rename = undefined
      if (text !== undefined) add({ ...counts, path: text })
      else if (counted) total++
      return
    }
    if (text === undefined) {
      if (counted) total++
      return
    }
    const entry = numstatCounts(text)
    if (entry === undefined) return
    if (entry.path === "") rename = { counts: entry, names: 2 }
    else add(entry)
  }
  const take = (piece: Buffer) => {
    if (partialLength + piece.length <= MAX_RECORD_BYTES) partial.push(Buffer.from(piece))
    partialLength += piece.length
  }
  const push = (chunk: Buffer) => {
    let from = 0
    for (;;) {
      const at = chunk.indexOf(NUL, from)
      if (at === -1) {
        if (from < chunk.length) take(chunk.subarray(from))
        return
      }
      take(chunk.subarray(from, at))
      record()
      from = at + 1
    }
  }
  const finish = (): CollectedNumstat => {
    if (partialLength > 0) record()
    return { entries, total }
  }
  return { push, finish }
}
