/**
 * Benchmark of the Claude history importer (`npm run bench:history`). It replicates the real fixtures into
 * 2,000 sessions (about 1 GB) in a temporary CLAUDE_CONFIG_DIR and reports, in one run:
 * - floor: a bare pass that reads every line of every file and JSON.parses it (same reader, same concurrency);
 * - cold: the first `list_threads` (discovery + streaming summaries) as the daemon runs it: on two worker threads
 *   when the machine has the cores and the process the memory for them, on one worker beside the main thread
 *   when memory allows only one, else on the main thread (the output says which, and why);
 * - warm: a second `list_threads` first page (served from the per-file cache);
 * - for comparison, a fresh service (empty cache) in the other mode: single-threaded if the first listing used
 *   workers (the like-for-like comparison with the single-threaded floor), else on two workers;
 * - peak RSS while each cold listing ran, and the process's peak RSS overall (both listings).
 * Targets: cold ≤ 1.5 × floor, warm ≤ 50 ms, peak RSS ≤ 300 MB.
 */
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type { ControllerSessionId } from "../src/domain/ids.js"
import { listThreads } from "../src/programs/threads.js"
import { Baseline } from "../src/services/Baseline.js"
import { ClaudeHistory } from "../src/services/ClaudeHistory.js"
import { CodexModels } from "../src/services/CodexModels.js"
import { ProcessRunner } from "../src/services/ProcessRunner.js"
import { Samples } from "../src/services/Samples.js"
import { Settings } from "../src/services/Settings.js"

const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 2000)
const TARGET_SESSION_BYTES = Number(process.env.BENCH_SESSION_BYTES ?? 512 * 1024)
const PROJECT_FOLDERS = 20
const CONCURRENCY = 4

const fixtures = path.resolve(import.meta.dirname, "../test/fixtures/claude-home/projects")

interface Template {
  readonly stem: string
  readonly main: string
  readonly agents: ReadonlyArray<{ readonly name: string; readonly text: string }>
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g

const loadTemplates = (): Array<Template> =>
  fs.readdirSync(fixtures).flatMap((folder) => {
    const directory = path.join(fixtures, folder)
    const names = fs.readdirSync(directory).filter((name) => name.endsWith(".jsonl"))
    const agents = names.filter((name) => name.startsWith("agent-")).map((name) => ({
      name,
      text: fs.readFileSync(path.join(directory, name), "utf8")
    }))
    return names.filter((name) => !name.startsWith("agent-")).flatMap((name) => {
      const main = fs.readFileSync(path.join(directory, name), "utf8")
      if (main.length < 5000) return []
      const stem = name.slice(0, -".jsonl".length)
      return [{ stem, main, agents: agents.filter((agent) => agent.text.includes(`"sessionId":"${stem}"`)) }]
    })
  })

const hex = (value: number, width: number) => value.toString(16).padStart(width, "0").slice(-width)

/** Rewrites every uuid so each copy is a distinct stretch of conversation; the session id maps to the new stem. */
const rewrite = (text: string, templateStem: string, newStem: string, copy: number) =>
  text
    .replace(UUID, (match) => (match === templateStem ? newStem : `${match.slice(0, 24)}${hex(copy, 4)}${match.slice(28)}`))
    .replace(/"msg_/g, `"msg_c${copy}_`)

const generate = (root: string) => {
  const templates = loadTemplates()
  let bytes = 0
  for (let index = 0; index < SESSIONS; index++) {
    const template = templates[index % templates.length]!
    const folder = path.join(root, "projects", `-bench-project-${hex(index % PROJECT_FOLDERS, 2)}`)
    fs.mkdirSync(folder, { recursive: true })
    const stem = `${hex(index, 8)}-0000-4000-8000-${hex(index, 12)}`
    const copies = Math.max(1, Math.round(TARGET_SESSION_BYTES / template.main.length))
    const file = fs.openSync(path.join(folder, `${stem}.jsonl`), "w")
    for (let copy = 0; copy < copies; copy++) {
      const text = rewrite(template.main, template.stem, stem, copy)
      fs.writeSync(file, text.endsWith("\n") ? text : `${text}\n`)
      bytes += Buffer.byteLength(text)
    }
    fs.closeSync(file)
    template.agents.forEach((agent, agentIndex) => {
      // Alternate the 2.0.x sibling layout and the 2.1.x <session>/subagents layout.
      const nested = index % 2 === 0
      const directory = nested ? path.join(folder, stem, "subagents") : folder
      fs.mkdirSync(directory, { recursive: true })
      const name = `agent-${hex(index, 5)}${agentIndex}.jsonl`
      const text = rewrite(agent.text, template.stem, stem, 0)
      fs.writeFileSync(path.join(directory, name), text)
      bytes += Buffer.byteLength(text)
    })
  }
  return bytes
}

const allTranscripts = (root: string) =>
  (fs.readdirSync(root, { recursive: true }) as Array<string>)
    .filter((name) => name.endsWith(".jsonl"))
    .map((name) => path.join(root, name))

/** The floor: read every line and JSON.parse it, nothing else. */
const bareParse = async (files: ReadonlyArray<string>) => {
  let lines = 0
  const one = async (file: string) => {
    const handle = await fs.promises.open(file, "r")
    const buffer = Buffer.allocUnsafe(1024 * 1024)
    let carry = ""
    try {
      for (;;) {
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, null)
        if (bytesRead === 0) break
        const text = carry + buffer.toString("utf8", 0, bytesRead)
        const parts = text.split("\n")
        carry = parts.pop() ?? ""
        for (const part of parts) {
          if (part === "") continue
          try {
            JSON.parse(part)
            lines++
          } catch {
            // a torn line costs the same as a parsed one
          }
        }
      }
    } finally {
      await handle.close()
    }
  }
  let next = 0
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < files.length) await one(files[next++]!)
  }))
  return lines
}

const rssSampler = () => {
  let peak = process.memoryUsage().rss
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss)
  }, 5)
  return {
    stop: () => {
      clearInterval(timer)
      return Math.max(peak, process.memoryUsage().rss)
    }
  }
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`
const ms = (millis: number) => `${millis.toFixed(0)} ms`

const main = async () => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "bench-claude-home-"))
  const cacheRoot = fs.mkdtempSync(path.join(os.tmpdir(), "bench-cache-"))
  try {
    const startGenerate = performance.now()
    const bytes = generate(home)
    const files = allTranscripts(home)
    console.log(`generated ${SESSIONS} sessions, ${files.length} files, ${mb(bytes)} in ${ms(performance.now() - startGenerate)}`)

    const floorStart = performance.now()
    const parsedLines = await bareParse(files)
    const floor = performance.now() - floorStart
    console.log(`floor (read + JSON.parse every line): ${ms(floor)} for ${parsedLines} lines`)

    const layerWith = (history: typeof ClaudeHistory.Default) =>
      Layer.mergeAll(history, Samples.Default, Baseline.Default, CodexModels.Default).pipe(
        Layer.provideMerge(Settings.layer({
          runRoot: path.join(cacheRoot, "runs"),
          cacheRoot,
          controllersRoot: path.join(cacheRoot, "controllers"),
          preferredPort: 43118,
          idleTimeoutMillis: 3_600_000,
          controllerSessionId: "0".repeat(32) as ControllerSessionId,
          codexCliPath: undefined,
          claudeConfigDir: home,
          inheritedSocketFd: undefined
        })),
        Layer.provideMerge(ProcessRunner.Default)
      )
    const layer = layerWith(ClaudeHistory.Default)

    let usedWorkers = false
    await Effect.runPromise(Effect.gen(function*() {
      const history = yield* ClaudeHistory
      const rssBefore = process.memoryUsage().rss
      const sampler = rssSampler()
      const coldStart = performance.now()
      const cold = yield* listThreads({})
      const coldTime = performance.now() - coldStart
      const listingPeak = sampler.stop()
      const coldStats = yield* history.listingStats
      const warmStart = performance.now()
      const warm = yield* listThreads({ offset: 0, limit: 20 })
      const warmTime = performance.now() - warmStart
      const searchStart = performance.now()
      const search = yield* listThreads({ query: "opus" })
      const searchTime = performance.now() - searchStart
      const how = coldStats.workers === 0
        ? `on the main thread: ${coldStats.mainThreadReason ?? "no workers"}`
        : coldStats.mainThreadToo
        ? `on ${coldStats.workers} worker thread and the main thread (RSS left room for one worker)`
        : `on ${coldStats.workers} worker threads`
      usedWorkers = coldStats.workers > 0
      console.log(`cold list_threads: ${ms(coldTime)} (${cold.imported_total} threads, ${coldStats.parsed} sessions parsed ${how})`)
      console.log(`warm list_threads first page: ${ms(warmTime)} (${warm.threads.length} threads)`)
      console.log(`warm search "opus": ${ms(searchTime)} (${search.total} matches)`)
      console.log(`cold / floor: ${(coldTime / floor).toFixed(2)} (target ≤ 1.5; cold listing ${how})`)
      console.log(`peak RSS while listing: ${mb(listingPeak)} (${mb(rssBefore)} before it); process peak RSS so far: ${
        mb(process.resourceUsage().maxRSS * 1024)
      } (target ≤ 300 MB)`)
    }).pipe(Effect.provide(layer)))

    // For comparison, a fresh service (empty cache) in the other mode.
    const workers = usedWorkers ? 0 : 2
    const label = usedWorkers ? "single-threaded" : "on 2 worker threads (forced)"
    await Effect.runPromise(Effect.gen(function*() {
      const rssBefore = process.memoryUsage().rss
      const sampler = rssSampler()
      const start = performance.now()
      const cold = yield* listThreads({})
      const time = performance.now() - start
      const peak = sampler.stop()
      const stats = yield* (yield* ClaudeHistory).listingStats
      if (stats.workers !== workers || stats.parsed !== SESSIONS) throw new Error(`the comparison listing did not run ${label}`)
      console.log(`for comparison, cold list_threads ${label}: ${ms(time)} (${cold.imported_total} threads); / floor: ${(time / floor).toFixed(2)}`)
      console.log(`peak RSS while listing ${label}: ${mb(peak)} (${mb(rssBefore)} before it)`)
    }).pipe(Effect.provide(layerWith(ClaudeHistory.layerWith({ workers })))))
    console.log(`process peak RSS after both listings: ${mb(process.resourceUsage().maxRSS * 1024)}`)
  } finally {
    fs.rmSync(home, { recursive: true, force: true })
    fs.rmSync(cacheRoot, { recursive: true, force: true })
  }
}

await main()
