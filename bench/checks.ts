/**
 * What the checks add to a replay's wall time beyond the checks' own run time. A generated Node project
 * (FILES source files and a `node --test` suite) is checked on its three states through CheckRunner.checkRun
 * — fresh copies made from the commit, each result's patch applied, the command under `codex sandbox` in a
 * network namespace — against the floor measured in the same run: the same command run directly with
 * bash in three plain copies at once (no copy made, no sandbox). Prints medians of RUNS rounds.
 */
import { Effect } from "effect"
import { execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { resolveSettings } from "../src/domain/settings.js"
import { CheckRunner } from "../src/services/checks/CheckRunner.js"
import { Workspace } from "../src/services/Workspace.js"
import { checkRunnerLayer } from "../test/checks/support.js"

const RUNS = Number(process.env.BENCH_RUNS ?? 7)
const FILES = Number(process.env.BENCH_FILES ?? 2000)
const fakeCodex = fileURLToPath(new URL("../test/fake-codex/codex", import.meta.url))
const scratch = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "bench-checks-")))

const settings = Effect.runSync(resolveSettings(
  { CODEX_REPLAY_RUN_ROOT: path.join(scratch, "cache", "runs"), CODEX_CLI_PATH: fakeCodex },
  os.homedir(),
  () => "0".repeat(32)
))

const layer = checkRunnerLayer(settings, 2000)

const git = (cwd: string, ...args: Array<string>) =>
  execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: { ...process.env, GIT_AUTHOR_NAME: "B", GIT_AUTHOR_EMAIL: "b@example.com", GIT_COMMITTER_NAME: "B", GIT_COMMITTER_EMAIL: "b@example.com" }
  }).trim()

/** A project of FILES modules and ten test files, its start and Claude's ending commit. */
const project = () => {
  const directory = path.join(scratch, "project")
  fs.mkdirSync(path.join(directory, "src"), { recursive: true })
  git(directory, "init", "--quiet", "--initial-branch", "main")
  for (let index = 0; index < FILES; index++) {
    fs.writeFileSync(path.join(directory, "src", `module-${index}.js`), `exports.value = ${index}\n// ${"x".repeat(900)}\n`)
  }
  for (let index = 0; index < 10; index++) {
    fs.writeFileSync(
      path.join(directory, `t${index}.test.js`),
      `const test = require('node:test')\nconst assert = require('node:assert')\ntest('module ${index}', () => assert.strictEqual(require('./src/module-${index}.js').value, ${index}))\n`
    )
  }
  git(directory, "add", ".")
  git(directory, "commit", "--quiet", "-m", "start")
  const start = git(directory, "rev-parse", "HEAD")
  fs.writeFileSync(path.join(directory, "src", "module-0.js"), "exports.value = 0\n")
  git(directory, "commit", "--quiet", "-am", "Claude's change")
  return { directory, start, end: git(directory, "rev-parse", "HEAD") }
}

const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 0 ? (sorted[middle - 1]! + sorted[middle]!) / 2 : sorted[middle]!
}

/** The floor: the command itself in three plain copies at once, as the three states run. */
const bare = (copies: ReadonlyArray<string>, command: string) =>
  Effect.promise(async () => {
    const started = performance.now()
    await Promise.all(copies.map((copy) =>
      new Promise<void>((resolve) => spawn("/bin/bash", ["-c", command], { cwd: copy, stdio: "ignore" }).once("exit", () => resolve()))))
    return performance.now() - started
  })

const program = Effect.gen(function*() {
  const runner = yield* CheckRunner
  const workspaces = yield* Workspace
  const repository = project()
  const plan = { kind: "git" as const, repository: repository.directory, commit: repository.start, carriedForwardFiles: [] }
  const copies = [0, 1, 2].map((index) => {
    const copy = path.join(scratch, `bare-${index}`)
    fs.cpSync(repository.directory, copy, { recursive: true })
    return copy
  })
  const round = async (index: number) => {
    // A command of its own per round, so the shared start and Claude states are checked afresh each time.
    const command = `node --test && true ${index}`
    const runDirectory = path.join(scratch, `run-${index}`)
    fs.mkdirSync(runDirectory)
    return { command, runDirectory }
  }
  const checked: Array<number> = []
  const own: Array<number> = []
  const floor: Array<number> = []
  for (let index = -1; index < RUNS; index++) {
    const { command, runDirectory } = yield* Effect.promise(() => round(index))
    const codex = yield* workspaces.materialise(runDirectory, plan)
    fs.writeFileSync(path.join(codex.directory, "src", "module-1.js"), "exports.value = 1\n")
    const started = performance.now()
    const comparison = yield* runner.checkRun({
      plan,
      claude: { kind: "commits", repository: repository.directory, from: repository.start, to: repository.end },
      claudePatch: "",
      codex,
      changedFiles: { claude: ["src/module-0.js"], codex: ["src/module-1.js"] },
      commands: { checks: [{ command, directory: "." }], setup: [], time_limit_seconds: 600 },
      runTag: `bench-checks-${index}`,
      hiddenRoots: [repository.directory]
    })
    const wall = performance.now() - started
    const bareWall = yield* bare(copies, command)
    if (comparison === null || comparison.rows[0]!.codex.status !== "passed") throw new Error(`the check did not pass: ${JSON.stringify(comparison?.codex)}`)
    if (index < 0) continue
    checked.push(wall)
    floor.push(bareWall)
    own.push(Math.max(...[comparison.start, comparison.claude, comparison.codex].map((state) => state.checks[0]!.elapsed_ms)))
  }
  const ms = (value: number) => Math.round(value)
  console.log(JSON.stringify({
    benchmark: "checks on a replay's three states (start, Claude, Codex) against the same command run bare",
    runs: RUNS,
    files: FILES + 10,
    checks_wall_median_ms: ms(median(checked)),
    bare_wall_median_ms: ms(median(floor)),
    added_beyond_own_run_median_ms: ms(median(checked) - median(floor)),
    ratio_to_bare: Math.round((median(checked) / median(floor)) * 100) / 100,
    slowest_state_command_median_ms: ms(median(own))
  }))
}).pipe(Effect.provide(layer), Effect.ensuring(Effect.sync(() => fs.rmSync(scratch, { recursive: true, force: true }))))

await Effect.runPromise(program)
