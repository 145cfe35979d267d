/**
 * The command line for daily use: tables, --since/--until, #N and id prefixes resolved before any controller
 * starts, the README's flags in --help, and `report --json` of any run. The commands in this process against
 * the fixture history and a run root made here; what needs the binary (log lines off its stderr, the usage
 * hint on a terminal) is in test/e2e/cli/terminal.test.ts.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { installEnv, scratch } from "../rpc/support.js"
import { runCommandLine } from "../support/commandLine.js"
import { cancelledByUser, writeRun } from "../support/daemon.js"
import { REPO } from "../support/spawnBin.js"
import { daemonsOf } from "./support.js"

const runCli = (args: ReadonlyArray<string>, env: Record<string, string>) => runCommandLine(args, { env })

let root: string
let env: Record<string, string>
const controllers = () => path.join(root, "cache", "controllers")
const lastListing = () => path.join(root, "cache", "cli", "last-threads.json")
/** The fixture history's threads whose ids start with "5". */
const FIVES = ["55604662-cf2a-4331-851a-ec234028f8ca", "5c0375b4-57a5-4f26-b12d-d022ee4e51b7"]
/** The fixture history's thread #2 of `threads --limit 3` (by date, newest first). */
const CREATED_ONLY = "c45af7b1-cb7c-4e51-93db-8cbb250a877a"

const lines = (text: string) => text.trimEnd().split("\n")

beforeAll(() => {
  root = scratch("codex-replay-cli-daily-")
  env = { ...installEnv(root), TZ: "UTC" }
  delete env.COLUMNS
  delete env.NO_COLOR
  const runRoot = env.CODEX_REPLAY_RUN_ROOT!
  const base = { controller_session_id: "b".repeat(32), model: "gpt-5.6-terra", phases: [], events: [], coordinator_pid: null, error: null }
  writeRun(runRoot, "run-20261130T100000Z-aaaaaaaaaa", {
    ...base,
    thread_id: "sample-hello-cli",
    status: "completed",
    started_at: "2026-11-30T10:00:00.000Z",
    report_summary: {
      winner: "codex",
      spend: {
        implementation: { usd: 0.2271, calls: 1, unpriced_calls: 0 },
        evaluation: { usd: 0.004, calls: 2, unpriced_calls: 0 },
        total: { usd: 0.2311, calls: 3, unpriced_calls: 0 },
        tokens: { input: 120_500, output: 3_200 }
      }
    }
  })
  writeRun(runRoot, "run-20261201T120000Z-bbbbbbbbbb", {
    ...base,
    thread_id: "sample-word-count",
    ...cancelledByUser("2026-12-01T12:00:00.000Z", "2026-12-01T12:02:00.000Z")
  })
})

afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

describe("tables that read like ccusage", () => {
  it("threads: a header, aligned columns, tokens, two-decimal costs and a totals row, within COLUMNS", async () => {
    const result = await runCli(["threads"], env)
    expect(result.code).toBe(0)
    const table = lines(result.stdout).slice(0, -1)
    expect(table[1]).toMatch(/^│ +# │ Date +│ Title +│ Project +│ +Input │ +Output │ +Cost │ Thread +│$/)
    // Aligned: every line as wide as the border (a line with a wide CJK title is as wide on screen, not in UTF-16 units).
    expect(new Set(table.filter((line) => /^[\x20-\x7e│─┼├┤┌┐└┘┬┴]*$/.test(line)).map((line) => line.length)).size).toBe(1)
    expect(table.at(-2)).toMatch(/^│ Total │ .* │ +[\d,]+ │ +[\d,]+ │ +\$\d+\.\d\d │ +│$/)
    expect(result.stdout).toMatch(/│ +#1 │ 2026-02-10 │ mix phx\.server doesnt seem to start +│/)
    for (const cost of result.stdout.matchAll(/\$\d+\.\d+/g)) expect(cost[0]).toMatch(/^\$\d+\.\d\d$/)
    // Not a terminal: no colour.
    expect(result.stdout).not.toContain("\u001b")
    const narrow = await runCli(["threads"], { ...env, COLUMNS: "72" })
    expect(Math.max(...lines(narrow.stdout).map((line) => line.length))).toBeLessThanOrEqual(72)
    expect(narrow.stdout).toContain("Title")
  })

  it("threads --since/--until keep the threads started in those days; a bad day is one sentence and changes nothing", async () => {
    const result = await runCli(["threads", "--since", "20260101", "--until", "2026-01-31", "--json"], env)
    expect(result.code).toBe(0)
    const listing = JSON.parse(result.stdout) as { total: number; threads: ReadonlyArray<{ imported_thread_id: string }> }
    expect(listing.threads.map((thread) => thread.imported_thread_id)).toEqual([CREATED_ONLY])
    const before = fs.readFileSync(lastListing(), "utf8")
    for (const [args, message] of [
      [["--since", "2026-13-01"], "--since must be a day as YYYY-MM-DD or YYYYMMDD (got \"2026-13-01\")."],
      [["--until", "yesterday"], "--until must be a day as YYYY-MM-DD or YYYYMMDD (got \"yesterday\")."],
      [["--since", "2026-02-01", "--until", "2026-01-01"], "--until 2026-01-01 is before --since 2026-02-01; nothing is in that range."]
    ] as const) {
      const refused = await runCli(["threads", ...args], env)
      expect(refused.code).toBe(1)
      expect(refused.stderr).toBe(`codex-replay: ${message}\n`)
      expect(refused.stdout).toBe("")
    }
    expect(fs.readFileSync(lastListing(), "utf8")).toBe(before)
    // An empty range says which days it was.
    expect((await runCli(["threads", "--since", "2030-01-01"], env)).stdout).toBe("No thread started on or after 2030-01-01.\n")
    expect((await runCli(["threads", "--until", "2020-01-01", "--query", "phx"], env)).stdout).toBe(
      "No thread started on or before 2020-01-01 matches the search.\n"
    )
  }, 180_000)

  it("runs: the thread's title, tokens, costs with two decimals (<$0.01 below a cent), a totals row; --query searches titles", async () => {
    const result = await runCli(["runs"], env)
    expect(result.code).toBe(0)
    const table = lines(result.stdout)
    expect(table[1]).toMatch(/^│ Started +│ Run +│ Thread +│ Model +│ Status +│ Verdict +│ +Input │ +Output │ +Codex │ Evaluation │$/)
    expect(result.stdout).toMatch(/│ 2026-11-30 10:00 │ run-20261130T100000Z-aaaaaaaaaa │ Sample: create a greeting script \(non-git\) │ gpt-5\.6-terra │ completed │ Codex wins +│ +120,500 │ +3,200 │ +\$0\.23 │ +<\$0\.01 │/)
    expect(result.stdout).toMatch(/│ Total +│ .*│ +120,500 │ +3,200 │ +\$0\.23 │ +<\$0\.01 │/)
    const titled = JSON.parse((await runCli(["runs", "--query", "WORDS OPTION", "--json"], env)).stdout) as {
      runs: ReadonlyArray<{ run_id: string; thread_title: string }>
    }
    expect(titled.runs.map((run) => [run.run_id, run.thread_title])).toEqual([["run-20261201T120000Z-bbbbbbbbbb", "Sample: add a --words option (git)"]])
    const dated = JSON.parse((await runCli(["runs", "--since", "2026-12-01", "--json"], env)).stdout) as { runs: ReadonlyArray<{ run_id: string }> }
    expect(dated.runs.map((run) => run.run_id)).toEqual(["run-20261201T120000Z-bbbbbbbbbb"])
    const refused = await runCli(["runs", "--until", "2026-02-30"], env)
    expect(refused.code).toBe(1)
    expect(refused.stderr).toBe("codex-replay: --until must be a day as YYYY-MM-DD or YYYYMMDD (got \"2026-02-30\").\n")
    const none = await runCli(["runs", "--since", "20270101", "--until", "2027-01-31"], env)
    expect(none.code).toBe(0)
    expect(none.stdout).toBe(`No runs started from 2027-01-01 through 2027-01-31 in ${env.CODEX_REPLAY_RUN_ROOT}.\n`)
  }, 180_000)

  it.each([80, 100])("runs fits COLUMNS=%i: the titles wrapped, every line of the table within the width", async (columns) => {
    const result = await runCli(["runs"], { ...env, COLUMNS: String(columns) })
    expect(result.code).toBe(0)
    // The table; the paging line after it names the run root, whatever its length.
    const table = lines(result.stdout).slice(0, -1)
    expect(Math.max(...table.map((line) => line.length))).toBeLessThanOrEqual(columns)
    for (const word of ["Thread", "Verdict", "Codex", "greeting", "cancelled", "$0.23"]) expect(result.stdout).toContain(word)
  })
})

describe("#N and id prefixes, resolved before any controller starts", () => {
  it("keeps the last listing private and takes its #N; an unknown, ambiguous or bad command line starts no controller", async () => {
    await runCli(["threads", "--limit", "3"], env)
    expect(fs.statSync(lastListing()).mode & 0o777).toBe(0o600)
    expect(fs.statSync(path.dirname(lastListing())).mode & 0o777).toBe(0o700)
    // #2 and unique prefixes name the right threads (`replay` and `batch` resolve them alike): given beside that
    // thread's whole id, each is refused as the same thread twice, named by the id it resolved to.
    for (const [reference, threadId] of [["#2", CREATED_ONLY], ["c45a", CREATED_ONLY], ["sample-word", "sample-word-count"]] as const) {
      const result = await runCli(["batch", "--threads", `${reference},${threadId}`, "--model", "gpt-5.6-terra"], env)
      expect(result.code).toBe(1)
      expect(result.stderr).toBe(`codex-replay: Thread ${threadId} is given more than once in --threads.\n`)
    }
    const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
      [["replay", "#9", "--model", "gpt-5.6-terra"], "codex-replay: #9 is not in the last `codex-replay threads` listing (#1–#3); list it again with --offset.\n"],
      [["replay", "zzzz", "--model", "gpt-5.6-terra"], "codex-replay: No thread has the ID or ID prefix \"zzzz\"; see `codex-replay threads`.\n"],
      [["batch", "--threads", "#1,zzzz", "--model", "gpt-5.6-terra"], "codex-replay: No thread has the ID or ID prefix \"zzzz\"; see `codex-replay threads`.\n"],
      [["batch", "--query", "no-such-thread-anywhere", "--model", "gpt-5.6-terra"], "codex-replay: No thread matches \"no-such-thread-anywhere\".\n"],
      [["replay", "5", "--model", "gpt-5.6-terra"], [
        "codex-replay: \"5\" matches 2 threads; give more of the ID (nothing was changed):",
        `  ${FIVES[0]}  mix phx.server doesnt seem to start`,
        `  ${FIVES[1]}  /orchestrator @CLAUDE.md を最新の状態にアップデートしてください`,
        ""
      ].join("\n")]
    ]
    for (const [args, stderr] of cases) {
      const result = await runCli(args, env)
      expect(result.code).toBe(1)
      expect(result.stderr).toBe(stderr)
      expect(result.stdout).toBe("")
    }
    // No controller was started: none registered its runtime, none is running for this install.
    expect(fs.existsSync(controllers()) ? fs.readdirSync(controllers()) : []).toEqual([])
    expect(daemonsOf(env.CODEX_REPLAY_RUN_ROOT!)).toEqual([])
  }, 180_000)

  it("report takes a unique run-id prefix, and --json prints a cancelled run's state without a report", async () => {
    const result = await runCli(["report", "run-20261201", "--json"], env)
    expect(result.code).toBe(0)
    const answer = JSON.parse(result.stdout) as Record<string, unknown>
    expect(answer).toMatchObject({
      run_id: "run-20261201T120000Z-bbbbbbbbbb",
      status: "cancelled",
      report_html: null,
      verdict: null,
      no_report: "Run run-20261201T120000Z-bbbbbbbbbb: cancelled by the user at 12:02 — no report."
    })
    expect((answer.state as Record<string, unknown>).cancellation_reason).toBe("user_requested")
    const ambiguous = await runCli(["report", "run-2026"], env)
    expect(ambiguous.code).toBe(1)
    expect(ambiguous.stderr).toContain("\"run-2026\" matches 2 runs; give more of the ID (nothing was changed):\n  run-20261201T120000Z-bbbbbbbbbb\n")
  })
})

describe("--help", () => {
  it("every flag the README shows for a command is in that command's --help", async () => {
    const readme = fs.readFileSync(path.join(REPO, "README.md"), "utf8")
    const flagsByCommand = new Map<string, Set<string>>()
    for (const match of readme.matchAll(/codex-replay (open|threads|replay|batch|report|runs|portfolio|stop)\b([^\n`]*)/g)) {
      const flags = flagsByCommand.get(match[1]!) ?? new Set<string>()
      for (const flag of match[2]!.matchAll(/--[a-z][a-z-]*/g)) flags.add(flag[0])
      flagsByCommand.set(match[1]!, flags)
    }
    expect([...flagsByCommand.keys()]).toEqual(expect.arrayContaining(["threads", "replay", "batch", "runs"]))
    expect(flagsByCommand.get("threads")).toContain("--sort")
    for (const [command, flags] of flagsByCommand) {
      const help = (await runCli([command, "--help"], env)).stdout
      for (const flag of flags) expect(help, `${command} ${flag}`).toMatch(new RegExp(`^  ${flag}\\b`, "m"))
    }
  })
})
