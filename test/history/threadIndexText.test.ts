import { describe, expect, it } from "@effect/vitest"
import {
  emptyIndex,
  type IndexedSession,
  indexChanges,
  parseThreadIndex,
  prepareSessionEntry,
  serializeJournalLine,
  serializeThreadIndex,
  snapshotIndex
} from "../../src/domain/history/threadIndex.js"
import type { ThreadSummary } from "../../src/domain/history/session.js"

const ROOT = "/home/user/.claude/projects"
const VERSION = "0.1.0"

const summary = (id: string, title: string): ThreadSummary => ({
  imported_thread_id: id,
  title,
  project_dir: "/work/a \"quoted\" \\ folder",
  git_branch: null,
  claude_model: "claude-opus-4-5-20251101",
  claude_models: ["claude-opus-4-5-20251101"],
  started_at: "2025-12-20T08:57:00.189Z",
  ended_at: "2025-12-20T09:23:01.555Z",
  human_turns: 2,
  changed_files: 1,
  tokens: { input: 1, cache_read: 2, cache_write_5m: 3, cache_write_1h: 0, output: 4 },
  cost_usd: 0.5,
  source_path: `${ROOT}/-work/${id}.jsonl`,
  source: "imported"
})

const session = (id: string, title: string): IndexedSession => ({
  fingerprint: `${ROOT}/-work/${id}.jsonl\u0000100\u00001700000000000.5`,
  digest: { summary: summary(id, title), firstResponseKey: `msg_${id}` }
})

const indexOf = (...entries: ReadonlyArray<readonly [string, IndexedSession]>) => {
  const index = emptyIndex()
  for (const [key, entry] of entries) index.sessions.set(key, entry)
  index.resumed.set(`${ROOT}/-work/b.jsonl`, { key: "k", summary: undefined })
  index.agents.set(`${ROOT}/-work/agent-1.jsonl`, { stamp: "10:20", sessionId: undefined })
  return index
}

describe("the thread index's text", () => {
  it("is ASCII JSON that reads back as the same index, titles outside ASCII included", () => {
    const first = session("a", "Réparer le test — 日本語のタイトル…")
    const index = indexOf([`${ROOT}/-work/a.jsonl`, first], [`${ROOT}/-wörk/c.jsonl`, session("c", "plain")])
    prepareSessionEntry(first)
    const text = serializeThreadIndex(VERSION, ROOT, index)
    expect(/^[\x20-\x7e]*$/.test(text)).toBe(true)
    expect(JSON.parse(text)).toEqual({
      kind: "codex-replay-thread-index",
      format: 1,
      version: VERSION,
      projects_root: ROOT,
      sessions: Object.fromEntries(index.sessions),
      resumed: { [`${ROOT}/-work/b.jsonl`]: { key: "k", summary: null } },
      agents: { [`${ROOT}/-work/agent-1.jsonl`]: { stamp: "10:20", sessionId: null } }
    })
    const loaded = parseThreadIndex(text, VERSION, ROOT)
    expect(loaded._tag === "Loaded" && [...loaded.index.sessions]).toEqual([...index.sessions])
  })

  it("writes an entry replaced since its text was made as it is now", () => {
    const key = `${ROOT}/-work/a.jsonl`
    const index = indexOf([key, session("a", "before")])
    serializeThreadIndex(VERSION, ROOT, index)
    index.sessions.set(key, session("a", "after"))
    const text = serializeThreadIndex(VERSION, ROOT, index)
    expect(JSON.parse(text).sessions[key].digest.summary.title).toBe("after")
  })

  it("writes a journal line of the changed entries, null for those that went", () => {
    const kept = session("a", "kept")
    const written = indexOf([`${ROOT}/-work/a.jsonl`, kept], [`${ROOT}/-work/gone.jsonl`, session("gone", "gone")])
    const current = snapshotIndex(written)
    current.sessions.delete(`${ROOT}/-work/gone.jsonl`)
    current.sessions.set(`${ROOT}/-work/new.jsonl`, session("new", "nouveau…"))
    const line = serializeJournalLine(VERSION, ROOT, indexChanges(written, current))
    expect(line.endsWith("\n")).toBe(true)
    expect(/^[\x20-\x7e]*\n$/.test(line)).toBe(true)
    const parsed = JSON.parse(line)
    expect(parsed.sessions).toEqual({
      [`${ROOT}/-work/gone.jsonl`]: null,
      [`${ROOT}/-work/new.jsonl`]: session("new", "nouveau…")
    })
    expect(parsed.resumed).toEqual({})
    expect(parsed.agents).toEqual({})
  })
})
