import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as TestServices from "effect/TestServices"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { resolveSettings } from "../../src/domain/settings.js"
import { CheckRunner, type StateRequest } from "../../src/services/checks/CheckRunner.js"
import { Workspace } from "../../src/services/Workspace.js"
import { gitAt } from "../runs/support.js"
import { FAKE_CODEX } from "../support/daemon.js"
import { checkRunnerLayer } from "./support.js"

/**
 * The real runner on repositories made here: copies made from a commit, a patch applied, commands run
 * under the real `codex sandbox` (through the fake CLI, which hands `sandbox` to the real binary).
 */

const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "codex-replay-checks-")))
const home = path.join(root, "home")
fs.mkdirSync(home)
const settings = Effect.runSync(resolveSettings(
  { CODEX_REPLAY_RUN_ROOT: path.join(root, "cache", "runs"), CODEX_CLI_PATH: FAKE_CODEX },
  home,
  () => "0".repeat(32)
))

const layer = checkRunnerLayer(settings)

const git = (cwd: string, ...args: Array<string>) => gitAt(cwd, undefined, ...args)

/** A repository whose test fails at the start and passes once `add.js` is fixed. */
const nodeProject = () => {
  const directory = fs.mkdtempSync(path.join(root, "node-"))
  git(directory, "init", "--quiet", "--initial-branch", "main")
  fs.writeFileSync(path.join(directory, "add.js"), "exports.add = (a, b) => a - b\n")
  fs.writeFileSync(
    path.join(directory, "add.test.js"),
    "const test = require('node:test')\nconst assert = require('node:assert')\nconst { add } = require('./add.js')\ntest('adds', () => assert.strictEqual(add(2, 3), 5))\n"
  )
  git(directory, "add", ".")
  git(directory, "commit", "--quiet", "-m", "start")
  const start = git(directory, "rev-parse", "HEAD")
  fs.writeFileSync(path.join(directory, "add.js"), "exports.add = (a, b) => a + b\n")
  git(directory, "commit", "--quiet", "-am", "fix")
  return { directory, start, end: git(directory, "rev-parse", "HEAD") }
}

const request = (project: { directory: string; start: string }, overrides: Partial<StateRequest>): StateRequest => ({
  name: "test",
  plan: { kind: "git", repository: project.directory, commit: project.start, carriedForwardFiles: [] },
  changes: { kind: "start" },
  checks: [{ command: "node --test", directory: "." }],
  setup: [],
  timeLimitSeconds: 60,
  runTag: `checks-test-${Math.random().toString(16).slice(2)}`,
  hiddenRoots: [project.directory],
  ...overrides
})

/** A duration no other process on the machine sleeps for. */
const HANG = `300.${process.pid}`

const hangersGoneWithin = async (millis: number) => {
  for (const deadline = Date.now() + millis; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 100))) {
    if (spawnSync("pgrep", ["-fx", `sleep ${HANG}`]).status === 1) return true
  }
  return false
}

const liveTagged = (tag: string) =>
  spawnSync("sh", ["-c", `grep -l "CODEX_REPLAY_RUN_TAG=${tag}" /proc/[0-9]*/environ 2>/dev/null | wc -l`], { encoding: "utf8" }).stdout.trim()

/** The commands run on the real clock: their time limits are real time. */
const live = <A, E, R>(body: () => Generator<any, A, any>) =>
  TestServices.provideLive(Effect.gen(body) as Effect.Effect<A, E, R>)

describe("CheckRunner", () => {
  it.layer(layer, { timeout: 120_000 })((it) => {
    it.effect("a Node check fails on the start and passes on the commits that fixed it", () =>
      live(function*() {
        const runner = yield* CheckRunner
        const project = nodeProject()
        const start = yield* runner.checkState(request(project, {}))
        expect(start.checks[0]).toMatchObject({ status: "failed", exit_code: 1 })
        expect(start.checks[0]!.excerpt).toContain("adds")
        const end = yield* runner.checkState(request(project, {
          changes: { kind: "commits", repository: project.directory, from: project.start, to: project.end }
        }))
        expect(end.checks[0]).toMatchObject({ status: "passed", exit_code: 0, reason: null })
        // The copy's path never reaches the excerpt, and the copy is gone.
        expect(end.checks[0]!.excerpt).not.toContain(root)
        expect(fs.readdirSync(path.join(settings.cacheRoot, "checks"))).toEqual([])
      }))

    it.effect("a check that hangs is stopped at its time limit and leaves nothing running", () =>
      live(function*() {
        const runner = yield* CheckRunner
        const project = nodeProject()
        const tag = `checks-hang-${Date.now()}`
        const state = yield* runner.checkState(request(project, {
          checks: [{ command: `(sleep ${HANG} &) ; sleep ${HANG}`, directory: "." }],
          timeLimitSeconds: 2,
          runTag: tag
        }))
        expect(state.checks[0]).toMatchObject({ status: "timed_out", exit_code: null })
        expect(state.checks[0]!.reason).toContain("2 seconds")
        expect(liveTagged(tag)).toBe("0")
        // The namespace's last processes may take a moment to be reaped: looked for during at most 5 s.
        expect(yield* Effect.promise(() => hangersGoneWithin(5000))).toBe(true)
      }))

    it.effect("a limit of one second holds the commands, not the copy or the sandbox's start, which a busy machine slows", () =>
      live(function*() {
        const project = nodeProject()
        // Every copy takes 1.5 s here, past the commands' limit of 1 s.
        const slowCopies = Layer.effect(
          Workspace,
          Effect.map(Workspace, (real) => Workspace.make({ ...real, materialise: (...args) => Effect.delay(real.materialise(...args), "1500 millis") }))
        )
        const state = yield* Effect.flatMap(CheckRunner, (runner) =>
          runner.checkState(request(project, { checks: [{ command: `sleep ${HANG}`, directory: "." }], timeLimitSeconds: 1 }))
        ).pipe(
          // Fresh: it.layer's memo map would otherwise hand back the runner already built over the real copies.
          Effect.provide(Layer.fresh(CheckRunner.DefaultWithoutDependencies).pipe(Layer.provide(slowCopies), Layer.provide(layer)))
        )
        // The command is held to its limit; the copy and the sandbox's probe, which took longer, were not.
        expect(state.checks[0]).toMatchObject({ status: "timed_out", reason: "It did not finish within 1 second; it was stopped." })
      }))

    it.effect("a check can neither reach the network nor write outside its copy; set-up failing makes the checks could-not-run", () =>
      live(function*() {
        const runner = yield* CheckRunner
        const project = nodeProject()
        const outside = path.join(root, `outside-${Date.now()}`)
        const state = yield* runner.checkState(request(project, {
          checks: [
            { command: `node -e "require('net').connect(80, '1.1.1.1').on('connect', () => process.exit(0)).on('error', (e) => { console.error(e.code); process.exit(3) })"`, directory: "." },
            { command: `echo leaked > ${outside}; cat ${outside}`, directory: "." },
            { command: "cat ../../../../../../../../etc/hostname; ls ~ | head -3; echo $OPENAI_API_KEY $CODEX_REPLAY_RUN_TAG end", directory: "." }
          ]
        }))
        expect(state.checks[0]).toMatchObject({ status: "failed", exit_code: 3 })
        expect(fs.existsSync(outside)).toBe(false)
        expect(state.checks[2]!.excerpt).toMatch(/\s*end\s*$/)
        const failing = yield* runner.checkState(request(project, {
          setup: [{ command: "exit 4", directory: "." }, { command: "true", directory: "." }]
        }))
        expect(failing.setup.map((outcome) => outcome.status)).toEqual(["failed", "could_not_run"])
        expect(failing.checks[0]).toMatchObject({ status: "could_not_run" })
        expect(failing.checks[0]!.reason).toContain("`exit 4` failed (exit code 4)")
      }))

    it.effect("a missing command or directory could not run; a missing toolchain is said, not skipped", () =>
      live(function*() {
        const runner = yield* CheckRunner
        const project = nodeProject()
        const state = yield* runner.checkState(request(project, {
          checks: [
            { command: "no-such-tool --check", directory: "." },
            { command: "true", directory: "packages/missing" }
          ]
        }))
        expect(state.checks.map((outcome) => outcome.status)).toEqual(["could_not_run", "could_not_run"])
        expect(state.checks[0]!.reason).toContain("not found")
        expect(state.checks[1]!.reason).toContain("packages/missing")
      }))

    it.effect("Python's unittest: a patch rebuilt from a transcript fixes the start's failing test", () =>
      live(function*() {
        const runner = yield* CheckRunner
        const directory = fs.mkdtempSync(path.join(root, "python-"))
        git(directory, "init", "--quiet", "--initial-branch", "main")
        fs.writeFileSync(path.join(directory, "calc.py"), "def double(x):\n    return x + 1\n")
        fs.writeFileSync(
          path.join(directory, "test_calc.py"),
          "import unittest\nfrom calc import double\n\nclass T(unittest.TestCase):\n    def test_double(self):\n        self.assertEqual(double(4), 8)\n"
        )
        git(directory, "add", ".")
        git(directory, "commit", "--quiet", "-m", "start")
        const project = { directory, start: git(directory, "rev-parse", "HEAD") }
        const patch = [
          "diff --git a/calc.py b/calc.py",
          "--- a/calc.py",
          "+++ b/calc.py",
          "@@ -1,2 +1,2 @@",
          " def double(x):",
          "-    return x + 1",
          "+    return x * 2",
          ""
        ].join("\n")
        const checks = [{ command: "python3 -m unittest", directory: "." }]
        const start = yield* runner.checkState(request(project, { checks }))
        const fixed = yield* runner.checkState(request(project, { checks, changes: { kind: "patch", patch } }))
        // A machine without Python says so: the check could not run (exit code 127), never skipped.
        const python = spawnSync("python3", ["--version"]).status === 0
        if (python) {
          expect(start.checks[0]).toMatchObject({ status: "failed", exit_code: 1 })
          expect(start.checks[0]!.excerpt).toContain("AssertionError")
          expect(fixed.checks[0]).toMatchObject({ status: "passed" })
        } else {
          expect(fixed.checks[0]).toMatchObject({ status: "could_not_run" })
        }
        const broken = yield* runner.checkState(request(project, { checks, changes: { kind: "patch", patch: patch.replace(" def double(x):", " def triple(x):") } }))
        expect(broken.checks[0]!.status).toBe("could_not_run")
        expect(broken.checks[0]!.reason).toContain("could not be applied")
      }))

    it.effect("a run's three states: Codex's workspace as collected, the start shared by the runs of one start", () =>
      live(function*() {
        const runner = yield* CheckRunner
        const workspaces = yield* Workspace
        const project = nodeProject()
        const plan = { kind: "git" as const, repository: project.directory, commit: project.start, carriedForwardFiles: [] }
        const codexRun = (content: string) =>
          Effect.gen(function*() {
            const runDirectory = fs.mkdtempSync(path.join(root, "run-"))
            const workspace = yield* workspaces.materialise(runDirectory, plan)
            fs.writeFileSync(path.join(workspace.directory, "add.js"), content)
            // Ignored and untracked files are the agent's too, as collecting sees them.
            fs.writeFileSync(path.join(workspace.directory, "notes.txt"), "scratch\n")
            return workspace
          })
        const wrong = yield* codexRun("exports.add = (a, b) => a * b\n")
        const right = yield* codexRun("exports.add = (a, b) => b + a\n")
        const hostile = `touch ${os.homedir()}/pwned-checks; echo "$(id -u)" > ../../escaped; node --test`
        const commands = { checks: [{ command: "node --test", directory: "." }, { command: hostile, directory: "." }], setup: [], time_limit_seconds: 60 }
        const input = {
          plan,
          claude: { kind: "commits" as const, repository: project.directory, from: project.start, to: project.end },
          claudePatch: "",
          changedFiles: { claude: ["add.js"], codex: ["add.js", "notes.txt", "add.test.js"] },
          commands,
          runTag: "checks-run-test",
          hiddenRoots: [project.directory]
        }
        const [first, second] = yield* Effect.all([
          // Each run sweeps its own tag when a command ends; the shared states carry one of their own.
          runner.checkRun({ ...input, codex: wrong, runTag: "checks-run-wrong" }),
          runner.checkRun({ ...input, codex: right, runTag: "checks-run-right" })
        ], { concurrency: "unbounded" })
        expect(first).not.toBeNull()
        expect(second).not.toBeNull()
        // One check of the start and of Claude's result, shared by both runs.
        expect(first!.start).toBe(second!.start)
        // Counted afresh for each run, but from the one check (its time is the same to the millisecond).
        expect(first!.claude).toEqual(second!.claude)
        expect(first!.rows[0]).toMatchObject({
          start: "failed",
          claude: { status: "passed", change: "fixed" },
          codex: { status: "failed", change: "still_failing" }
        })
        expect(second!.rows[0]!.codex).toMatchObject({ status: "passed", change: "fixed" })
        expect(first!.edge).toBe("claude")
        expect(second!.edge).toBe("same")
        expect(first!.sentence).toContain("Claude fixed `node --test`, which Codex's result failed")
        // A result that changed what a check runs is named beside its outcome.
        expect(first!.definitions_changed).toEqual({ claude: [], codex: ["add.test.js"], complete: true })
        expect(first!.sentence).toContain("Codex's result changed what the checks run (add.test.js): its patch shows whether it changed a check to pass it")
        // The hostile command ran inside the copy only: nothing in the home, nothing beside the copy.
        expect(fs.existsSync(path.join(os.homedir(), "pwned-checks"))).toBe(false)
        expect(fs.readdirSync(path.join(settings.cacheRoot, "checks"))).toEqual([])
      }))

    it.effect("what a command leaves running ends with it; a result too large to copy is said, and counts as its own doing", () =>
      live(function*() {
        const runner = yield* CheckRunner
        const project = nodeProject()
        const started = Date.now()
        const state = yield* runner.checkState(request(project, {
          checks: [{ command: `sleep ${HANG} & echo serving; exit 0`, directory: "." }],
          timeLimitSeconds: 60
        }))
        expect(state.checks[0]).toMatchObject({ status: "passed", excerpt: "serving\n" })
        expect(Date.now() - started).toBeLessThan(30_000)
        expect(yield* Effect.promise(() => hangersGoneWithin(5000))).toBe(true)
        // 300 MB of zeros in one commit: weighed from git's object sizes, never copied.
        const git2 = (...args: Array<string>) => git(project.directory, ...args)
        fs.writeFileSync(path.join(project.directory, "huge.bin"), "")
        fs.truncateSync(path.join(project.directory, "huge.bin"), 300 * 1024 * 1024)
        git2("add", "huge.bin")
        git2("commit", "--quiet", "-m", "huge")
        const huge = git2("rev-parse", "HEAD")
        const large = yield* runner.checkState(request(project, {
          changes: { kind: "commits", repository: project.directory, from: project.start, to: huge }
        }))
        expect(large.checks[0]).toMatchObject({ status: "could_not_run", cause: "state" })
        expect(large.checks[0]!.reason).toBe("This result changes 300 MB, past the 256 MB a check copy takes.")
      }))
  })
})
