import { Effect } from "effect"
import { type Dirent, readdirSync, statSync } from "node:fs"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { controllerError } from "../domain/errors.js"
import type { CapabilityEvidence } from "../domain/history/capabilities.js"
import { type DecodedFile, makeFileDecoder } from "../domain/history/lines.js"
import {
  type AgentFile,
  analyzeSession,
  capabilityEvidenceOf,
  isThread,
  threadRecord,
  type ThreadRecord,
  type ThreadSummary,
  threadSummary
} from "../domain/history/session.js"
import { Settings } from "./Settings.js"

export const THREAD_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/

interface FileStamp {
  readonly path: string
  readonly size: number
  readonly mtimeMs: number
}

/** One session file with the sub-agent transcripts that belong to it (all three layouts). */
export interface SessionLocation {
  readonly threadId: string
  readonly main: FileStamp
  readonly agents: ReadonlyArray<FileStamp>
}

export interface ThreadInspection {
  readonly record: ThreadRecord
  readonly evidence: CapabilityEvidence
}

interface CachedSummary {
  readonly fingerprint: string
  readonly summary: ThreadSummary | undefined
}

const READ_CHUNK_BYTES = 1024 * 1024
const PARSE_CONCURRENCY = 4
const RECORD_CACHE_SIZE = 16

const fingerprintOf = (location: SessionLocation) =>
  [location.main, ...location.agents].map((stamp) => `${stamp.path}\u0000${stamp.size}\u0000${stamp.mtimeMs}`).join("\n")

const isMissing = (error: unknown) =>
  typeof error === "object" && error !== null && (error as { code?: unknown }).code === "ENOENT"

/** Streams a transcript through the lenient line decoder; memory is bounded by the longest line. */
export const readTranscript = async (file: string): Promise<DecodedFile> => {
  const decoder = makeFileDecoder()
  const handle = await fs.open(file, "r")
  try {
    const buffer = Buffer.allocUnsafe(READ_CHUNK_BYTES)
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null)
      if (bytesRead === 0) break
      decoder.push(buffer.subarray(0, bytesRead))
    }
  } finally {
    await handle.close()
  }
  return decoder.finish()
}

/** The `sessionId` of a sibling `agent-*.jsonl`, read from its first line only. */
const readAgentSessionId = async (file: string): Promise<string | undefined> => {
  const handle = await fs.open(file, "r")
  try {
    const buffer = Buffer.alloc(256 * 1024)
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0)
    const text = buffer.toString("utf8", 0, bytesRead)
    const newline = text.indexOf("\n")
    const first = JSON.parse(newline === -1 ? text : text.slice(0, newline)) as { sessionId?: unknown }
    return typeof first.sessionId === "string" ? first.sessionId : undefined
  } catch {
    return undefined
  } finally {
    await handle.close()
  }
}

/**
 * Discovery stats thousands of small files; synchronous calls avoid the thread-pool round trips that
 * dominate a warm listing (a few microseconds each instead of tens).
 */
const stampOf = async (file: string): Promise<FileStamp | undefined> => {
  const stat = statSync(file, { throwIfNoEntry: false })
  return stat?.isFile() ? { path: file, size: stat.size, mtimeMs: stat.mtimeMs } : undefined
}

const readDirectory = async (directory: string): Promise<Array<Dirent>> => {
  try {
    return readdirSync(directory, { withFileTypes: true })
  } catch {
    return []
  }
}

const isTranscriptName = (name: string) => name.endsWith(".jsonl")
const isAgentName = (name: string) => name.startsWith("agent-") && isTranscriptName(name)

/**
 * Reads `$CLAUDE_CONFIG_DIR/projects`: discovery of sessions and their sub-agents, a per-file cache keyed
 * by path + size + mtime (a second listing re-parses nothing unchanged), and full thread records on demand.
 */
export class ClaudeHistory extends Effect.Service<ClaudeHistory>()("codex-replay/ClaudeHistory", {
  effect: Effect.gen(function*() {
    const settings = yield* Settings
    const projectsRoot = path.join(settings.claudeConfigDir, "projects")
    const summaries = new Map<string, CachedSummary>()
    const agentSessions = new Map<string, { stamp: string; sessionId: string | undefined }>()
    const records = new Map<string, ThreadRecordEntry>()

    const agentSessionId = async (stamp: FileStamp) => {
      const key = `${stamp.size}:${stamp.mtimeMs}`
      const cached = agentSessions.get(stamp.path)
      if (cached?.stamp === key) return cached.sessionId
      const sessionId = await readAgentSessionId(stamp.path)
      agentSessions.set(stamp.path, { stamp: key, sessionId })
      return sessionId
    }

    const discoverProject = async (folder: string): Promise<Array<SessionLocation>> => {
      const entries = await readDirectory(folder)
      const directories = new Set(entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name))
      const files = entries.filter((entry) => !entry.isDirectory() && isTranscriptName(entry.name))
      const siblings = await Promise.all(
        files.filter((entry) => isAgentName(entry.name)).map((entry) => stampOf(path.join(folder, entry.name)))
      )
      const siblingsBySession = new Map<string, Array<FileStamp>>()
      for (const stamp of siblings) {
        if (stamp === undefined) continue
        const sessionId = await agentSessionId(stamp)
        if (sessionId === undefined) continue
        siblingsBySession.set(sessionId, [...(siblingsBySession.get(sessionId) ?? []), stamp])
      }
      const sessions = await Promise.all(
        files.filter((entry) => !isAgentName(entry.name)).map(async (entry): Promise<SessionLocation | undefined> => {
          const main = await stampOf(path.join(folder, entry.name))
          if (main === undefined) return undefined
          const stem = entry.name.slice(0, -".jsonl".length)
          const nested = directories.has(stem) ? await nestedAgents(path.join(folder, stem, "subagents")) : []
          return { threadId: stem, main, agents: [...(siblingsBySession.get(stem) ?? []), ...nested] }
        })
      )
      return sessions.filter((session): session is SessionLocation => session !== undefined)
    }

    const nestedAgents = async (directory: string) => {
      const entries = await readDirectory(directory)
      const stamps = await Promise.all(
        entries.filter((entry) => entry.isFile() && isAgentName(entry.name)).map((entry) =>
          stampOf(path.join(directory, entry.name))
        )
      )
      return stamps.filter((stamp): stamp is FileStamp => stamp !== undefined).sort((a, b) => a.path.localeCompare(b.path))
    }

    /** Every session file below the projects root; a thread id that appears twice is made unique. */
    const discover = Effect.fn("ClaudeHistory.discover")(function*() {
      return yield* Effect.promise(async () => {
        const folders = (await readDirectory(projectsRoot)).filter((entry) => entry.isDirectory())
        const perFolder = await Promise.all(folders.map((entry) => discoverProject(path.join(projectsRoot, entry.name))))
        const seen = new Set<string>()
        return perFolder.flat().map((location) => {
          let threadId = location.threadId
          for (let suffix = 2; seen.has(threadId); suffix++) threadId = `${location.threadId}.${suffix}`
          seen.add(threadId)
          return threadId === location.threadId ? location : { ...location, threadId }
        })
      })
    })

    const loadSession = (location: SessionLocation) =>
      Effect.tryPromise({
        try: async () => {
          const main = await readTranscript(location.main.path)
          const agents: Array<AgentFile> = []
          for (const stamp of location.agents) {
            try {
              agents.push({ path: stamp.path, decoded: await readTranscript(stamp.path) })
            } catch (error) {
              if (!isMissing(error)) throw error
            }
          }
          return analyzeSession({ threadId: location.threadId, mainPath: location.main.path, main, agents })
        },
        catch: (error) =>
          controllerError(
            isMissing(error)
              ? `The Claude thread file ${path.basename(location.main.path)} vanished while it was being read.`
              : `Cannot read the Claude thread file ${path.basename(location.main.path)}: ${String(error)}`
          )
      })

    const summaryOf = (location: SessionLocation, diagnostics: Array<string>) => {
      const fingerprint = fingerprintOf(location)
      const cached = summaries.get(location.main.path)
      if (cached?.fingerprint === fingerprint) return Effect.succeed(cached.summary)
      return loadSession(location).pipe(
        Effect.map((analysis) => (isThread(analysis) ? threadSummary(analysis) : undefined)),
        Effect.tap((summary) => Effect.sync(() => summaries.set(location.main.path, { fingerprint, summary }))),
        Effect.catchAll((error) =>
          Effect.sync(() => {
            summaries.delete(location.main.path)
            diagnostics.push(error.message)
            return undefined
          })
        )
      )
    }

    /** All imported threads, most recent first; unreadable files become diagnostics, never failures. */
    const list = Effect.fn("ClaudeHistory.list")(function*() {
      const locations = yield* discover()
      const live = new Set(locations.map((location) => location.main.path))
      for (const key of summaries.keys()) if (!live.has(key)) summaries.delete(key)
      const diagnostics: Array<string> = []
      // Unchanged files are answered from the cache without scheduling any work.
      const stale = locations.filter((location) => summaries.get(location.main.path)?.fingerprint !== fingerprintOf(location))
      yield* Effect.forEach(stale, (location) => summaryOf(location, diagnostics), {
        concurrency: PARSE_CONCURRENCY,
        discard: true
      })
      const threads: Array<ThreadSummary> = []
      for (const location of locations) {
        const summary = summaries.get(location.main.path)?.summary
        if (summary !== undefined) threads.push({ ...summary, imported_thread_id: location.threadId })
      }
      threads.sort((left, right) =>
        (right.ended_at ?? "").localeCompare(left.ended_at ?? "") ||
        left.imported_thread_id.localeCompare(right.imported_thread_id)
      )
      return { threads, diagnostics }
    })

    const locate = Effect.fn("ClaudeHistory.locate")(function*(threadId: string) {
      if (!THREAD_ID_PATTERN.test(threadId)) {
        return yield* controllerError("thread_id is not a valid Claude thread ID.")
      }
      const locations = yield* discover()
      const location = locations.find((candidate) => candidate.threadId === threadId)
      if (location === undefined) return yield* controllerError(`No imported Claude thread has the ID ${threadId}.`)
      return location
    })

    /** The full record of one thread (request turns, Claude's result, tokens, cost, time) and its evidence. */
    const inspect = Effect.fn("ClaudeHistory.inspect")(function*(threadId: string) {
      const location = yield* locate(threadId)
      const fingerprint = fingerprintOf(location)
      const cached = records.get(threadId)
      if (cached?.fingerprint === fingerprint) return cached.inspection
      const analysis = yield* loadSession(location)
      if (!isThread(analysis)) {
        return yield* controllerError(`The Claude session ${threadId} holds no human request, so it is not a thread.`)
      }
      const inspection: ThreadInspection = {
        record: { ...threadRecord(analysis), imported_thread_id: threadId },
        evidence: capabilityEvidenceOf(analysis)
      }
      records.delete(threadId)
      records.set(threadId, { fingerprint, inspection })
      if (records.size > RECORD_CACHE_SIZE) records.delete(records.keys().next().value!)
      return inspection
    })

    const thread = (threadId: string) => Effect.map(inspect(threadId), (inspection) => inspection.record)

    return { projectsRoot, discover, list, locate, inspect, thread } as const
  })
}) {}

interface ThreadRecordEntry {
  readonly fingerprint: string
  readonly inspection: ThreadInspection
}
