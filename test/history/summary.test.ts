import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { decodeText, LineSplitter } from "../../src/domain/history/lines.js"
import { type SessionFiles, summarizeSession } from "../../src/domain/history/reader.js"
import { readChunks, readTranscript } from "../../src/services/platform/transcriptFiles.js"
import { type AgentFile, analyzeSession, isThread, type ThreadSummary, threadSummary } from "../../src/domain/history/session.js"
import { ClaudeHistory, type SessionLocation, workerPlan } from "../../src/services/history/ClaudeHistory.js"
import { Settings } from "../../src/services/Settings.js"
import { isInertLine, skeletonOf } from "../../src/domain/history/skeleton.js"
import { CLAUDE_EXTRA, CLAUDE_HOME, copyOfClaudeHome, PROJECTS, SCHEMA_DRIFT, settingsFor } from "./support.js"

/** The reference: every line kept, the whole session analysed, then summarised. */
const fullSummary = (threadId: string, mainPath: string, main: ReturnType<typeof decodeText>, agents: Array<AgentFile>) => {
  const analysis = analyzeSession({ threadId, mainPath, main, agents })
  return isThread(analysis) ? threadSummary(analysis) : undefined
}

/** Serves in-memory files to `summarizeSession` in chunks of a random size (exercises every chunk boundary). */
const chunkedReader = (texts: ReadonlyMap<string, Buffer>, random: () => number, maxChunk: number) =>
(file: string, sink: (chunk: Buffer) => void) => {
  const bytes = texts.get(file)
  if (bytes === undefined) throw Object.assign(new Error(`ENOENT: ${file}`), { code: "ENOENT" })
  for (let offset = 0; offset < bytes.length;) {
    const size = 1 + Math.floor(random() * maxChunk)
    // A copy in a reused scratch buffer, as the real reader does: the splitter must not keep a view of it.
    const scratch = Buffer.alloc(size, 0x20)
    const length = bytes.copy(scratch, 0, offset, offset + size)
    sink(scratch.subarray(0, length))
    scratch.fill(0x20)
    offset += length
  }
}

const prng = (seed: number) => () => {
  seed = (seed * 1_103_515_245 + 12_345) & 0x7fffffff
  return seed / 0x7fffffff
}

const mainFiles = () => [
  SCHEMA_DRIFT,
  ...fs.readdirSync(PROJECTS).flatMap((folder) =>
    fs.readdirSync(path.join(PROJECTS, folder))
      .filter((name) => name.endsWith(".jsonl") && !name.startsWith("agent-"))
      .map((name) => path.join(PROJECTS, folder, name))
  )
]

const discover = (home: string = CLAUDE_HOME): Promise<ReadonlyArray<SessionLocation>> =>
  Effect.runPromise(
    Effect.gen(function*() {
      return yield* (yield* ClaudeHistory).discover()
    }).pipe(Effect.provide(ClaudeHistory.Default.pipe(Layer.provide(Settings.layer(settingsFor(home))))))
  )

const filesOf = (location: SessionLocation): SessionFiles => ({
  threadId: location.threadId,
  mainPath: location.main.path,
  agentPaths: location.agents.map((stamp) => stamp.path)
})

describe("the listing's streaming summary equals the full parse's summary", () => {
  it("on every fixture session with its sub-agents (every thread field, the non-threads too)", async () => {
    const locations = await discover()
    expect(locations.length).toBeGreaterThanOrEqual(8)
    let threads = 0
    for (const location of locations) {
      const main = await readTranscript(location.main.path)
      const agents = await Promise.all(location.agents.map(async (stamp) => ({ path: stamp.path, decoded: await readTranscript(stamp.path) })))
      const expected = fullSummary(location.threadId, location.main.path, main, agents)
      const actual = await summarizeSession(filesOf(location), readChunks)
      expect(actual).toEqual(expected)
      if (expected !== undefined) threads++
    }
    expect(threads).toBe(5)
  })

  it("on the copies with task notifications, a resumed session and long-context requests", async () => {
    const locations = await discover(CLAUDE_EXTRA)
    expect(locations).toHaveLength(4)
    for (const location of locations) {
      const main = await readTranscript(location.main.path)
      const agents = await Promise.all(location.agents.map(async (stamp) => ({ path: stamp.path, decoded: await readTranscript(stamp.path) })))
      expect(await summarizeSession(filesOf(location), readChunks)).toEqual(fullSummary(location.threadId, location.main.path, main, agents))
    }
  })

  it("parses only what a summary reads: long tool outputs, file contents and inputs are skipped", () => {
    const big = "x\"y".repeat(5_000)
    const line = {
      type: "user",
      uuid: "u1",
      message: { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: big, is_error: false }] },
      toolUseResult: { filePath: `/p/${big}`, originalFile: big, structuredPatch: [{ lines: [big] }] }
    }
    const text = JSON.stringify(line)
    const skeleton = skeletonOf(text)
    expect(skeleton.length).toBeLessThan(text.length / 2)
    expect(JSON.parse(skeleton)).toEqual({
      ...line,
      message: { ...line.message, content: [{ ...line.message.content[0], content: "" }] },
      toolUseResult: { filePath: `/p/${big}`, originalFile: "", structuredPatch: [{ lines: [""] }] }
    })
    // A prompt's text is kept, and a torn line stays torn.
    const prompt = JSON.stringify({ type: "user", uuid: "u2", message: { role: "user", content: big } })
    expect(skeletonOf(prompt)).toBe(prompt)
    expect(skeletonOf(text.slice(0, text.length - 20))).toBe(text.slice(0, text.length - 20))
  })

  it("leaves unparsed only the file-history snapshots that cannot place anything in the conversation", () => {
    const snapshot = {
      type: "file-history-snapshot",
      messageId: "m1",
      snapshot: { messageId: "m1", trackedFileBackups: { "src/a.ts": { backupFileName: "a@v1", version: 1 } } },
      isSnapshotUpdate: false
    }
    const text = JSON.stringify(snapshot)
    expect(isInertLine(text)).toBe(true)
    expect(isInertLine(text.slice(0, 50))).toBe(true)
    // Anything a summary could read keeps the line parsed: a uuid or cwd, a second `type` (the last one wins
    // in JSON.parse), a key that an escape could spell, or another entry type.
    for (
      const parsed of [
        JSON.stringify({ ...snapshot, uuid: "u1", parentUuid: "u0" }),
        JSON.stringify({ ...snapshot, cwd: "/p" }),
        JSON.stringify({ ...snapshot, type: "file-history-snapshot", message: { type: "user" } }),
        `${text.slice(0, -1)},"type":"user"}`,
        `${text.slice(0, -1)},"\\u0075uid":"u1"}`,
        JSON.stringify({ type: "progress", messageId: "m1" }),
        ` ${text}`
      ]
    ) expect(isInertLine(parsed)).toBe(false)
  })

  it("with file-history snapshots of every kind between the lines of every session (skipped or parsed alike)", async () => {
    const random = prng(11)
    let skipped = 0
    for (const file of mainFiles()) {
      const lines = fs.readFileSync(file, "utf8").split("\n")
      const uuids = lines.flatMap((line) => {
        const uuid = /"uuid":"([^"]+)"/.exec(line)?.[1]
        return uuid === undefined ? [] : [uuid]
      })
      const pick = () => uuids[Math.floor(random() * uuids.length)] ?? "none"
      const placed: Array<string> = []
      const snapshot = () => {
        const base = { type: "file-history-snapshot", messageId: pick(), snapshot: { trackedFileBackups: {} } }
        const uuid = `s-${placed.length}`
        const variants = [
          base,
          { ...base, isSidechain: random() < 0.5, parentUuid: pick(), timestamp: "2026-01-01T00:00:00.000Z", gitBranch: "x" },
          { ...base, uuid, parentUuid: pick() },
          { ...base, cwd: "/elsewhere" },
          { ...base, summary: "Snapshot title", leafUuid: pick(), customTitle: "t" }
        ]
        const chosen = variants[Math.floor(random() * variants.length)]!
        if ("uuid" in chosen) placed.push(uuid)
        const text = JSON.stringify(chosen)
        return random() < 0.1 ? text.slice(0, Math.floor(random() * text.length)) : text
      }
      const withSnapshots = lines.flatMap((line) => (random() < 0.5 ? [snapshot(), line] : [line]))
      // A summary that names a snapshot placed in the conversation: it titles the thread only if that line is read.
      const named = placed.at(-1)
      if (named !== undefined) withSnapshots.push(JSON.stringify({ type: "summary", summary: "Named after a snapshot", leafUuid: named }))
      const text = withSnapshots.join("\n")
      skipped += text.split("\n").filter(isInertLine).length
      const bytes = Buffer.from(text, "utf8")
      const read = chunkedReader(new Map([[file, bytes]]), random, 70_000)
      expect(await summarizeSession({ threadId: "t", mainPath: file, agentPaths: [] }, read)).toEqual(
        fullSummary("t", file, decodeText(text), [])
      )
    }
    expect(skipped).toBeGreaterThan(100)
    // A snapshot's cwd is the project directory of a session whose prompt names none.
    const file = "/p/synthetic.jsonl"
    const synthetic = [
      JSON.stringify({ type: "file-history-snapshot", messageId: "m1", snapshot: { trackedFileBackups: {} }, cwd: "/from/a/snapshot" }),
      JSON.stringify({ type: "user", uuid: "u1", timestamp: "2026-01-01T00:00:00.000Z", message: { role: "user", content: "Fix it" } })
    ].join("\n")
    const expected = fullSummary("t", file, decodeText(synthetic), [])
    expect(expected?.project_dir).toBe("/from/a/snapshot")
    const read = chunkedReader(new Map([[file, Buffer.from(synthetic)]]), random, 70_000)
    expect(await summarizeSession({ threadId: "t", mainPath: file, agentPaths: [] }, read)).toEqual(expected)
  })

  it("on the schema-drift catalogue and on every session file alone, read in chunks of random size", async () => {
    const random = prng(7)
    for (const file of mainFiles()) {
      const bytes = fs.readFileSync(file)
      const expected = fullSummary("t", file, decodeText(bytes.toString("utf8")), [])
      for (const maxChunk of [1, 7, 300, 70_000]) {
        const read = chunkedReader(new Map([[file, bytes]]), random, maxChunk)
        expect(await summarizeSession({ threadId: "t", mainPath: file, agentPaths: [] }, read)).toEqual(expected)
      }
    }
  })

  it("on every session file truncated at random byte offsets (torn last lines, split characters)", async () => {
    const random = prng(20_260_102)
    let compared = 0
    for (const file of mainFiles()) {
      const bytes = fs.readFileSync(file)
      for (let attempt = 0; attempt < 25; attempt++) {
        const cut = bytes.subarray(0, Math.floor(random() * (bytes.length + 1)))
        const expected = fullSummary("cut", file, decodeText(cut.toString("utf8")), [])
        const read = chunkedReader(new Map([[file, cut]]), random, 4_096)
        expect(await summarizeSession({ threadId: "cut", mainPath: file, agentPaths: [] }, read)).toEqual(expected)
        compared++
      }
    }
    expect(compared).toBeGreaterThan(200)
  })

  it("with a sub-agent file truncated, or gone (it is left out as in the full parse)", async () => {
    const locations = await discover()
    const withAgents = locations.filter((location) => location.agents.length > 0)
    expect(withAgents.length).toBeGreaterThan(0)
    const random = prng(99)
    for (const location of withAgents) {
      const mainBytes = fs.readFileSync(location.main.path)
      for (let attempt = 0; attempt < 10; attempt++) {
        const texts = new Map([[location.main.path, mainBytes]])
        const agents: Array<AgentFile> = []
        location.agents.forEach((stamp, index) => {
          if (index === attempt % location.agents.length && attempt % 3 === 0) return // this one vanished
          const bytes = fs.readFileSync(stamp.path)
          const cut = bytes.subarray(0, Math.floor(random() * (bytes.length + 1)))
          texts.set(stamp.path, cut)
          agents.push({ path: stamp.path, decoded: decodeText(cut.toString("utf8")) })
        })
        const expected = fullSummary(location.threadId, location.main.path, decodeText(mainBytes.toString("utf8")), agents)
        const actual = await summarizeSession(filesOf(location), chunkedReader(texts, random, 2_000))
        expect(actual).toEqual(expected)
      }
    }
  })
})

describe("line splitting across chunks", () => {
  const collect = (chunks: ReadonlyArray<Buffer>, maxLineBytes?: number) => {
    const seen: Array<string> = []
    const splitter = new LineSplitter(
      (text, line) => seen.push(`${line}:${text}`),
      (line) => seen.push(`${line}:<oversized>`),
      maxLineBytes
    )
    for (const chunk of chunks) splitter.push(chunk)
    splitter.end()
    return seen
  }

  it("keeps multi-byte characters, blank lines and a torn last line intact at any chunk size", () => {
    const text = "{\"a\":\"日本語テキスト\"}\n\n  \r\n{\"emoji\":\"😀😀\"}\r\n" + "é".repeat(40_000) + "\n{\"torn\":\"é"
    const bytes = Buffer.from(text, "utf8")
    const expected = text.split("\n").map((line, index) => `${index + 1}:${line}`)
    for (const size of [1, 2, 3, 5, 64, 65_537, bytes.length]) {
      const chunks: Array<Buffer> = []
      for (let offset = 0; offset < bytes.length; offset += size) chunks.push(bytes.subarray(offset, offset + size))
      expect(collect(chunks)).toEqual(expected)
    }
  })

  it("drops lines above the byte limit (counted in UTF-8 bytes) whether they arrive whole or in pieces", () => {
    const lines = ["short", "x".repeat(101), "é".repeat(50), "é".repeat(51), "ok"]
    const bytes = Buffer.from(lines.join("\n"), "utf8")
    const expected = ["1:short", "2:<oversized>", `3:${"é".repeat(50)}`, "4:<oversized>", "5:ok"]
    expect(collect([bytes], 100)).toEqual(expected)
    const pieces: Array<Buffer> = []
    for (let offset = 0; offset < bytes.length; offset += 7) pieces.push(bytes.subarray(offset, offset + 7))
    expect(collect(pieces, 100)).toEqual(expected)
  })
})

/**
 * Adds to one fixture session a sub-agent line whose parsed value is more than a starved worker (below)
 * holds: a million empty objects (3 MB of text, tens of MB once parsed; the skeleton keeps them, since it
 * drops only long strings). Small objects rather than one giant string: Node 24 decodes a long line into a string
 * outside the V8 heap, so a line's text no longer fills a worker's heap, and V8 lets a worker at its limit
 * finish only one more allocation of up to 16 MB (a single larger one would end the whole process, not just
 * the worker).
 */
const addStarvingLine = (home: string) => {
  const c45 = path.join(home, "projects", "-workspace", "c45af7b1-cb7c-4e51-93db-8cbb250a877a.jsonl")
  const lines = fs.readFileSync(c45, "utf8").split("\n")
  const objects = `[${Array.from({ length: 1000 }, () => `[${Array(1000).fill("{}").join(",")}]`).join(",")}]`
  const starving = `{"type":"user","isSidechain":true,"uuid":"starving","message":{"role":"user","content":"a sub-agent prompt"},"padding":${objects}}`
  fs.writeFileSync(c45, [lines[0], starving, ...lines.slice(1)].join("\n"))
}

/**
 * A worker heap that holds the parse worker itself (its modules take about 22 MB when it runs from src under
 * tsx) but not the line above parsed.
 */
const STARVED_WORKER = { maxOldGenerationSizeMb: 28, maxYoungGenerationSizeMb: 4 }

describe("listing on worker threads", () => {
  it("starts workers only for a large listing, on two cores, when the RSS budget leaves room for them", () => {
    const MB = 1024 * 1024
    expect(workerPlan("auto", 5, 900 * MB, 100 * MB)).toEqual({ workers: 0, mainThreadReason: "little to parse" })
    expect(workerPlan("auto", 2000, 10 * MB, 100 * MB)).toEqual({ workers: 0, mainThreadReason: "little to parse" })
    expect(workerPlan("auto", 2000, 900 * MB, 230 * MB)).toEqual({
      workers: 0,
      mainThreadReason: "RSS is 230 MB, no room for a worker in the 300 MB budget"
    })
    if (os.availableParallelism() >= 2) {
      expect(workerPlan("auto", 2000, 900 * MB, 120 * MB)).toEqual({ workers: 2 })
      expect(workerPlan("auto", 2000, 900 * MB, 190 * MB)).toEqual({ workers: 1, mainThreadToo: true })
    }
    expect(workerPlan(2, 1, 0, 999 * MB)).toEqual({ workers: 1 })
    expect(workerPlan(0, 10, 0, 0)).toEqual({ workers: 0, mainThreadReason: "workers disabled" })
    expect(workerPlan(2, 0, 0, 0)).toEqual({ workers: 0, mainThreadReason: "nothing to parse" })
  })

  const listWith = (home: string, workers: number) =>
    Effect.gen(function*() {
      const history = yield* ClaudeHistory
      const listing = yield* history.list()
      return { ...listing, stats: yield* history.listingStats }
    }).pipe(
      Effect.provide(ClaudeHistory.layerWith({ workers }).pipe(Layer.provide(Settings.layer(settingsFor(home))))),
      Effect.runPromise
    )

  it("gives the same threads and diagnostics as the main thread, and says it used the workers", async () => {
    const home = copyOfClaudeHome()
    const inThread = await listWith(home, 0)
    const onWorkers = await listWith(home, 2)
    expect(inThread.stats.workers).toBe(0)
    expect(onWorkers.stats).toMatchObject({ workers: 2, parsed: inThread.stats.parsed, fallbacks: 0 })
    expect(onWorkers.threads).toEqual(inThread.threads)
    expect(onWorkers.diagnostics).toEqual(inThread.diagnostics)
    expect(inThread.diagnostics).toEqual([])
    expect(inThread.threads.map((thread: ThreadSummary) => thread.imported_thread_id)).toHaveLength(5)
    // A second listing re-parses nothing, so it starts no worker.
    const again = await Effect.runPromise(
      Effect.gen(function*() {
        const history = yield* ClaudeHistory
        yield* history.list()
        yield* history.list()
        return yield* history.listingStats
      }).pipe(Effect.provide(ClaudeHistory.layerWith({ workers: 2 }).pipe(Layer.provide(Settings.layer(settingsFor(home))))))
    )
    expect(again).toMatchObject({ parsed: 0, workers: 0 })
  }, 60_000)

  it("parses here what a worker that runs out of memory could not", async () => {
    const home = copyOfClaudeHome()
    addStarvingLine(home)
    const starved = await Effect.runPromise(
      Effect.gen(function*() {
        const history = yield* ClaudeHistory
        yield* history.list()
        return yield* history.listingStats
      }).pipe(Effect.provide(
        ClaudeHistory.layerWith({ workers: 2, workerLimits: STARVED_WORKER })
          .pipe(Layer.provide(Settings.layer(settingsFor(home))))
      ))
    )
    expect(starved.fallbacks).toBeGreaterThan(0)
  }, 60_000)

  it("sends sessions to the workers during discovery, and names a stem seen in two folders apart", async () => {
    const home = copyOfClaudeHome()
    const first = (await listWith(home, 0)).threads[0]!
    fs.mkdirSync(path.join(home, "projects", "-zz-copy"))
    fs.copyFileSync(first.source_path, path.join(home, "projects", "-zz-copy", path.basename(first.source_path)))
    const inThread = await listWith(home, 0)
    const onWorkers = await listWith(home, 2)
    expect(onWorkers.stats).toMatchObject({ workers: 2, fallbacks: 0 })
    const ids = onWorkers.threads.map((thread: ThreadSummary) => thread.imported_thread_id)
    expect(ids).toContain(`${first.imported_thread_id}.2`)
    expect(onWorkers.threads).toEqual(inThread.threads)
  }, 60_000)

  it("plans the workers after discovery for sessions the index knows that grew, with the same answer", async () => {
    const home = copyOfClaudeHome()
    const grown = await Effect.runPromise(
      Effect.gen(function*() {
        const history = yield* ClaudeHistory
        yield* history.list()
        for (const file of fs.readdirSync(path.join(home, "projects"), { recursive: true }) as Array<string>) {
          if (file.endsWith(".jsonl")) fs.appendFileSync(path.join(home, "projects", file), "\n")
        }
        const listing = yield* history.list()
        return { ...listing, stats: yield* history.listingStats }
      }).pipe(Effect.provide(ClaudeHistory.layerWith({ workers: 2 }).pipe(Layer.provide(Settings.layer(settingsFor(home))))))
    )
    const fresh = await listWith(home, 0)
    expect(fresh.stats.parsed).toBeGreaterThan(0)
    expect(grown.stats).toMatchObject({ workers: 2, parsed: fresh.stats.parsed, fallbacks: 0 })
    expect(grown.threads).toEqual(fresh.threads)
  }, 60_000)

  it("gives the same listing with one worker beside the main thread", async () => {
    const home = copyOfClaudeHome()
    const inThread = await listWith(home, 0)
    const shared = await Effect.runPromise(
      Effect.gen(function*() {
        const history = yield* ClaudeHistory
        const listing = yield* history.list()
        return { ...listing, stats: yield* history.listingStats }
      }).pipe(Effect.provide(
        ClaudeHistory.layerWith({ workers: 1, mainThreadToo: true }).pipe(Layer.provide(Settings.layer(settingsFor(home))))
      ))
    )
    expect(shared.stats).toMatchObject({ workers: 1, mainThreadToo: true, fallbacks: 0, parsed: inThread.stats.parsed })
    expect(shared.threads).toEqual(inThread.threads)
    expect(shared.diagnostics).toEqual(inThread.diagnostics)
  }, 60_000)

  it("summarises on the main thread the sessions of a worker that ran out of memory", async () => {
    const home = copyOfClaudeHome()
    addStarvingLine(home)
    const inThread = await listWith(home, 0)
    const starved = await Effect.runPromise(
      Effect.gen(function*() {
        const history = yield* ClaudeHistory
        const listing = yield* history.list()
        return { ...listing, stats: yield* history.listingStats }
      }).pipe(Effect.provide(
        ClaudeHistory.layerWith({ workers: 2, workerLimits: STARVED_WORKER })
          .pipe(Layer.provide(Settings.layer(settingsFor(home))))
      ))
    )
    expect(starved.stats.workers).toBe(2)
    expect(starved.stats.fallbacks).toBeGreaterThan(0)
    // Only the starved worker's sessions: the other worker went on.
    expect(starved.stats.fallbacks).toBeLessThan(starved.stats.parsed)
    expect(starved.threads).toEqual(inThread.threads)
    expect(starved.diagnostics).toEqual(inThread.diagnostics)
  }, 60_000)
})
