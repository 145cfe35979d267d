import { describe, expect, it } from "@effect/vitest"
import {
  applyJournal,
  emptyIndex,
  type IndexedSession,
  indexChanges,
  indexedSession,
  parseThreadIndex,
  prepareAgentEntry,
  prepareSessionEntry,
  serializeJournalLine,
  serializeThreadIndex,
  snapshotIndex,
  type ThreadIndex
} from "../../src/domain/history/threadIndex.js"
import type { ThreadSummary } from "../../src/domain/history/session.js"
import { sha256Hex as sha256, withFirstLine } from "./support.js"

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

const fingerprint = (id: string) => `${ROOT}/-work/${id}.jsonl\u0000100\u00001700000000000.5`

const session = (id: string, title: string): IndexedSession =>
  indexedSession(fingerprint(id), { summary: summary(id, title), firstResponseKey: `msg_${id}` })

/** A session that holds no human request: no thread, no summary line. */
const notThread = (id: string): IndexedSession => indexedSession(fingerprint(id), { summary: undefined, firstResponseKey: undefined })

const indexOf = (...entries: ReadonlyArray<readonly [string, IndexedSession]>) => {
  const index = emptyIndex()
  for (const [key, entry] of entries) index.sessions.set(key, entry)
  index.resumed.set(`${ROOT}/-work/b.jsonl`, { key: "k", summary: undefined })
  index.agents.set(`${ROOT}/-work/agent-1.jsonl`, { stamp: "10:20", sessionId: undefined })
  return index
}

/** The sessions as plain values: each thread's summary read. */
const sessionsOf = (index: ThreadIndex) =>
  [...index.sessions].map(([key, entry]) => [key, entry.fingerprint, entry.firstResponseKey, entry.thread?.summary()])

const load = (text: string) => parseThreadIndex(Buffer.from(text, "utf8"), VERSION, ROOT)

/** The index file's bytes, as text. */
const textOf = (index: ThreadIndex) => serializeThreadIndex(VERSION, ROOT, index).toString("utf8")

describe("the thread index's text", () => {
  const key = (id: string) => `${ROOT}/-work/${id}.jsonl`

  it("is ASCII: a first line of JSON, then one summary per thread, and reads back as the same index", () => {
    const first = session("a", "Réparer le test — 日本語のタイトル…")
    const index = indexOf([key("a"), first], [key("none"), notThread("none")], [`${ROOT}/-wörk/c.jsonl`, session("c", "plain")])
    prepareSessionEntry(key("a"), first)
    prepareAgentEntry(`${ROOT}/-work/agent-1.jsonl`, index.agents.get(`${ROOT}/-work/agent-1.jsonl`)!)
    const text = textOf(index)
    expect(/^[\x20-\x7e\n]*$/.test(text)).toBe(true)
    const lines = text.split("\n")
    expect(lines).toHaveLength(4)
    expect(lines[3]).toBe("")
    expect(JSON.parse(lines[0]!)).toEqual({
      kind: "codex-replay-thread-index",
      format: 2,
      version: VERSION,
      projects_root: ROOT,
      summaries: sha256(`${lines[1]}\n${lines[2]}\n`),
      sessions: {
        [key("a")]: { fingerprint: fingerprint("a"), firstResponseKey: "msg_a", thread: ["2025-12-20T09:23:01.555Z", 0.5] },
        [key("none")]: { fingerprint: fingerprint("none"), firstResponseKey: null, thread: null },
        [`${ROOT}/-wörk/c.jsonl`]: { fingerprint: fingerprint("c"), firstResponseKey: "msg_c", thread: ["2025-12-20T09:23:01.555Z", 0.5] }
      },
      resumed: { [`${ROOT}/-work/b.jsonl`]: { key: "k", summary: null } },
      agents: { [`${ROOT}/-work/agent-1.jsonl`]: { stamp: "10:20", sessionId: null } }
    })
    expect(lines.slice(1, 3).map((line) => JSON.parse(line))).toEqual([summary("a", "Réparer le test — 日本語のタイトル…"), summary("c", "plain")])
    const loaded = load(text)
    if (loaded._tag !== "Loaded") throw new Error(`not loaded: ${JSON.stringify(loaded)}`)
    expect(sessionsOf(loaded.index)).toEqual(sessionsOf(index))
    expect([...loaded.index.resumed]).toEqual([...index.resumed])
    expect([...loaded.index.agents]).toEqual([...index.agents])
    // Written again whole from what it read, it is the same text.
    expect(textOf(loaded.index)).toBe(text)
  })

  it("parses a summary only when it is asked for", () => {
    const text = textOf(indexOf([key("a"), session("a", "first")], [key("b"), session("b", "second")]))
    // A second line that is not JSON, its checksum made to match: the index loads, and only that summary fails.
    const lines = text.split("\n")
    lines[1] = "{not json"
    const damaged = withFirstLine(lines.join("\n"), (first) => (first.summaries = sha256(`${lines[1]}\n${lines[2]}\n`)))
    const loaded = load(damaged)
    if (loaded._tag !== "Loaded") throw new Error(`not loaded: ${JSON.stringify(loaded)}`)
    expect(loaded.index.sessions.get(key("a"))?.thread?.ended_at).toBe("2025-12-20T09:23:01.555Z")
    expect(loaded.index.sessions.get(key("b"))?.thread?.summary()?.title).toBe("second")
    // Asked for, it does not read back: the listing reads that session again (test/e2e/history/threadIndex.test.ts).
    expect(loaded.index.sessions.get(key("a"))?.thread?.summary()).toBeUndefined()
  })

  describe("is discarded, never half read", () => {
    const text = textOf(indexOf([key("a"), session("a", "first")], [key("b"), session("b", "second")]))
    const lines = text.split("\n")
    const cases: ReadonlyArray<readonly [string, string, string]> = [
      ["a summary changed without its checksum", text.replace("\"title\":\"second\"", "\"title\":\"changed\""), "its summaries do not match their checksum"],
      ["a summary line missing", withFirstLine(`${lines[0]}\n${lines[1]}\n`, (first) => (first.summaries = sha256(`${lines[1]}\n`))), "an entry is malformed"],
      [
        "a summary line too many",
        withFirstLine(`${text}${lines[1]}\n`, (first) => (first.summaries = sha256(`${lines[1]}\n${lines[2]}\n${lines[1]}\n`))),
        "an entry is malformed"
      ],
      ["the summaries cut off", text.slice(0, -10), "its summaries do not match their checksum"],
      ["no summary lines at all", lines[0]!, "it is incomplete"],
      ["a session entry of another shape", withFirstLine(text, (first) => (first.sessions[key("a")].thread = "2025")), "an entry is malformed"],
      ["a first line without its checksum", withFirstLine(text, (first) => delete first.summaries), "it is incomplete"],
      ["an index of the previous format", withFirstLine(text, (first) => (first.format = 1)), "it was written by another version"]
    ]
    for (const [what, damaged, reason] of cases) {
      it(`when ${what}`, () => {
        expect(load(damaged)).toEqual({ _tag: "Discarded", reason })
      })
    }
  })

  it("writes an entry replaced since its text was made as it is now", () => {
    const index = indexOf([key("a"), session("a", "before")])
    textOf(index)
    index.sessions.set(key("a"), session("a", "after"))
    const text = textOf(index)
    expect(JSON.parse(text.split("\n")[1]!).title).toBe("after")
  })

  it("writes an entry under the key it has now, whatever key it was made ready under", () => {
    const entry = session("a", "moved")
    prepareSessionEntry(key("elsewhere"), entry)
    const text = textOf(indexOf([key("a"), entry]))
    expect(Object.keys(JSON.parse(text.split("\n")[0]!).sessions)).toEqual([key("a")])
    expect(load(text)._tag).toBe("Loaded")
  })

  it("keeps a summary line written by hand in UTF-8 as it is, and its checksum", () => {
    const text = textOf(indexOf([key("a"), session("a", "first")], [key("b"), session("b", "second")]))
    const lines = text.split("\n")
    lines[2] = lines[2]!.replace("\"title\":\"second\"", "\"title\":\"Réparer — 日本語 😀\"")
    const handWritten = withFirstLine(lines.join("\n"), (first) => (first.summaries = sha256(`${lines[1]}\n${lines[2]}\n`)))
    const loaded = load(handWritten)
    if (loaded._tag !== "Loaded") throw new Error(`not loaded: ${JSON.stringify(loaded)}`)
    const written = serializeThreadIndex(VERSION, ROOT, loaded.index)
    expect(written.equals(Buffer.from(handWritten, "utf8"))).toBe(true)
    const again = parseThreadIndex(written, VERSION, ROOT)
    if (again._tag !== "Loaded") throw new Error(`not loaded: ${JSON.stringify(again)}`)
    expect(again.index.sessions.get(key("b"))?.thread?.summary()?.title).toBe("Réparer — 日本語 😀")
  })

  it("is its first line alone when no session is a thread", () => {
    const text = textOf(indexOf([key("none"), notThread("none")]))
    expect(text.indexOf("\n")).toBe(text.length - 1)
    expect(JSON.parse(text).summaries).toBe(sha256(""))
    const loaded = load(text)
    if (loaded._tag !== "Loaded") throw new Error(`not loaded: ${JSON.stringify(loaded)}`)
    expect(sessionsOf(loaded.index)).toEqual([[key("none"), fingerprint("none"), undefined, undefined]])
  })

  it("writes a journal line of the changed entries with their summaries, null for those that went", () => {
    const kept = session("a", "kept")
    const written = indexOf([key("a"), kept], [key("gone"), session("gone", "gone")])
    const current = snapshotIndex(written)
    current.sessions.delete(key("gone"))
    current.sessions.set(key("new"), session("new", "nouveau…"))
    current.sessions.set(key("none"), notThread("none"))
    const line = serializeJournalLine(VERSION, ROOT, indexChanges(written, current))
    expect(line.endsWith("\n")).toBe(true)
    expect(/^[\x20-\x7e]*\n$/.test(line)).toBe(true)
    const parsed = JSON.parse(line)
    expect(parsed.sessions).toEqual({
      [key("gone")]: null,
      [key("new")]: { fingerprint: fingerprint("new"), firstResponseKey: "msg_new", summary: summary("new", "nouveau…") },
      [key("none")]: { fingerprint: fingerprint("none"), firstResponseKey: null, summary: null }
    })
    expect(parsed.resumed).toEqual({})
    expect(parsed.agents).toEqual({})
    // Applied to the index as written, it gives the index as it is now.
    const applied = applyJournal(written, line, VERSION, ROOT)
    if (applied._tag !== "Loaded") throw new Error(`not applied: ${JSON.stringify(applied)}`)
    expect(applied.complete).toBe(true)
    expect(sessionsOf(applied.index)).toEqual(sessionsOf(current))
  })
})
