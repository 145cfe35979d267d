/**
 * Benchmark of the Claude history listing (`npm run bench:history`; not part of `npm test`). It replicates the
 * real fixtures into 2,000 sessions (about 1 GB; every session has its own message and request ids) in a
 * temporary CLAUDE_CONFIG_DIR and measures whole processes, as a user runs them, medians of BENCH_RUNS paired
 * runs (default 5):
 * - floor: a bare single-threaded Node process that reads every line of every file and JSON.parses it;
 * - cold: `codex-replay threads --json --limit 100` with an empty cache (no thread index yet);
 * - ccusage: `ccusage session --json --offline` on the same history, when a runnable `ccusage` is on PATH or in
 *   node_modules/.bin, otherwise skipped with a note. It is not a devDependency: its npm package launches a
 *   native binary published per platform, and a lock file that cannot name every platform's fails `npm ci`.
 *   `npm install --no-save ccusage@20.0.24` installs it for this machine only;
 * - warm: the same command in a second process, answered from the thread index;
 * - one added: the same command after one new session was added (the index is updated for that one only), and
 *   what that session costs: its time less the warm listing's of the same run. A whole process with one more
 *   session can never take less than the warm one, which is allowed 10%: "one added ≤ 5% of cold" can only be
 *   the added session's cost, which is what this compares with the target;
 * - a running controller (bench/support/controllerListing.ts, the services the daemon runs): its listing on
 *   unchanged history and after one more session was added, timed inside its process;
 * - warm floor: a bare Node process doing only what any answer from an index must: walk the history's folders,
 *   stat every transcript, read and JSON.parse the index, and print the newest 100 summaries;
 * - what no history costs: Node alone (`node -e 0`), and the same command on an empty history (its second
 *   call), which is the start of the command line and the Effect runtime that every listing pays;
 * - peak RSS of each (`/usr/bin/time -f %M`).
 * Targets: cold ≤ ccusage's wall time; warm ≤ 10% of cold; one added ≤ 5% of cold (its cost); peak RSS ≤ 300 MB.
 */
import { spawn, spawnSync } from "node:child_process"
import { once } from "node:events"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as readline from "node:readline"

const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 2000)
const TARGET_SESSION_BYTES = Number(process.env.BENCH_SESSION_BYTES ?? 512 * 1024)
const PROJECT_FOLDERS = 20
const RUNS = Number(process.env.BENCH_RUNS ?? 5)
const REPO = path.resolve(import.meta.dirname, "..")
const BIN = path.join(REPO, "bin", "codex-replay.js")
const CONTROLLER_LISTING = path.join(REPO, "bench", "support", "controllerListing.ts")

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

/**
 * Rewrites every uuid so each copy is a distinct stretch of conversation (the session id maps to the new
 * stem), and every message and request id so that no two sessions share one (a tool that de-duplicates
 * across files, as ccusage does, would otherwise collapse the history).
 */
const rewrite = (text: string, templateStem: string, newStem: string, session: number, copy: number) =>
  text
    .replace(UUID, (match) =>
      match === templateStem ? newStem : `${match.slice(0, 19)}${hex(session, 4)}-${hex(copy, 4)}${match.slice(28)}`
    )
    .replace(/"msg_/g, `"msg_s${session}c${copy}_`)
    .replace(/"req_/g, `"req_s${session}c${copy}_`)

const generate = (root: string, from = 0, count = SESSIONS) => {
  const templates = loadTemplates()
  let bytes = 0
  for (let index = from; index < from + count; index++) {
    const template = templates[index % templates.length]!
    const folder = path.join(root, "projects", `-bench-project-${hex(index % PROJECT_FOLDERS, 2)}`)
    fs.mkdirSync(folder, { recursive: true })
    const stem = `${hex(index, 8)}-0000-4000-8000-${hex(index, 12)}`
    const copies = Math.max(1, Math.round(TARGET_SESSION_BYTES / template.main.length))
    const file = fs.openSync(path.join(folder, `${stem}.jsonl`), "w")
    for (let copy = 0; copy < copies; copy++) {
      const text = rewrite(template.main, template.stem, stem, index, copy)
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
      const text = rewrite(agent.text, template.stem, stem, index, 0)
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

/** The floor, run in its own process: read every line of every file and JSON.parse it, nothing else. */
const FLOOR_SCRIPT = `
const fs = require("node:fs")
let lines = 0
for (const file of process.argv.slice(1)) {
  const fd = fs.openSync(file, "r")
  const buffer = Buffer.allocUnsafe(1024 * 1024)
  let carry = ""
  for (;;) {
    const read = fs.readSync(fd, buffer, 0, buffer.length, null)
    if (read === 0) break
    const parts = (carry + buffer.toString("utf8", 0, read)).split("\\n")
    carry = parts.pop()
    for (const part of parts) { if (part !== "") { try { JSON.parse(part); lines++ } catch {} } }
  }
  fs.closeSync(fd)
}
console.log(lines)
`

/** The warm floor, run in its own process: argv = projects folder, index file. */
const WARM_FLOOR_SCRIPT = `
const fs = require("node:fs"), path = require("node:path")
const [root, indexFile] = process.argv.slice(1)
const stamps = []
const stamp = (file) => { const stat = fs.statSync(file, { throwIfNoEntry: false }); if (stat) stamps.push(stat.size + ":" + stat.mtimeMs) }
const walk = (folder, depth) => {
  for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
    const file = path.join(folder, entry.name)
    if (entry.isDirectory() && depth < 3) walk(file, depth + 1)
    else if (entry.name.endsWith(".jsonl")) stamp(file)
  }
}
walk(root, 0)
const index = JSON.parse(fs.readFileSync(indexFile, "utf8"))
const listed = new Map()
for (const [key, entry] of Object.entries(index.sessions)) if (entry.summary) listed.set(key, { endedAt: entry.summary.ended_at || "", summary: entry.summary })
const threads = [...listed.values()].sort((a, b) => (b.endedAt < a.endedAt ? -1 : b.endedAt > a.endedAt ? 1 : 0))
const page = threads.slice(0, 100).map((thread) => thread.summary)
console.log(JSON.stringify({ threads: page, total: threads.length, files: stamps.length }, null, 2))
`

interface Measured {
  readonly wallMs: number
  readonly peakKb: number
  readonly stdout: string
}

/** Runs a command to its end under /usr/bin/time: wall time and peak RSS of the whole process. */
const measure = (command: string, args: ReadonlyArray<string>, env: NodeJS.ProcessEnv): Measured => {
  const start = performance.now()
  const result = spawnSync("/usr/bin/time", ["-f", "%M", command, ...args], {
    env,
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024
  })
  const wallMs = performance.now() - start
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} failed: ${result.stderr.slice(-2000)}`)
  const peakKb = Number(result.stderr.trim().split("\n").at(-1))
  return { wallMs, peakKb, stdout: result.stdout }
}

interface ControllerListing {
  readonly ms: number
  readonly imported_total: number
}

/**
 * A running controller lists the threads as it starts (from the index), again on unchanged history, and again
 * after `addSession`: the times inside its process, where no process start is paid.
 */
const listInController = async (env: NodeJS.ProcessEnv, addSession: () => void) => {
  const child = spawn(process.execPath, ["--import", "tsx", CONTROLLER_LISTING], { env, cwd: REPO, stdio: ["pipe", "pipe", "inherit"] })
  const answers = readline.createInterface({ input: child.stdout })[Symbol.asyncIterator]()
  const next = async (): Promise<ControllerListing> => {
    const answer = await answers.next()
    if (answer.done === true) throw new Error("the controller listing stopped")
    return JSON.parse(answer.value) as ControllerListing
  }
  const started = await next()
  child.stdin.write("list\n")
  const unchanged = await next()
  addSession()
  child.stdin.write("list\n")
  const added = await next()
  child.stdin.end()
  await once(child, "exit")
  return { started, unchanged, added }
}

const median = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

const mb = (kb: number) => `${(kb / 1024).toFixed(0)} MB`
const ms = (millis: number) => `${millis.toFixed(0)} ms`
const pct = (part: number, whole: number) => `${((part / whole) * 100).toFixed(1)}%`

/** A runnable ccusage (its npm package is a thin launcher of a native binary published per platform). */
const findCcusage = (): string | undefined => {
  for (const candidate of [path.join(REPO, "node_modules", ".bin", "ccusage"), "ccusage"]) {
    const probe = spawnSync(candidate, ["--version"], { encoding: "utf8", timeout: 10_000 })
    if (probe.status === 0) return candidate
  }
  return undefined
}

const main = async () => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "bench-claude-home-"))
  const caches = fs.mkdtempSync(path.join(os.tmpdir(), "bench-cache-"))
  try {
    const startGenerate = performance.now()
    const bytes = generate(home)
    const files = allTranscripts(home)
    console.log(`generated ${SESSIONS} sessions, ${files.length} files, ${mb(bytes / 1024)} in ${ms(performance.now() - startGenerate)}`)
    const ccusage = findCcusage()
    const baseEnv = { ...process.env, CLAUDE_CONFIG_DIR: home }
    const listing = ["threads", "--json", "--limit", "100"]
    const results = {
      floor: [] as Array<Measured>,
      cold: [] as Array<Measured>,
      ccusage: [] as Array<Measured>,
      warm: [] as Array<Measured>,
      added: [] as Array<Measured>,
      warmFloor: [] as Array<Measured>,
      node: [] as Array<Measured>,
      empty: [] as Array<Measured>
    }
    const addedCost: Array<number> = []
    const controller = { unchanged: [] as Array<number>, added: [] as Array<number> }
    const emptyHome = path.join(caches, "empty-claude-home")
    fs.mkdirSync(path.join(emptyHome, "projects"), { recursive: true })
    const emptyEnv = { ...process.env, CLAUDE_CONFIG_DIR: emptyHome, CODEX_REPLAY_RUN_ROOT: path.join(caches, "empty", "runs") }
    measure(process.execPath, [BIN, ...listing], emptyEnv)
    let added = SESSIONS
    for (let run = 0; run < RUNS; run++) {
      const env = { ...baseEnv, CODEX_REPLAY_RUN_ROOT: path.join(caches, `run-${run}`, "runs") }
      results.floor.push(measure(process.execPath, ["-e", FLOOR_SCRIPT, ...files], baseEnv))
      const cold = measure(process.execPath, [BIN, ...listing], env)
      results.cold.push(cold)
      if (ccusage !== undefined) results.ccusage.push(measure(ccusage, ["session", "--json", "--offline"], baseEnv))
      const warm = measure(process.execPath, [BIN, ...listing], env)
      results.warm.push(warm)
      if (JSON.stringify(JSON.parse(warm.stdout).threads) !== JSON.stringify(JSON.parse(cold.stdout).threads)) {
        throw new Error("the warm listing differs from the cold one")
      }
      generate(home, added++, 1)
      const one = measure(process.execPath, [BIN, ...listing], env)
      results.added.push(one)
      if (JSON.parse(one.stdout).imported_total !== JSON.parse(cold.stdout).imported_total + 1) {
        throw new Error("the added session is not listed")
      }
      addedCost.push(one.wallMs - warm.wallMs)
      const indexFile = path.join(caches, `run-${run}`, "index", "threads-v3.json")
      const floor = measure(process.execPath, ["-e", WARM_FLOOR_SCRIPT, path.join(home, "projects"), indexFile], baseEnv)
      results.warmFloor.push(floor)
      if (JSON.parse(floor.stdout).files !== allTranscripts(home).length) throw new Error("the warm floor missed transcripts")
      results.node.push(measure(process.execPath, ["-e", "0"], baseEnv))
      const empty = measure(process.execPath, [BIN, ...listing], emptyEnv)
      if (JSON.parse(empty.stdout).imported_total !== 0) throw new Error("the empty history listed imported threads")
      results.empty.push(empty)
      const listed = await listInController(env, () => generate(home, added++, 1))
      if (listed.added.imported_total !== listed.unchanged.imported_total + 1) throw new Error("the controller missed the added session")
      controller.unchanged.push(listed.unchanged.ms)
      controller.added.push(listed.added.ms)
    }
    const wall = (key: keyof typeof results) => median(results[key].map((result) => result.wallMs))
    const peak = (key: keyof typeof results) => Math.max(...results[key].map((result) => result.peakKb))
    const cold = wall("cold")
    /** Each run's `part` over its `whole`: how much of the medians' ratio is the machine's drift between runs. */
    const ratios = (part: keyof typeof results, whole: keyof typeof results) =>
      results[part].map((result, run) => result.wallMs / results[whole][run]!.wallMs)
    console.log(`medians of ${RUNS} paired runs (whole processes):`)
    console.log(`floor (one process reads + JSON.parses every line): ${ms(wall("floor"))}, peak RSS ${mb(peak("floor"))}`)
    console.log(`cold  codex-replay threads --json --limit 100:       ${ms(cold)}, peak RSS ${mb(peak("cold"))}; cold / floor ${(cold / wall("floor")).toFixed(2)}`)
    if (ccusage === undefined) {
      console.log("ccusage: skipped — no runnable ccusage (`npm install --no-save ccusage@20.0.24` installs it for this machine; its native binary is published per platform)")
    } else {
      console.log(`ccusage session --json --offline:                  ${ms(wall("ccusage"))}, peak RSS ${mb(peak("ccusage"))}; cold / ccusage ${(cold / wall("ccusage")).toFixed(2)} (target ≤ 1)`)
      console.log(`  cold / ccusage in each run: ${ratios("cold", "ccusage").map((ratio) => ratio.toFixed(2)).join(", ")}`)
    }
    console.log(`warm  second process, from the index:              ${ms(wall("warm"))} = ${pct(wall("warm"), cold)} of cold (target ≤ 10%), peak RSS ${mb(peak("warm"))}`)
    console.log(`  warm / cold in each run: ${ratios("warm", "cold").map((ratio) => `${(ratio * 100).toFixed(1)}%`).join(", ")}`)
    console.log(`one session added:                                 ${ms(wall("added"))} = ${pct(wall("added"), cold)} of cold, peak RSS ${mb(peak("added"))}`)
    console.log(`  what the added session costs (one added − warm, paired): ${ms(median(addedCost))} = ${pct(median(addedCost), cold)} of cold (target ≤ 5%)`)
    console.log(`  a running controller re-lists (in its process): unchanged ${ms(median(controller.unchanged))}, one session added ${ms(median(controller.added))} = ${pct(median(controller.added), cold)} of cold`)
    console.log(`warm floor (bare walk + stat + index parse, no answer checks): ${ms(wall("warmFloor"))} = ${pct(wall("warmFloor"), cold)} of cold; Node's own start is part of it`)
    console.log(`Node alone (node -e 0):                            ${ms(wall("node"))} = ${pct(wall("node"), cold)} of cold`)
    console.log(`the same command on an empty history:              ${ms(wall("empty"))} = ${pct(wall("empty"), cold)} of cold; what every listing pays before the history`)
    console.log(`peak RSS of any listing: ${mb(Math.max(peak("cold"), peak("warm"), peak("added")))} (target ≤ 300 MB)`)
  } finally {
    fs.rmSync(home, { recursive: true, force: true })
    fs.rmSync(caches, { recursive: true, force: true })
  }
}

await main()
