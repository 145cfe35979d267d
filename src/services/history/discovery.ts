import { FileSystem } from "@effect/platform"
import type { PlatformError } from "@effect/platform/Error"
import { Effect } from "effect"
import * as path from "node:path"
import type { SessionFiles } from "../../domain/history/reader.js"
import type { IndexedAgent } from "../../domain/history/threadIndex.js"
import { errnoOf } from "../../domain/ioErrors.js"

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
/** Folders and files looked at at once. */
const CONCURRENCY = 16

/** The `code` of the Node error behind a platform error (ELOOP, EACCES…), else its reason. */
const codeOf = (error: PlatformError) =>
  errnoOf(error._tag === "SystemError" ? error.cause : undefined) ?? (error._tag === "SystemError" ? error.reason : error._tag)

const unreadableMessage = (file: string, error: PlatformError) =>
  `Skipped the unreadable Claude history entry ${path.basename(file)} (${codeOf(error)}).`

export const discover = (projectsRoot: string, known: ReadonlyMap<string, IndexedAgent>) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const unreadable: Array<string> = []
    const agents = new Map<string, IndexedAgent>()

    const names = (directory: string) => Effect.orElseSucceed(fs.readDirectory(directory), (): Array<string> => [])

    /** The stamp of a regular file; one that cannot be looked at is told in `unreadable`, anything else skipped. */
    const stampOf = (file: string) =>
      fs.stat(file).pipe(
        Effect.map((info): FileStamp | undefined =>
          info.type === "File"
            ? { path: file, size: Number(info.size), mtimeMs: info.mtime._tag === "Some" ? info.mtime.value.getTime() : 0 }
            : undefined
        ),
        Effect.catchAll((error) =>
          Effect.sync(() => {
            if (!(error._tag === "SystemError" && error.reason === "NotFound")) unreadable.push(unreadableMessage(file, error))
            return undefined
          })
        )
      )

    /** The `sessionId` of a sibling agent file, read from its first line only (16 KiB at a time, up to 256 KiB). */
    const readAgentSessionId = (file: string) =>
      Effect.scoped(Effect.gen(function*() {
        const handle = yield* fs.open(file, { flag: "r" })
        let text = ""
        for (let read = 0; read < FIRST_LINE_MAX_BYTES;) {
          const chunk = yield* handle.readAlloc(FIRST_LINE_STEP_BYTES)
          if (chunk._tag === "None") break
          read += chunk.value.length
          text += Buffer.from(chunk.value).toString("latin1")
          if (text.includes("\n")) break
        }
        const newline = text.indexOf("\n")
        const first: unknown = JSON.parse(Buffer.from(newline === -1 ? text : text.slice(0, newline), "latin1").toString("utf8"))
        const sessionId = typeof first === "object" && first !== null ? (first as { sessionId?: unknown }).sessionId : undefined
        return typeof sessionId === "string" ? sessionId : undefined
      })).pipe(Effect.catchAllDefect(() => Effect.succeed(undefined)), Effect.orElseSucceed(() => undefined))

    /** The session of a sibling agent file: read once, then known while the file is unchanged. */
    const agentSessionId = (stamp: FileStamp) =>
      Effect.gen(function*() {
        const key = stampText(stamp)
        const cached = known.get(stamp.path)
        const entry: IndexedAgent = cached?.stamp === key ? cached : { stamp: key, sessionId: yield* readAgentSessionId(stamp.path) }
        agents.set(stamp.path, entry)
        return entry.sessionId
      })

    const nestedAgents = (directory: string) =>
      Effect.gen(function*() {
        const files = (yield* names(directory)).filter(isAgentName).sort(byCodeUnits)
        const stamps = yield* Effect.forEach(files, (name) => stampOf(path.join(directory, name)), { concurrency: CONCURRENCY })
        return stamps.filter((stamp): stamp is FileStamp => stamp !== undefined)
      })

    const discoverProject = (folder: string) =>
      Effect.gen(function*() {
        const entries = (yield* names(folder)).sort(byCodeUnits)
        const transcripts = entries.filter(isTranscriptName)
        const siblingsBySession = new Map<string, Array<FileStamp>>()
        const siblings = yield* Effect.forEach(transcripts.filter(isAgentName), (name) =>
          Effect.flatMap(stampOf(path.join(folder, name)), (stamp) =>
            stamp === undefined ? Effect.succeed(undefined) : Effect.map(agentSessionId(stamp), (sessionId) => ({ stamp, sessionId }))), {
          concurrency: CONCURRENCY
        })
        for (const sibling of siblings) {
          if (sibling?.sessionId === undefined) continue
          siblingsBySession.set(sibling.sessionId, [...(siblingsBySession.get(sibling.sessionId) ?? []), sibling.stamp])
        }
        const names_ = new Set(entries)
        const sessions = yield* Effect.forEach(transcripts.filter((name) => !isAgentName(name)), (name) =>
          Effect.gen(function*() {
            const main = yield* stampOf(path.join(folder, name))
            if (main === undefined) return undefined
            const stem = name.slice(0, -".jsonl".length)
            const nested = names_.has(stem) ? yield* nestedAgents(path.join(folder, stem, "subagents")) : []
            const location: SessionLocation = { threadId: stem, main, agents: [...(siblingsBySession.get(stem) ?? []), ...nested] }
            return location
          }), { concurrency: CONCURRENCY })
        return sessions.filter((location): location is SessionLocation => location !== undefined)
      })

    const folders = yield* Effect.filter((yield* names(projectsRoot)).sort(byCodeUnits), (name) =>
      fs.stat(path.join(projectsRoot, name)).pipe(
        Effect.map((info) => info.type === "Directory"),
        Effect.orElseSucceed(() => false)
      ), { concurrency: CONCURRENCY })
    const perFolder = yield* Effect.forEach(folders, (name) => discoverProject(path.join(projectsRoot, name)), {
      concurrency: 4
    })
    // A thread id that appears in two folders is made unique.
    const seen = new Set<string>()
    const locations = perFolder.flat().map((location) => {
      let threadId = location.threadId
      for (let suffix = 2; seen.has(threadId); suffix++) threadId = `${location.threadId}.${suffix}`
      seen.add(threadId)
      return threadId === location.threadId ? location : { ...location, threadId }
    })
    return { locations, unreadable: unreadable.sort(), agents } satisfies Discovered
  })
