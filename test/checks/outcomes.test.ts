import { describe, expect, it } from "@effect/vitest"
import {
  changeOf,
  checkDefinitions,
  compareChecks,
  EXCERPT_HEAD,
  EXCERPT_TAIL,
  excerptCollector,
  reviewerChecks,
  type CommandOutcome,
  type StateChecks
} from "../../src/domain/checks/outcomes.js"

const outcome = (command: string, status: CommandOutcome["status"], excerpt = ""): CommandOutcome => ({
  command,
  directory: ".",
  status,
  exit_code: status === "passed" ? 0 : status === "failed" ? 1 : null,
  reason: status === "could_not_run" ? "The command was not found in this state (exit code 127)." : null,
  excerpt,
  elapsed_ms: 5
})

const state = (...checks: Array<CommandOutcome>): StateChecks => ({ setup: [], checks, elapsed_ms: 10 })

const commands = ["npm test", "npx tsc", "npm run lint", "make docs"].map((command) => ({ command, directory: "." }))

describe("check outcomes", () => {
  it("compares a result with the start as SWE-bench does; what could not run is never counted", () => {
    expect(changeOf("failed", "passed")).toBe("fixed")
    expect(changeOf("passed", "passed")).toBe("kept")
    expect(changeOf("passed", "timed_out")).toBe("broke")
    expect(changeOf("timed_out", "failed")).toBe("still_failing")
    expect(changeOf("could_not_run", "passed")).toBe("not_comparable")
    expect(changeOf("passed", "could_not_run")).toBe("not_comparable")
  })

  it("says who passed what, what both fail and what could not run", () => {
    const comparison = compareChecks({
      timeLimitSeconds: 600,
      setup: [],
      commands,
      start: state(outcome("npm test", "failed"), outcome("npx tsc", "passed"), outcome("npm run lint", "failed"), outcome("make docs", "passed")),
      claude: state(outcome("npm test", "failed"), outcome("npx tsc", "passed"), outcome("npm run lint", "failed"), outcome("make docs", "could_not_run")),
      codex: state(outcome("npm test", "passed"), outcome("npx tsc", "passed"), outcome("npm run lint", "failed"), outcome("make docs", "passed"))
    })
    expect(comparison.tally).toEqual({ codex: { passed: 3, ran: 4, could_not_run: 0 }, claude: { passed: 1, ran: 3, could_not_run: 1 } })
    expect(comparison.sentence).toBe(
      "checks: Codex 3 of 4, Claude 1 of 3; Codex fixed `npm test`, which Claude's result still failed; both results fail `npm run lint`; `make docs` could not run on every side (not counted)."
    )
    expect(comparison.edge).toBe("codex")
    expect(comparison.codex_keeps_claude_passes).toBe(true)
    expect(comparison.rows[3]!.claude).toMatchObject({ status: "could_not_run", change: "not_comparable" })
  })

  it("names the files a result changed that a check may run or read", () => {
    expect(checkDefinitions([
      "src/add.js", "package.json", "web/package.json", "src/add.test.ts", "tests/unit/x.py", "test_calc.py", "lib/calc_spec.rb",
      "pyproject.toml", "tsconfig.build.json", "eslint.config.js", "docs/testing.md", "Makefile", "contest.py", "spec/models/user_spec.rb"
    ])).toEqual([
      "package.json", "web/package.json", "src/add.test.ts", "tests/unit/x.py", "test_calc.py", "lib/calc_spec.rb", "pyproject.toml", "tsconfig.build.json",
      "eslint.config.js", "Makefile", "spec/models/user_spec.rb"
    ])
    const comparison = compareChecks({
      timeLimitSeconds: 600,
      setup: [],
      commands: commands.slice(0, 1),
      start: state(outcome("npm test", "failed")),
      claude: state(outcome("npm test", "failed")),
      codex: state(outcome("npm test", "passed")),
      changedFiles: { claude: ["src/a.js"], codex: ["src/a.js", "package.json", "a.test.js", "b.test.js", "c.test.js"] }
    })
    expect(comparison.sentence).toBe(
      "checks: Codex 1 of 1, Claude 0 of 1; Codex fixed `npm test`, which Claude's result still failed; Codex's result changed what the checks run (package.json, a.test.js, b.test.js and 1 more): its patch shows whether it changed a check to pass it."
    )
  })

  it("a result cannot hide a failing check by breaking it: what the state may cause counts as a failure when it ran on the start", () => {
    const broken = (command: string): CommandOutcome => ({ ...outcome(command, "could_not_run"), exit_code: 127, cause: "state" })
    const two = commands.slice(0, 2)
    const comparison = compareChecks({
      timeLimitSeconds: 600,
      setup: [],
      commands: two,
      start: state(outcome("npm test", "failed"), broken("npx tsc")),
      claude: state(outcome("npm test", "passed"), broken("npx tsc")),
      codex: state(broken("npm test"), broken("npx tsc"))
    })
    expect(comparison.rows[0]!.codex).toMatchObject({ status: "failed", exit_code: 127, change: "still_failing" })
    expect(comparison.rows[0]!.codex.reason).toContain("It ran on the start, so it counts as a failure of this result.")
    // Not found on every state: the toolchain is missing, which says nothing about either result.
    expect(comparison.rows[1]!.codex).toMatchObject({ status: "could_not_run", change: "not_comparable" })
    expect(comparison.edge).toBe("claude")
    expect(comparison.tally.codex).toEqual({ passed: 0, ran: 1, could_not_run: 1 })
    // What the replay could not make (no cause) is never counted.
    const ours = compareChecks({
      timeLimitSeconds: 600,
      setup: [],
      commands: two.slice(0, 1),
      start: state(outcome("npm test", "failed")),
      claude: state(outcome("npm test", "could_not_run")),
      codex: state(outcome("npm test", "passed"))
    })
    expect(ours.rows[0]!.claude.status).toBe("could_not_run")
    expect(ours.edge).toBeNull()
    // The reviewer sees only what ran on both results, and no reason, which could name a side.
    expect(reviewerChecks(ours, "claude")).toEqual([])
    expect(reviewerChecks(comparison, "codex").map((check) => check.command)).toEqual(["npm test"])
    expect(JSON.stringify(reviewerChecks(comparison, "codex"))).not.toContain("reason")
  })

  it("names what the approved commands themselves run, and says when a result's file list was cut", () => {
    const commandsRun = ["python3 -m unittest", "./run_tests.sh", "npm test"]
    expect(checkDefinitions(["unittest.py", "run_tests.sh", ".npmrc", "src/app.py", "scripts/check", "lib/util.js"], commandsRun))
      .toEqual(["unittest.py", "run_tests.sh", ".npmrc", "scripts/check"])
    const comparison = compareChecks({
      timeLimitSeconds: 600,
      setup: [],
      commands: [{ command: "python3 -m unittest", directory: "." }],
      start: state(outcome("python3 -m unittest", "failed")),
      claude: state(outcome("python3 -m unittest", "passed")),
      codex: state(outcome("python3 -m unittest", "passed")),
      changedFiles: { claude: ["calc.py"], codex: ["calc.py", "unittest.py"], complete: false }
    })
    expect(comparison.definitions_changed).toEqual({ claude: [], codex: ["unittest.py"], complete: false })
    expect(comparison.sentence).toContain("Codex's result changed what the checks run (unittest.py)")
    expect(comparison.sentence).toContain("a result changed more files than are listed")
  })

  it("a mixed result, and none that ran on both sides", () => {
    const two = commands.slice(0, 2)
    const mixed = compareChecks({
      timeLimitSeconds: 600,
      setup: [],
      commands: two,
      start: state(outcome("npm test", "failed"), outcome("npx tsc", "passed")),
      claude: state(outcome("npm test", "failed"), outcome("npx tsc", "passed")),
      codex: state(outcome("npm test", "passed"), outcome("npx tsc", "failed"))
    })
    expect(mixed.edge).toBe("mixed")
    expect(mixed.codex_keeps_claude_passes).toBe(false)
    expect(mixed.sentence).toContain("Claude passed `npx tsc`, which Codex's result failed")
    const none = compareChecks({ timeLimitSeconds: 600, setup: [], commands: two, start: state(), claude: state(), codex: state() })
    expect(none.edge).toBeNull()
    expect(none.codex_keeps_claude_passes).toBeNull()
    expect(none.sentence).toContain("Codex could not run any, Claude could not run any")
  })

  it("the reviewer's view names no side and carries no time", () => {
    const comparison = compareChecks({
      timeLimitSeconds: 600,
      setup: [],
      commands: commands.slice(0, 1),
      start: state(outcome("npm test", "failed")),
      claude: state(outcome("npm test", "passed", "Claude Code wrote this test\nok 1")),
      codex: state(outcome("npm test", "passed", "ok 1"))
    })
    const shown = reviewerChecks(comparison, "claude")
    expect(shown).toEqual([{
      command: "npm test",
      directory: ".",
      outcome_at_start: "failed",
      outcome: "passed",
      exit_code: 0,
      change_from_start: "fixed",
      output_excerpt: "the agent wrote this test\nok 1"
    }])
    expect(JSON.stringify(shown)).not.toMatch(/elapsed|claude|codex/i)
  })

  it("an excerpt keeps the head and the tail of any amount of output, printable", () => {
    const collector = excerptCollector()
    collector.push("\u001b[31mFAIL\u001b[0m start\r\n")
    for (let index = 0; index < 10_000; index++) collector.push(`line ${index} `.padEnd(100, ".") + "\n")
    collector.push("the \u202eend\u200b\u0007")
    const text = collector.finish()
    expect(text.startsWith("FAIL start\n")).toBe(true)
    expect(text.endsWith("the end")).toBe(true)
    expect(text).toMatch(/… \d+ characters left out …/)
    expect(text.length).toBeLessThan(EXCERPT_HEAD + EXCERPT_TAIL + 100)
    const small = excerptCollector()
    small.push("ok")
    expect(small.finish()).toBe("ok")
  })
})
