import { describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { decodeText } from "../../src/domain/history/lines.js"
import { analyzeSession, isThread, threadRecord } from "../../src/domain/history/session.js"
import { ClaudeHistory, readTranscript } from "../../src/services/history/ClaudeHistory.js"
import { copyOfClaudeHome, fixture, historyLayer, PROJECTS, SCHEMA_DRIFT, scratch, settingsFor } from "./support.js"

const C45 = "c45af7b1-cb7c-4e51-93db-8cbb250a877a"

const allFixtureFiles = () => [
  SCHEMA_DRIFT,
  ...fs.readdirSync(PROJECTS).flatMap((folder) =>
    fs.readdirSync(path.join(PROJECTS, folder)).filter((name) => name.endsWith(".jsonl")).map((name) => path.join(PROJECTS, folder, name))
  )
]

/** A small deterministic PRNG so that a failing offset can be reproduced. */
const prng = (seed: number) => () => {
  seed = (seed * 1_103_515_245 + 12_345) & 0x7fffffff
  return seed / 0x7fffffff
}

const parses = (text: string) => {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

const recordOf = (text: string, threadId = "t") =>
  threadRecord(analyzeSession({ threadId, mainPath: `/tmp/${threadId}.jsonl`, main: decodeText(text), agents: [] }))

describe("bad input never crashes the importer", () => {
  it("parses the schema-drift catalogue: unknown types become diagnostics, unknown models cost null", () => {
    const analysis = analyzeSession({ threadId: "drift", mainPath: SCHEMA_DRIFT, main: decodeText(fs.readFileSync(SCHEMA_DRIFT, "utf8")), agents: [] })
    expect(isThread(analysis)).toBe(true)
    const record = threadRecord(analysis)
    expect(record.diagnostics.map((diagnostic) => diagnostic.message)).toEqual(expect.arrayContaining([
      'line 25 has an unknown entry type "started"; ignored',
      'line 26 has an unknown entry type "result"; ignored'
    ]))
    // Models newer than the pricing table are listed, and the total is unknown rather than $0.
    expect(record.cost_usd).toBeNull()
    expect(record.unpriced_models).toEqual(expect.arrayContaining(["claude-opus-5", "claude-opus-4-8"]))
    expect(record.claude_models).not.toContain("<synthetic>")
  })

  it("parses every fixture truncated at random byte offsets without throwing", () => {
    const random = prng(20_260_101)
    for (const file of allFixtureFiles()) {
      const bytes = fs.readFileSync(file)
      for (let attempt = 0; attempt < 25; attempt++) {
        const cut = Math.floor(random() * (bytes.length + 1))
        const text = bytes.subarray(0, cut).toString("utf8")
        const analysis = analyzeSession({ threadId: "cut", mainPath: file, main: decodeText(text), agents: [] })
        const record = threadRecord(analysis)
        expect(record.tokens.output).toBeGreaterThanOrEqual(0)
        // A torn last line is reported, never parsed into something else.
        const lastNewline = text.lastIndexOf("\n")
        const tail = text.slice(lastNewline + 1)
        if (tail.trim() !== "" && !parses(tail)) {
          expect(record.diagnostics.some((diagnostic) => diagnostic.message.includes("not valid JSON"))).toBe(true)
        }
      }
    }
  })

  it("skips corrupt, binary, non-object, untyped and oversized lines with a diagnostic and keeps the totals", () => {
    const original = fs.readFileSync(fixture("-workspace", `${C45}.jsonl`), "utf8")
    const lines = original.split("\n")
    const polluted = [
      lines[0],
      "{\"type\":\"user\",\"message\":", // torn
      "\u0000\u0001\u0002binary\u00ff",
      "[1,2,3]",
      "{\"no\":\"type\"}",
      "{\"type\":\"brand-new-entry\",\"uuid\":\"x\"}",
      `{"type":"assistant","big":"${"x".repeat(300_000)}"}`,
      "",
      ...lines.slice(1)
    ].join("\n")
    const expected = recordOf(original, C45)
    const decoded = decodeText(polluted, 200_000)
    const record = threadRecord(analyzeSession({ threadId: C45, mainPath: "/tmp/x.jsonl", main: decoded, agents: [] }))
    expect(decoded.problems.map((problem) => problem.message)).toEqual([
      "line 2 is not valid JSON (torn or corrupt); skipped",
      "line 3 is not valid JSON (torn or corrupt); skipped",
      "line 4 is not a JSON object; skipped",
      "line 5 has no entry type; skipped",
      'line 6 has an unknown entry type "brand-new-entry"; ignored',
      "line 7 exceeds 200000 bytes; skipped"
    ])
    expect(record.tokens).toEqual(expected.tokens)
    expect(record.human_turns).toBe(expected.human_turns)
    expect(record.historical_changed_files.map((file) => file.path)).toEqual(
      expected.historical_changed_files.map((file) => file.path)
    )
  })

  it("treats empty, whitespace-only and summary-only files as no thread", () => {
    for (const text of ["", "\n\n   \n", fs.readFileSync(fixture("-Users-user-project", "a751b8dd-6b29-4eed-8cb9-64bc9a916a39.jsonl"), "utf8")]) {
      expect(isThread(analyzeSession({ threadId: "e", mainPath: "/tmp/e.jsonl", main: decodeText(text), agents: [] }))).toBe(false)
    }
  })

  it("reports a file that vanished before it could be read", async () => {
    await expect(readTranscript(path.join(scratch(), "gone.jsonl"))).rejects.toThrow(/ENOENT/)
  })
})

// `layer`, not `it.layer`: after the first `it.layer` of a file, @effect/vitest's shared `it.layer` nests the next
// layer in the first one, whose services (and settings) it then reuses.
describe("a sibling sub-agent file with a long first line", () => {
  const home = copyOfClaudeHome()
  const agentFile = path.join(home, "projects", "-Users-user-project", "agent-a434715.jsonl")
  const [first, ...rest] = fs.readFileSync(agentFile, "utf8").split("\n")
  // Its session id is read from its first line, a few kilobytes at a time: this one needs several reads.
  fs.writeFileSync(agentFile, [JSON.stringify({ ...JSON.parse(first!), padding: "é".repeat(60_000) }), ...rest].join("\n"))

  layer(historyLayer(settingsFor(home)))((it) => {
    it.effect("still belongs to its session", () =>
      Effect.gen(function*() {
        const record = yield* (yield* ClaudeHistory).thread("b3edadab-bca0-4054-9b41-f7ffa6941260")
        expect(record.subagent_files.map((file) => path.basename(file.path))).toEqual(["agent-a434715.jsonl", "agent-a4e24f0.jsonl"])
      }))
  })
})

describe("thread lookups that must fail clearly", () => {
  const home = copyOfClaudeHome()
  const projects = path.join(home, "projects")
  // A dangling symlink looks like a session file to readdir but vanished before it could be read.
  fs.symlinkSync(path.join(home, "nowhere.jsonl"), path.join(projects, "-workspace", "ghost.jsonl"))
  const settings = settingsFor(home)

  layer(historyLayer(settings))((it) => {
    it.effect("rejects ids that are malformed, try to leave the projects directory, or do not exist", () =>
      Effect.gen(function*() {
        const history = yield* ClaudeHistory
        for (const [threadId, kind, message] of [
          ["../../etc/passwd", "InvalidArgument", "thread_id is not a valid Claude thread ID."],
          ["-workspace/c45af7b1", "InvalidArgument", "thread_id is not a valid Claude thread ID."],
          ["", "InvalidArgument", "thread_id is not a valid Claude thread ID."],
          ["ghost", "NotFound", "No imported Claude thread has the ID ghost."],
          ["0f13eeba-e6ed-42ea-ad8c-d8db37e1304e", "InvalidArgument", "The Claude session 0f13eeba-e6ed-42ea-ad8c-d8db37e1304e holds no human request, so it is not a thread."],
          ["00000000-0000-0000-0000-000000000000", "NotFound", "No imported Claude thread has the ID 00000000-0000-0000-0000-000000000000."]
        ] as const) {
          const error = yield* Effect.flip(history.thread(threadId))
          expect(error).toMatchObject({ _tag: kind, message })
        }
        // Nothing but the thread index, the cache of what the listings read.
        expect(fs.readdirSync(settings.cacheRoot).filter((entry) => entry !== "index")).toEqual([])
      }))

    it.effect("does not re-parse unchanged files, and re-parses a file whose size or mtime changed", () =>
      Effect.gen(function*() {
        const history = yield* ClaudeHistory
        const file = path.join(projects, "-workspace", `${C45}.jsonl`)
        const seconds = 1_767_225_600
        fs.utimesSync(file, seconds, seconds)
        const first = yield* history.list()
        expect(first.threads).toHaveLength(5)
        const stat = fs.statSync(file)
        // Same size and mtime, different bytes: a cached listing must not notice.
        fs.writeFileSync(file, " ".repeat(stat.size))
        fs.utimesSync(file, seconds, seconds)
        const cached = yield* history.list()
        expect(cached.threads.map((thread) => thread.imported_thread_id)).toContain(C45)
        // A new mtime invalidates the entry: the blank file is no thread any more.
        fs.utimesSync(file, seconds, seconds + 5)
        const fresh = yield* history.list()
        expect(fresh.threads.map((thread) => thread.imported_thread_id)).not.toContain(C45)
        expect(fresh.threads).toHaveLength(4)
      }))
  })
})

describe("the listing's order", () => {
  it("breaks a tie on end time by thread id in code-unit order, whatever the locale", async () => {
    const home = scratch("claude-home-")
    const folder = path.join(home, "projects", "-work")
    fs.mkdirSync(folder, { recursive: true })
    const text = fs.readFileSync(fixture("-workspace", `${C45}.jsonl`), "utf8")
    // localeCompare would give alpha, éclair, Zeta.
    for (const stem of ["alpha", "éclair", "Zeta"]) fs.writeFileSync(path.join(folder, `${stem}.jsonl`), text)
    const listed = await Effect.runPromise(
      Effect.flatMap(ClaudeHistory, (history) => history.list()).pipe(Effect.provide(historyLayer(settingsFor(home))))
    )
    expect(new Set(listed.threads.map((thread) => thread.ended_at)).size).toBe(1)
    expect(listed.threads.map((thread) => thread.imported_thread_id)).toEqual(["Zeta", "alpha", "éclair"])
  })
})
