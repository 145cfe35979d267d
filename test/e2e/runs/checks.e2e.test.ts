/**
 * The approved checks through the real daemon over HTTP: a repository made here whose test fails at the
 * start and passes at Claude's ending commit, the fake Codex CLI writing a wrong fix, and every command
 * run under the real `codex sandbox`. The report, the run's state and log, and the reviewer's blind
 * candidate files carry the outcomes; a cancel during the checks leaves no process and no copy.
 */
import { spawnSync } from "node:child_process"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { writeChunkThread } from "../../runs/chunkThread.js"
import { approveAndStart, awaitTerminal, type Daemon, eventually, gitAt, gitConfig, killAllDaemons, scratch, startDaemon } from "../../runs/support.js"

afterAll(async () => expect(await killAllDaemons()).toBe(0))

const WRONG_FIX = "exports.add = (a, b) => a * b\n"

/**
 * A repository whose `files` are the start and `fixed` Claude's ending commit, and an imported thread
 * that worked in it.
 */
const fixedRepository = (root: string, name: string, files: Record<string, string>, fixed: Record<string, string>) => {
  const directory = path.join(root, name)
  fs.mkdirSync(directory, { recursive: true })
  const git = (...args: Array<string>) => gitAt(directory, undefined, ...args)
  const write = (contents: Record<string, string>) => {
    for (const [file, text] of Object.entries(contents)) fs.writeFileSync(path.join(directory, file), text)
  }
  git("init", "--quiet", "--initial-branch", "main")
  write(files)
  git("add", ".")
  git("commit", "--quiet", "-m", "start")
  const baseline = git("rev-parse", "HEAD")
  write(fixed)
  git("commit", "--quiet", "-am", "Claude's fix")
  const threadId = randomUUID()
  writeChunkThread(path.join(root, "claude"), threadId, directory)
  return { directory, baseline, ending: git("rev-parse", "HEAD"), threadId, git }
}

/** A project whose `node --test` fails at the start and passes at Claude's ending commit. */
const nodeRepository = (root: string) =>
  fixedRepository(root, "project", {
    "add.js": "exports.add = (a, b) => a - b\n",
    "add.test.js":
      "const test = require('node:test')\nconst assert = require('node:assert')\nconst { add } = require('./add.js')\ntest('adds two numbers', () => assert.strictEqual(add(2, 3), 5))\n"
  }, { "add.js": "exports.add = (a, b) => a + b\n" })

const configOf = (repository: ReturnType<typeof fixedRepository>, checks: ReadonlyArray<string>) =>
  gitConfig(repository, { request: "Fix the code so that the tests pass.", checks: checks.map((command) => ({ command })) })

const stateCopies = (root: string) => {
  const directory = path.join(root, "checks")
  return fs.existsSync(directory) ? fs.readdirSync(directory) : []
}

describe("checks on every side of a replay", () => {
  let daemon: Daemon
  let repository: ReturnType<typeof nodeRepository>
  beforeAll(async () => {
    const root = scratch("codex-replay-checks-e2e-")
    repository = nodeRepository(root)
    daemon = await startDaemon({
      root,
      env: { FAKE_CODEX_WRITE_FILE: "add.js", FAKE_CODEX_WRITE_CONTENT: WRONG_FIX, CODEX_REPLAY_CHECK_TIME_LIMIT_SECONDS: "120" }
    })
  })
  afterAll(() => daemon.stop())

  it("runs the approved check on the start, Claude's result and Codex's, and shows the outcomes blind to the reviewer", async () => {
    const started = await approveAndStart(daemon, configOf(repository, ["node --test"]))
    const run = await awaitTerminal(daemon, started.run_id, 90_000)
    expect(run.status).toBe("completed")
    const report = JSON.parse(fs.readFileSync(run.report_json, "utf8"))
    expect(report.checks.rows).toEqual([{
      command: "node --test",
      directory: ".",
      start: "failed",
      claude: { status: "passed", exit_code: 0, reason: null, change: "fixed" },
      codex: { status: "failed", exit_code: 1, reason: null, change: "still_failing" }
    }])
    expect(report.checks.sentence).toBe("checks: Codex 0 of 1, Claude 1 of 1; Claude fixed `node --test`, which Codex's result failed.")
    expect(report.checks.codex.checks[0].excerpt).toContain("adds two numbers")
    expect(report.checks.time_limit_seconds).toBe(120)
    // The run's state and log say it; the state records exactly the approved commands.
    const state = (await daemon.call("get_run", { run_id: started.run_id })).run
    expect(state.checks).toEqual([{ command: "node --test", directory: "." }])
    const log = fs.readFileSync(path.join(daemon.runRoot, started.run_id, "run.log"), "utf8")
    expect(log).toContain(report.checks.sentence)
    // Each anonymous candidate carries its own outcome, with nothing that tells who is who.
    const candidates = ["candidate-a.json", "candidate-b.json"].map((name) =>
      JSON.parse(fs.readFileSync(path.join(daemon.runRoot, started.run_id, "reviews", name), "utf8")))
    const outcomes = candidates.map((candidate) => candidate.checks[0].outcome).sort()
    expect(outcomes).toEqual(["failed", "passed"])
    for (const candidate of candidates) {
      expect(candidate.checks[0]).toMatchObject({ command: "node --test", outcome_at_start: "failed" })
      expect(JSON.stringify(candidate.checks)).not.toMatch(/claude|codex|run-\d{8}|elapsed/i)
    }
    expect(stateCopies(daemon.root)).toEqual([])
  }, 120_000)

  it("a cancel during the checks stops them: no process, no copy left", async () => {
    const started = await approveAndStart(daemon, configOf(repository, ["sleep 541; node --test"]))
    await eventually(async () => ((await daemon.call("get_run", { run_id: started.run_id })).run.phase === "checking" ? true : undefined), 60_000, "the checking phase")
    await eventually(() => (countSleepers() >= 1 ? true : undefined), 30_000, "a running check")
    const cancelled = await daemon.call("cancel_run", { run_id: started.run_id })
    expect(cancelled.run.status).toBe("cancelled")
    await eventually(() => (countSleepers() === 0 ? true : undefined), 15_000, "no check left running")
    await eventually(() => (stateCopies(daemon.root).length === 0 ? true : undefined), 15_000, "no copy left")
  }, 120_000)
})

/** Processes running the hanging check (`sleep 541`), anywhere on the machine. */
const countSleepers = () =>
  fs.readdirSync("/proc").filter((entry) => /^\d+$/.test(entry)).filter((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim() === "sleep 541"
    } catch {
      return false
    }
  }).length

/** A Python project whose `unittest` suite fails at the start and passes at Claude's ending commit. */
const pythonRepository = (root: string) =>
  fixedRepository(root, "calc", {
    "calc.py": "def double(x):\n    return x + 1\n",
    "test_calc.py": "import unittest\nfrom calc import double\n\nclass Double(unittest.TestCase):\n    def test_double(self):\n        self.assertEqual(double(4), 8)\n"
  }, { "calc.py": "def double(x):\n    return x * 2\n" })

describe("checks of a Python project", () => {
  it("unittest fails at the start and passes on both results; a machine without Python says so", async () => {
    const root = scratch("codex-replay-checks-python-")
    const repository = pythonRepository(root)
    const daemon = await startDaemon({
      root,
      env: { FAKE_CODEX_WRITE_FILE: "calc.py", FAKE_CODEX_WRITE_CONTENT: "def double(x):\n    return 2 * x\n" }
    })
    try {
      const started = await approveAndStart(daemon, configOf(repository, ["python3 -m unittest"]))
      const run = await awaitTerminal(daemon, started.run_id, 90_000)
      expect(run.status).toBe("completed")
      const { checks } = JSON.parse(fs.readFileSync(run.report_json, "utf8"))
      if (spawnSync("python3", ["--version"]).status === 0) {
        expect(checks.rows[0]).toMatchObject({ start: "failed", claude: { status: "passed", change: "fixed" }, codex: { status: "passed", change: "fixed" } })
        expect(checks.start.checks[0].excerpt).toContain("AssertionError: 5 != 8")
        expect(checks.edge).toBe("same")
        expect(checks.sentence).toBe("checks: Codex 1 of 1, Claude 1 of 1.")
      } else {
        // Nothing is skipped silently: without Python the check could not run, on every side.
        expect(checks.rows[0]).toMatchObject({ start: "could_not_run", claude: { status: "could_not_run" }, codex: { status: "could_not_run" } })
      }
    } finally {
      await daemon.stop()
    }
  }, 120_000)
})

describe("checks and a daemon killed with -9", () => {
  it("the checks die with the daemon, and the next daemon removes their copies", async () => {
    const root = scratch("codex-replay-checks-kill-")
    const repository = nodeRepository(root)
    const first = await startDaemon({ root, env: { CODEX_REPLAY_CHECK_TIME_LIMIT_SECONDS: "600" } })
    const started = await approveAndStart(first, configOf(repository, ["sleep 541; node --test"]))
    await eventually(() => (countSleepers() >= 3 ? true : undefined), 60_000, "the check running on all three states")
    expect(stateCopies(root).length).toBe(3)
    await first.kill9()
    await eventually(() => (countSleepers() === 0 ? true : undefined), 10_000, "no check outliving the daemon")
    const second = await startDaemon({ root })
    try {
      await eventually(() => (stateCopies(root).length === 0 ? true : undefined), 10_000, "the dead daemon's copies removed")
      const run = (await second.call("get_run", { run_id: started.run_id })).run
      expect(run.status).toBe("failed")
    } finally {
      await second.stop()
    }
  }, 120_000)
})
