import { describe, expect, it } from "@effect/vitest"
import { Effect, Logger } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { threadIndexPath } from "../../../src/domain/history/threadIndex.js"
import { loadIndex } from "../../../src/services/history/indexStore.js"
import { VERSION } from "../../../src/services/internal/packageInfo.js"
import { NodeFilesLive } from "../../../src/services/platform/nodeFiles.js"
import { readingMessage } from "../../../src/programs/threads/threadList.js"
import { ClaudeHistory } from "../../../src/services/history/ClaudeHistory.js"
import { runBin } from "../../support/spawnBin.js"
import { copyOfClaudeHome, historyLayer, scratch, settingsFor } from "../../history/support.js"

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

/** The index file as a new process reads it. */
const loadIndexFile = (setup: Setup) =>
  Effect.runPromise(loadIndex(setup.indexFile, VERSION, projectsOf(setup)).pipe(Effect.provide(NodeFilesLive)))

const INDEX_NAME = path.basename(threadIndexPath("/"))

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
    expect(fs.readdirSync(path.dirname(context.indexFile))).toEqual([INDEX_NAME])
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
    const after = await listFresh(context)
    expect(after.threads.map((thread) => thread.source_path)).toEqual(
      before.threads.map((thread) => thread.source_path).filter((source) => source !== file)
    )
    const loaded = await loadIndexFile(context)
    expect(loaded._tag).toBe("Loaded")
    if (loaded._tag === "Loaded") expect(loaded.index.sessions.has(file)).toBe(false)
  })

  for (
    const [what, content] of [
      ["a corrupt index", "{\"kind\":\"codex-replay-thread-index\",\"format\":1,\"sess"],
      ["a foreign file", JSON.stringify({ kind: "something-else", sessions: {} })],
      ["an index of another version", JSON.stringify({ kind: "codex-replay-thread-index", format: 1, version: "0.0.0-other", projects_root: "/x", sessions: {}, resumed: {} })],
      ["an index with a malformed entry", "malformed" /* made below from a real index */]
    ] as const
  ) {
    it(`discards ${what} with one warning, rebuilds it, and answers exactly as without it`, async () => {
      const context = setup()
      const reference = await listFresh(context)
      const real = fs.readFileSync(context.indexFile, "utf8")
      const parsed = JSON.parse(real)
      parsed.sessions[Object.keys(parsed.sessions)[0]!] = { fingerprint: 42, digest: "nonsense" }
      const bad = content === "malformed" ? JSON.stringify(parsed) : content
      expect(bad).not.toBe(real)
      fs.writeFileSync(context.indexFile, bad)
      const rebuilt = await listFresh(context)
      expect(rebuilt.threads).toEqual(reference.threads)
      expect(rebuilt.stats.parsed).toBe(reference.stats.parsed)
      expect(rebuilt.warnings).toHaveLength(1)
      expect(rebuilt.warnings[0]).toMatch(/^The thread index .+threads-v3\.json was discarded because .+; it is being rebuilt\.$/)
      expect(rebuilt.warnings[0]).not.toContain("\n")
      expect((await loadIndexFile(context))._tag).toBe("Loaded")
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
    expect(listed.warnings[0]).toMatch(/^The thread index .+threads-v3\.json was discarded because it cannot be read \(.+\); it is being rebuilt\.$/)
    expect(listed.warnings[1]).toMatch(/^Cannot write the thread index .+threads-v3\.json: .+/)
    for (const warning of listed.warnings) expect(warning).not.toContain("\n")
    expect(fs.readdirSync(path.dirname(context.indexFile)).sort()).toEqual([INDEX_NAME])
    expect(fs.readdirSync(context.indexFile)).toEqual(["taken"])
  })

  it("removes the index and journal of the format before when it writes its own", async () => {
    const context = setup()
    const folder = path.dirname(context.indexFile)
    fs.mkdirSync(folder, { recursive: true, mode: 0o700 })
    fs.writeFileSync(path.join(folder, "threads-v1.json"), JSON.stringify({ kind: "codex-replay-thread-index", format: 1 }))
    fs.writeFileSync(path.join(folder, "threads-v1.journal"), "{}\n")
    fs.writeFileSync(path.join(folder, "threads-v2.jsonl"), "{}\n")
    fs.writeFileSync(path.join(folder, "threads-v2.journal"), "{}\n")
    const cold = await listFresh(context)
    expect(cold.warnings).toEqual([])
    expect(fs.readdirSync(folder)).toEqual([INDEX_NAME])
  })

  it("stays whole when two processes write it at once (run `npm run build` first)", async () => {
    const context = setup()
    const env = {
      ...process.env,
      CLAUDE_CONFIG_DIR: context.home,
      CODEX_REPLAY_RUN_ROOT: context.settings.runRoot
    }
    const run = () => runBin(["threads", "--json", "--limit", "100"], { env })
    const [first, second] = await Promise.all([run(), run()])
    expect(first.code).toBe(0)
    expect(second.code).toBe(0)
    expect(JSON.parse(first.stdout).threads).toEqual(JSON.parse(second.stdout).threads)
    expect(first.stderr + second.stderr).not.toContain("thread index")
    const loaded = await loadIndexFile(context)
    expect(loaded._tag).toBe("Loaded")
    // No temporary file left behind.
    expect(fs.readdirSync(path.dirname(context.indexFile))).toEqual([INDEX_NAME])
    const warm = await listFresh(context)
    expect(warm.stats.parsed).toBe(0)
    expect(warm.threads.map((thread) => thread.imported_thread_id)).toEqual(
      JSON.parse(first.stdout).threads.map((thread: { imported_thread_id: string }) => thread.imported_thread_id)
    )
  }, 60_000)
})
