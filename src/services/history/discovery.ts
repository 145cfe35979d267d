import { Effect } from "effect"
import * as path from "node:path"
import type { SessionFiles } from "../../domain/history/reader.js"
import type { IndexedAgent } from "../../domain/history/threadIndex.js"
import { isRecord } from "../../domain/history/json.js"
import { nodeTranscriptTree, type TranscriptTree } from "../platform/transcriptFiles.js"

/**
 * Finding the transcripts below `$CLAUDE_CONFIG_DIR/projects`: each session file with the sub-agent
 * transcripts that belong to it, in all three layouts (a sibling `agent-*.jsonl` naming the session on its
 * first line, `<session>/subagents/agent-*.jsonl`, or both).
 */

export interface FileStamp {
  readonly path: string
  readonly size: number
  readonly mtimeMs: number
}

/** One session file with the sub-agent transcripts that belong to it. */
export interface SessionLocation {
  readonly threadId: string
  readonly main: FileStamp
  readonly agents: ReadonlyArray<FileStamp>
}

export interface Discovered {
  readonly locations: ReadonlyArray<SessionLocation>
  /** One sentence per entry that could not be looked at (a symlink loop, no permission), sorted. */
  readonly unreadable: ReadonlyArray<string>
  /** Every sibling agent file seen, with the session it names (read again only when its stamp changed). */
  readonly agents: ReadonlyMap<string, IndexedAgent>
}

export const stampText = (stamp: FileStamp) => `${stamp.size}:${stamp.mtimeMs}`

/**
 * What a session's summary depends on, beside its main file's path (the key it is kept under): that file's
 * size and mtime, and each sub-agent file's, named from the main file's folder. NUL separates the parts.
 */
export const fingerprintOf = (location: SessionLocation) => {
  const folder = `${path.dirname(location.main.path)}${path.sep}`
  const parts = [stampText(location.main)]
  for (const agent of location.agents) {
    parts.push(agent.path.startsWith(folder) ? agent.path.slice(folder.length) : agent.path, stampText(agent))
  }
  return parts.join("\u0000")
}

/** What a resumed session's summary depends on: its fingerprint and its predecessors', paths included. */
export const familyKey = (locations: ReadonlyArray<SessionLocation>) =>
  locations.map((location) => `${location.main.path}\u0000${fingerprintOf(location)}`).join("\n")

export const sizeOf = (location: SessionLocation) =>
  location.main.size + location.agents.reduce((total, stamp) => total + stamp.size, 0)

export const filesOf = (location: SessionLocation): SessionFiles => ({
  threadId: location.threadId,
  mainPath: location.main.path,
  agentPaths: location.agents.map((stamp) => stamp.path)
})

/** Code-unit order: the same in every locale, for the ISO times, ids and paths sorted here. */
export const byCodeUnits = (left: string, right: string) => (left < right ? -1 : left > right ? 1 : 0)

const isTranscriptName = (name: string) => name.endsWith(".jsonl")
const isAgentName = (name: string) => name.startsWith("agent-") && isTranscriptName(name)

const FIRST_LINE_STEP_BYTES = 16 * 1024
const FIRST_LINE_MAX_BYTES = 256 * 1024

/** The `sessionId` named on a sibling agent file's first line, if it names one. */
const sessionIdOf = (line: string | undefined) => {
  if (line === undefined) return undefined
  try {
    const first: unknown = JSON.parse(line)
    const sessionId = isRecord(first) ? first.sessionId : undefined
    return typeof sessionId === "string" ? sessionId : undefined
  } catch {
    return undefined
  }
}

/**
 * Walks the history once, synchronously (`TranscriptTree` says why), in one effect. `known` holds the sibling
 * agent files' sessions from the index: a file whose stamp is unchanged is not read again.
 */
export const discover = (projectsRoot: string, known: ReadonlyMap<string, IndexedAgent>, tree: TranscriptTree = nodeTranscriptTree) =>
  Effect.sync((): Discovered => {
    const unreadable: Array<string> = []
    const agents = new Map<string, IndexedAgent>()

    /** The stamp of a regular file; one that cannot be looked at is told in `unreadable`, anything else skipped. */
    const stampOf = (file: string): FileStamp | undefined => {
      const stamp = tree.stamp(file)
      if (stamp === undefined) return undefined
      if ("unreadable" in stamp) {
        unreadable.push(`Skipped the unreadable Claude history entry ${path.basename(file)} (${stamp.unreadable}).`)
        return undefined
      }
      return { path: file, size: stamp.size, mtimeMs: stamp.mtimeMs }
    }

    /** The session of a sibling agent file: read once, then known while the file is unchanged. */
    const agentSessionId = (stamp: FileStamp) => {
      const key = stampText(stamp)
      const cached = known.get(stamp.path)
      const entry: IndexedAgent = cached?.stamp === key
        ? cached
        : { stamp: key, sessionId: sessionIdOf(tree.firstLine(stamp.path, FIRST_LINE_STEP_BYTES, FIRST_LINE_MAX_BYTES)) }
      agents.set(stamp.path, entry)
      return entry.sessionId
    }

    const stamps = (directory: string, names: ReadonlyArray<string>) => {
      const found: Array<FileStamp> = []
      for (const name of names) {
        const stamp = stampOf(path.join(directory, name))
        if (stamp !== undefined) found.push(stamp)
      }
      return found
    }

    const discoverProject = (folder: string) => {
      const entries = tree.list(folder)
      const transcripts = entries.files.filter(isTranscriptName).sort(byCodeUnits)
      const folders = new Set(entries.folders)
      const siblingsBySession = new Map<string, Array<FileStamp>>()
      for (const stamp of stamps(folder, transcripts.filter(isAgentName))) {
        const sessionId = agentSessionId(stamp)
        if (sessionId === undefined) continue
        const siblings = siblingsBySession.get(sessionId)
        if (siblings === undefined) siblingsBySession.set(sessionId, [stamp])
        else siblings.push(stamp)
      }
      const sessions: Array<SessionLocation> = []
      for (const name of transcripts) {
        if (isAgentName(name)) continue
        const main = stampOf(path.join(folder, name))
        if (main === undefined) continue
        const stem = name.slice(0, -".jsonl".length)
        const subagents = path.join(folder, stem, "subagents")
        const nested = folders.has(stem) ? stamps(subagents, tree.list(subagents).files.filter(isAgentName).sort(byCodeUnits)) : []
        sessions.push({ threadId: stem, main, agents: [...(siblingsBySession.get(stem) ?? []), ...nested] })
      }
      return sessions
    }

    const folders = [...tree.list(projectsRoot).folders].sort(byCodeUnits)
    // A thread id that appears in two folders is made unique.
    const seen = new Set<string>()
    const locations: Array<SessionLocation> = []
    for (const folder of folders) {
      for (const location of discoverProject(path.join(projectsRoot, folder))) {
        let threadId = location.threadId
        for (let suffix = 2; seen.has(threadId); suffix++) threadId = `${location.threadId}.${suffix}`
        seen.add(threadId)
        locations.push(threadId === location.threadId ? location : { ...location, threadId })
      }
    }
    return { locations, unreadable: unreadable.sort(), agents }
  })
