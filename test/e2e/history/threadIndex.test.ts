import { describe, expect, it } from "@effect/vitest"
import { Effect, Logger } from "effect"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { THREAD_INDEX_FORMAT, threadIndexJournalPath, threadIndexPath } from "../../../src/domain/history/threadIndex.js"
import { loadThreadIndex, saveThreadIndex } from "../../../src/services/internal/threadIndexFile.js"
import { VERSION } from "../../../src/services/internal/packageInfo.js"
import { listThreads, readingMessage } from "../../../src/programs/threads/threadList.js"
import { ClaudeHistory } from "../../../src/services/ClaudeHistory.js"
import { BIN, REPO } from "../../rpc/support.js"
import { copyOfClaudeHome, historyLayer, scratch, settingsFor, sha256Hex as sha256, withFirstLine } from "../../history/support.js"

/**
 * The persistent thread index: every listing below runs in a fresh service (as a new process would), over
 * a copy of the real fixtures and one cache directory, so only the index carries anything between them.
 */
const SPOTTER = path.join("-home-marco-projects-spotter", "55604662-cf2a-4331-851a-ec234028f8ca.jsonl")

const setup = () => {
  const home = copyOfClaudeHome()
  const cacheRoot = scratch("history-index-")
  const settings = settingsFor(home, { cacheRoot, runRoot: path.join(cacheRoot, "runs"), controllersRoot: path.join(cacheRoot, "controllers") })
  return { home, cacheRoot, settings, indexFile: threadIndexPath(cacheRoot) }
}

type Setup = ReturnType<typeof setup>

/** One listing by a fresh service; the warnings it logged are collected. */
const listFresh = (setup: Setup) => {
  const warnings: Array<string> = []
  const collect = Logger.replace(Logger.defaultLogger, Logger.make(({ logLevel, message }) => {
    if (logLevel._tag === "Warning") warnings.push(String(message))
  }))
  return Effect.runPromise(
    Effect.gen(function*() {
      const history = yield* ClaudeHistory
      const listing = yield* history.list()
      return { ...listing, stats: yield* history.listingStats, progress: yield* history.listingProgress, warnings }
    }).pipe(Effect.provide(historyLayer(setup.settings)), Effect.provide(collect))
  )
}

/** `list_threads` by a fresh service (the CLI's and the page's listing); the warnings it logged are collected. */
const listThreadsFresh = (setup: Setup, payload: unknown) => {
  const warnings: Array<string> = []
  const collect = Logger.replace(Logger.defaultLogger, Logger.make(({ logLevel, message }) => {
    if (logLevel._tag === "Warning") warnings.push(String(message))
  }))
  return Effect.runPromise(
    Effect.map(listThreads(payload), (result) => ({ result, warnings })).pipe(Effect.provide(historyLayer(setup.settings)), Effect.provide(collect))
  )
}

const projectsOf = (setup: Setup) => path.join(setup.home, "projects")

/** Claude Code appends a human prompt to the spotter session (the `n`th such prompt of a test). */
const growSpotter = (setup: Setup, n: number) => {
  const file = path.join(projectsOf(setup), SPOTTER)
  const last = JSON.parse(fs.readFileSync(file, "utf8").trim().split("\n").at(-1)!)
  const prompt = {
    ...last,
    type: "user",
    parentUuid: last.uuid,
    uuid: `6f1c2b3a-0000-4000-8000-${String(n).padStart(12, "0")}`,
    timestamp: `2026-02-10T21:${String(19 + n).padStart(2, "0")}:00.000Z`,
    message: { role: "user", content: "Try again with mix deps.get first" }
  }
  delete prompt.subtype
  delete prompt.content
  fs.appendFileSync(file, `${JSON.stringify(prompt)}\n`)
  return file
}

const journalOf = (setup: Setup) => threadIndexJournalPath(setup.indexFile)

const journalLines = (setup: Setup) => fs.readFileSync(journalOf(setup), "utf8").split("\n").slice(0, -1).map((line) => JSON.parse(line))

describe("the persistent thread index", () => {
  it("answers a second process from the index, parsing nothing, with the same threads", async () => {
    const context = setup()
    const cold = await listFresh(context)
    // The nine session files of the fixtures (threads or not; agent files belong to their sessions).
    expect(cold.stats.parsed).toBe(9)
    expect(cold.progress).toEqual({ reading: false, done: 9, total: 9 })
    expect(readingMessage(812, 3200)).toBe("Reading 812 of 3,200 sessions…")
    expect(fs.statSync(context.indexFile).mode & 0o777).toBe(0o600)
    expect(fs.statSync(path.dirname(context.indexFile)).mode & 0o777).toBe(0o700)
    const warm = await listFresh(context)
    expect(warm.stats.parsed).toBe(0)
    expect(warm.progress).toEqual({ reading: false, done: 0, total: 0 })
    expect(warm.threads).toEqual(cold.threads)
    expect(warm.warnings).toEqual([])
  })

  it("makes concurrent first listings of one service wait for the index rather than parse everything", async () => {
    const context = setup()
    const cold = await listFresh(context)
    const parsedByEach = await Effect.runPromise(
      Effect.gen(function*() {
        const history = yield* ClaudeHistory
        return yield* Effect.all(
          [0, 1].map(() => Effect.zipRight(history.list(), history.listingStats)),
          { concurrency: "unbounded" }
        )
      }).pipe(Effect.provide(historyLayer(context.settings)))
    )
    expect(parsedByEach.map((stats) => stats.parsed)).toEqual([0, 0])
    expect(fs.existsSync(journalOf(context))).toBe(false)
    expect((await listFresh(context)).threads).toEqual(cold.threads)
  })

  it("re-reads only the session that grew, and its entry is no longer stale", async () => {
    const context = setup()
    const before = await listFresh(context)
    growSpotter(context, 1)
    const after = await listFresh(context)
    expect(after.stats.parsed).toBe(1)
    const spotter = (listing: typeof before) => listing.threads.find((thread) => thread.source_path.endsWith(SPOTTER))!
    expect(spotter(after).human_turns).toBe(spotter(before).human_turns + 1)
    expect(spotter(after).ended_at).toBe("2026-02-10T21:20:00.000Z")
    const again = await listFresh(context)
    expect(again.stats.parsed).toBe(0)
    expect(again.threads).toEqual(after.threads)
  })

  it("drops a deleted session from the listing and from the index", async () => {
    const context = setup()
    const before = await listFresh(context)
    const file = path.join(projectsOf(context), SPOTTER)
    fs.rmSync(file)
    const index = fs.readFileSync(context.indexFile, "utf8")
    const after = await listFresh(context)
    // Recorded as gone in the journal; the index itself is not rewritten.
    expect(fs.readFileSync(context.indexFile, "utf8")).toBe(index)
    expect(journalLines(context).map((line) => line.sessions)).toEqual([{ [file]: null }])
    expect(after.threads.map((thread) => thread.source_path)).toEqual(
      before.threads.map((thread) => thread.source_path).filter((source) => source !== file)
    )
    const loaded = await loadThreadIndex(context.indexFile, VERSION, projectsOf(context))
    expect(loaded._tag).toBe("Loaded")
    if (loaded._tag === "Loaded") expect(loaded.index.sessions.has(file)).toBe(false)
  })

  for (
    const [what, content] of [
      ["a corrupt index", "{\"kind\":\"codex-replay-thread-index\",\"format\":1,\"sess"],
      ["a foreign file", JSON.stringify({ kind: "something-else", sessions: {} })],
      ["an index of another version", JSON.stringify({ kind: "codex-replay-thread-index", format: 1, version: "0.0.0-other", projects_root: "/x", sessions: {}, resumed: {} })],
      ["an index with a malformed entry", "malformed" /* made below from a real index */],
      ["an index whose summary was changed without its checksum", "unchecked" /* made below from a real index */]
    ] as const
  ) {
    it(`discards ${what} with one warning, rebuilds it, and answers exactly as without it`, async () => {
      const context = setup()
      const reference = await listFresh(context)
      const real = fs.readFileSync(context.indexFile, "utf8")
      const bad = content === "malformed"
        ? withFirstLine(real, (first) => (first.sessions[Object.keys(first.sessions)[0]!] = { fingerprint: 42, digest: "nonsense" }))
        : content === "unchecked"
        ? real.replace(/"human_turns":(\d+)/, (_, turns) => `"human_turns":${Number(turns) + 1}`)
        : content
      expect(bad).not.toBe(real)
      fs.writeFileSync(context.indexFile, bad)
      const rebuilt = await listFresh(context)
      expect(rebuilt.threads).toEqual(reference.threads)
      expect(rebuilt.stats.parsed).toBe(reference.stats.parsed)
      expect(rebuilt.warnings).toHaveLength(1)
      expect(rebuilt.warnings[0]).toMatch(/^The thread index .+threads-v2\.jsonl was discarded because .+; it is being rebuilt\.$/)
      expect(rebuilt.warnings[0]).not.toContain("\n")
      expect((await loadThreadIndex(context.indexFile, VERSION, projectsOf(context)))._tag).toBe("Loaded")
      const warm = await listFresh(context)
      expect(warm.stats.parsed).toBe(0)
      expect(warm.warnings).toEqual([])
    })
  }

  it("answers as without it, with one warning and no file left behind, when it cannot be written", async () => {
    const context = setup()
    const reference = await listFresh(context)
    // A folder where the index file goes: the rename that would replace it fails.
    fs.rmSync(context.indexFile)
    fs.mkdirSync(path.join(context.indexFile, "taken"), { recursive: true })
    const listed = await listFresh(context)
    expect(listed.threads).toEqual(reference.threads)
    // Read first, the folder is no index: one warning for that, one for the write.
    expect(listed.warnings).toHaveLength(2)
    expect(listed.warnings[0]).toMatch(/^The thread index .+threads-v2\.jsonl was discarded because it cannot be read \(.+\); it is being rebuilt\.$/)
    expect(listed.warnings[1]).toMatch(/^Cannot write the thread index .+threads-v2\.jsonl: .+/)
    for (const warning of listed.warnings) expect(warning).not.toContain("\n")
    expect(fs.readdirSync(path.dirname(context.indexFile)).sort()).toEqual(["threads-v2.jsonl"])
    expect(fs.readdirSync(context.indexFile)).toEqual(["taken"])
  })

  describe("its journal", () => {
    it("takes one line for a session that grew, leaving the index as it was, and a third process reads both", async () => {
      const context = setup()
      await listFresh(context)
      const index = fs.readFileSync(context.indexFile, "utf8")
      const file = growSpotter(context, 1)
      const grown = await listFresh(context)
      expect(grown.stats.parsed).toBe(1)
      expect(fs.readFileSync(context.indexFile, "utf8")).toBe(index)
      const lines = journalLines(context)
      expect(lines).toHaveLength(1)
      expect(Object.keys(lines[0].sessions)).toEqual([file])
      expect(lines[0]).toMatchObject({ kind: "codex-replay-thread-index", format: THREAD_INDEX_FORMAT, version: VERSION, projects_root: projectsOf(context) })
      expect(fs.statSync(journalOf(context)).mode & 0o777).toBe(0o600)
      const third = await listFresh(context)
      expect(third.stats.parsed).toBe(0)
      expect(third.threads).toEqual(grown.threads)
      expect(third.warnings).toEqual([])
      expect(journalLines(context)).toHaveLength(1)
    })

    it("leaves out a line cut off by a dying process, then starts again from a whole index at the next write", async () => {
      const context = setup()
      await listFresh(context)
      growSpotter(context, 1)
      const grown = await listFresh(context)
      fs.appendFileSync(journalOf(context), "{\"kind\":\"codex-replay-thread-index\",\"format\":1,\"sess")
      const cut = await listFresh(context)
      expect(cut.warnings).toEqual([])
      expect(cut.stats.parsed).toBe(0)
      expect(cut.threads).toEqual(grown.threads)
      growSpotter(context, 2)
      const again = await listFresh(context)
      expect(again.stats.parsed).toBe(1)
      expect(fs.existsSync(journalOf(context))).toBe(false)
      const warm = await listFresh(context)
      expect(warm.stats.parsed).toBe(0)
      expect(warm.threads).toEqual(again.threads)
    })

    it("is not appended to after a line another process left cut off: the live service writes the index whole", async () => {
      const context = setup()
      await listFresh(context)
      growSpotter(context, 1)
      const grown = await Effect.runPromise(
        Effect.gen(function*() {
          const history = yield* ClaudeHistory
          yield* history.list()
          // Another process dies while appending, after this service read the journal.
          fs.appendFileSync(journalOf(context), "{\"kind\":\"codex-replay-thread-index\",\"sess")
          growSpotter(context, 2)
          return yield* history.list()
        }).pipe(Effect.provide(historyLayer(context.settings)))
      )
      expect(fs.existsSync(journalOf(context))).toBe(false)
      const warm = await listFresh(context)
      expect(warm.warnings).toEqual([])
      expect(warm.stats.parsed).toBe(0)
      expect(warm.threads).toEqual(grown.threads)
    })

    for (
      const [what, line] of [
        ["a line that is not JSON", "not json at all\n"],
        ["a line of another version", `${JSON.stringify({ kind: "codex-replay-thread-index", format: 1, version: "0.0.0-other", projects_root: "/x", sessions: {}, resumed: {}, agents: {} })}\n`],
        ["a line with a malformed entry", "" /* filled below */]
      ] as const
    ) {
      it(`discards the index over ${what} with one warning, rebuilds it, and answers exactly as without it`, async () => {
        const context = setup()
        const reference = await listFresh(context)
        const bad = line !== "" ? line : `${JSON.stringify({
          kind: "codex-replay-thread-index",
          format: THREAD_INDEX_FORMAT,
          version: VERSION,
          projects_root: projectsOf(context),
          sessions: { [path.join(projectsOf(context), SPOTTER)]: { fingerprint: 42 } },
          resumed: {},
          agents: {}
        })}\n`
        fs.writeFileSync(journalOf(context), bad)
        const rebuilt = await listFresh(context)
        expect(rebuilt.threads).toEqual(reference.threads)
        expect(rebuilt.stats.parsed).toBe(reference.stats.parsed)
        expect(rebuilt.warnings).toHaveLength(1)
        expect(rebuilt.warnings[0]).toMatch(/^The thread index .+threads-v2\.jsonl was discarded because its journal is damaged \(.+\); it is being rebuilt\.$/)
        expect(fs.existsSync(journalOf(context))).toBe(false)
        const warm = await listFresh(context)
        expect(warm.stats.parsed).toBe(0)
        expect(warm.warnings).toEqual([])
      })
    }

    it("is folded into a whole index once it would pass a quarter of the index (and 64 KiB)", async () => {
      const context = setup()
      await listFresh(context)
      const loaded = await loadThreadIndex(context.indexFile, VERSION, projectsOf(context))
      if (loaded._tag !== "Loaded") throw new Error(`the index did not load: ${loaded._tag}`)
      const index = loaded.index
      const [first] = index.sessions.keys()
      const changes = { sessions: new Map([[first!, null]]), resumed: new Map(), agents: new Map() }
      const small = saveThreadIndex(context.indexFile, VERSION, projectsOf(context), index, changes, loaded.journal)
      expect(small.bytes).toBe(fs.statSync(journalOf(context)).size)
      const full = { ...small, bytes: 64 * 1024 }
      const folded = saveThreadIndex(context.indexFile, VERSION, projectsOf(context), index, changes, full)
      expect(folded).toEqual({ bytes: 0, indexBytes: fs.statSync(context.indexFile).size, appendable: true })
      expect(fs.existsSync(journalOf(context))).toBe(false)
      expect(fs.readdirSync(path.dirname(context.indexFile)).sort()).toEqual(["threads-v2.jsonl"])
    })
  })

  it("removes the index and journal of the format before when it writes its own", async () => {
    const context = setup()
    const folder = path.dirname(context.indexFile)
    fs.mkdirSync(folder, { recursive: true, mode: 0o700 })
    fs.writeFileSync(path.join(folder, "threads-v1.json"), JSON.stringify({ kind: "codex-replay-thread-index", format: 1 }))
    fs.writeFileSync(path.join(folder, "threads-v1.journal"), "{}\n")
    const cold = await listFresh(context)
    expect(cold.warnings).toEqual([])
    expect(fs.readdirSync(folder)).toEqual(["threads-v2.jsonl"])
  })

  it("answers a page parsing only the summaries it shows, and reads again a session whose summary line is damaged", async () => {
    const context = setup()
    const reference = await listThreadsFresh(context, { limit: 100 })
    const search = await listThreadsFresh(context, { query: "spotter", sort: "cost" })
    expect(search.result.threads.length).toBeGreaterThan(0)
    // The oldest thread's summary line made unreadable, its checksum made to match (a writer's fault, or an edit).
    const lines = fs.readFileSync(context.indexFile, "utf8").split("\n")
    const first = JSON.parse(lines[0]!)
    const threads = Object.entries(first.sessions as Record<string, { thread: [string | null, number | null] | null }>)
      .filter(([, entry]) => entry.thread !== null)
    const oldest = threads.reduce((found, entry, at) => ((entry[1].thread![0] ?? "") < (threads[found]![1].thread![0] ?? "") ? at : found), 0)
    lines[oldest + 1] = "{\"not\": \"a summary\""
    fs.writeFileSync(context.indexFile, withFirstLine(lines.join("\n"), (header) => (header.summaries = sha256(lines.slice(1).join("\n")))))
    // A page without it never reads its line.
    const page = await listThreadsFresh(context, { limit: 2 })
    expect(page.result.threads).toEqual(reference.result.threads.slice(0, 2))
    expect(page.result.total).toBe(threads.length)
    expect(page.warnings).toEqual([])
    // A search reads every summary: it reads that session again, says so once, answers as before, and corrects
    // the index, so that the whole listing after it finds nothing to say.
    const searched = await listThreadsFresh(context, { query: "spotter", sort: "cost" })
    expect(searched.result).toEqual(search.result)
    expect(searched.warnings).toHaveLength(1)
    expect(searched.warnings[0]).toMatch(/^The thread index .+ held a damaged summary of .+\.jsonl; the session was read again\.$/)
    expect(searched.warnings[0]).toContain(path.basename(threads[oldest]![0]))
    expect(await listThreadsFresh(context, { limit: 100 })).toEqual(reference)
    const loaded = await loadThreadIndex(context.indexFile, VERSION, projectsOf(context))
    expect(loaded._tag === "Loaded" && loaded.index.sessions.get(threads[oldest]![0])?.thread?.summary()?.source_path).toBe(threads[oldest]![0])
  })

  it("reads an index whose titles are UTF-8 rather than ASCII escapes (one written by hand) as UTF-8", async () => {
    const context = setup()
    const cold = await listFresh(context)
    const lines = fs.readFileSync(context.indexFile, "utf8").split("\n")
    const summary = JSON.parse(lines[1]!)
    lines[1] = JSON.stringify({ ...summary, title: "Réparer — 日本語" })
    const summaries = lines.slice(1).join("\n")
    fs.writeFileSync(context.indexFile, withFirstLine(lines.join("\n"), (first) => (first.summaries = sha256(summaries))))
    const loaded = await loadThreadIndex(context.indexFile, VERSION, projectsOf(context))
    expect(loaded._tag === "Loaded" && loaded.index.sessions.get(summary.source_path)?.thread?.summary()?.title).toBe("Réparer — 日本語")
    const warm = await listFresh(context)
    expect(warm.stats.parsed).toBe(0)
    expect(warm.warnings).toEqual([])
    expect(warm.threads.find((thread) => thread.source_path === summary.source_path)?.title).toBe("Réparer — 日本語")
    expect(warm.threads).toHaveLength(cold.threads.length)
  })

  it("stays whole when two processes write it at once (run `npm run build` first)", async () => {
    const context = setup()
    const env = {
      ...process.env,
      CLAUDE_CONFIG_DIR: context.home,
      CODEX_REPLAY_RUN_ROOT: context.settings.runRoot
    }
    const run = () =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [BIN, "threads", "--json", "--limit", "100"], { cwd: REPO, env })
        let stdout = ""
        let stderr = ""
        child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
        child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
        child.on("close", (code) => resolve({ code, stdout, stderr }))
      })
    const [first, second] = await Promise.all([run(), run()])
    expect(first.code).toBe(0)
    expect(second.code).toBe(0)
    expect(JSON.parse(first.stdout).threads).toEqual(JSON.parse(second.stdout).threads)
    expect(first.stderr + second.stderr).not.toContain("thread index")
    const loaded = await loadThreadIndex(context.indexFile, VERSION, projectsOf(context))
    expect(loaded._tag).toBe("Loaded")
    // No temporary file left behind (and no code cache of the user's: both started from the build's).
    expect(fs.readdirSync(path.dirname(context.indexFile))).toEqual(["threads-v2.jsonl"])
    const warm = await listFresh(context)
    expect(warm.stats.parsed).toBe(0)
    expect(warm.threads.map((thread) => thread.imported_thread_id)).toEqual(
      JSON.parse(first.stdout).threads.map((thread: { imported_thread_id: string }) => thread.imported_thread_id)
    )
  }, 60_000)
})
