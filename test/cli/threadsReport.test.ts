import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { installEnv, listTree, scratch } from "../rpc/support.js"
import { runCommandLine } from "../support/commandLine.js"
import { writeRun } from "../support/daemon.js"
import { waitUntil } from "./support.js"

/** The command line in this process: what it prints, writes and exits with (the binary itself: test/e2e/cli/). */
const runCli = (args: ReadonlyArray<string>, env: Record<string, string>) => runCommandLine(args, { env })

let root: string
let env: Record<string, string>

beforeAll(() => {
  root = scratch("codex-replay-cli-")
  env = installEnv(root)
})

afterAll(() => {
  fs.rmSync(root, { recursive: true, force: true })
})

const IMPORTED_THREADS = 5

/**
 * Whatever a refused command line may have written under the install (nothing is expected). The thread
 * index and the last listing (for `#N`) are left out: the listings running concurrently write them.
 */
const written = () =>
  listTree(root).filter((entry) =>
    !entry.startsWith("bin") && entry !== "cache" && !entry.startsWith(path.join("cache", "index")) && !entry.startsWith(path.join("cache", "cli"))
  )

describe.concurrent("codex-replay threads (read-only, concurrently)", () => {
  it("prints every imported thread of the fixtures as JSON only on stdout", async () => {
    const result = await runCli(["threads", "--json", "--limit", "100"], env)
    expect(result.code).toBe(0)
    const listing = JSON.parse(result.stdout) as {
      source: string
      total: number
      imported_total: number
      threads: ReadonlyArray<{ imported_thread_id: string }>
      has_more: boolean
    }
    expect(listing.source).toBe("imported")
    expect(listing.total).toBe(IMPORTED_THREADS)
    expect(listing.imported_total).toBe(IMPORTED_THREADS)
    expect(listing.threads).toHaveLength(IMPORTED_THREADS)
    expect(listing.has_more).toBe(false)
  })

  it("numbers the threads and pages them for a person", async () => {
    const result = await runCli(["threads", "--limit", "2"], env)
    expect(result.code).toBe(0)
    const lines = result.stdout.trim().split("\n")
    // A table: border, header, rule, two threads, the page's totals under a rule, border; then the paging.
    expect(lines).toHaveLength(9)
    expect(lines[3]).toMatch(/^│ +#1 │ \d{4}-\d{2}-\d{2} │ .+ │ [0-9a-f]{8} +│$/)
    expect(lines[4]).toMatch(/^│ +#2 │ /)
    expect(lines[6]).toMatch(/^│ +Page │ /)
    expect(lines[8]).toBe(`1–2 of ${IMPORTED_THREADS} imported thread(s); more with --offset 2.`)
    const next = await runCli(["threads", "--limit", "2", "--offset", "2"], env)
    expect(next.stdout.split("\n")[3]).toMatch(/^│ +#3 │ /)
    // Whole numbers may carry a sign or padding; the answer is the same page.
    const signed = await runCli(["threads", "--limit", "+2", "--offset", " 2 "], env)
    expect(signed.stdout).toBe(next.stdout)
  })

  it("sorts by cost with --sort cost and shows each thread's cost", async () => {
    const result = await runCli(["threads", "--sort", "cost", "--json", "--limit", "100"], env)
    expect(result.code).toBe(0)
    const listing = JSON.parse(result.stdout) as { sort: string; threads: ReadonlyArray<{ cost_usd: number; tokens: { output: number } }> }
    expect(listing.sort).toBe("cost")
    const costs = listing.threads.map((thread) => thread.cost_usd)
    expect(costs).toEqual([...costs].sort((left, right) => right - left))
    expect(listing.threads.every((thread) => thread.tokens.output > 0)).toBe(true)
    const text = await runCli(["threads", "--sort", "cost", "--limit", "1"], env)
    expect(text.stdout.split("\n")[3]).toMatch(/^│ +#1 │ \d{4}-\d{2}-\d{2} │ .+ │ \$\d+\.\d\d │ [0-9a-f]{8} +│$/)
    const refused = await runCli(["threads", "--sort", "price"], env)
    expect(refused.code).toBe(1)
    expect(refused.stdout).toBe("")
  })

  it("searches case-insensitively with --query", async () => {
    const result = await runCli(["threads", "--query", "SPOTTER", "--json"], env)
    expect(result.code).toBe(0)
    const listing = JSON.parse(result.stdout) as { total: number; threads: ReadonlyArray<{ project_dir: string }> }
    expect(listing.total).toBe(1)
    expect(listing.threads[0]?.project_dir).toBe("/home/marco/projects/spotter")
    const none = await runCli(["threads", "--query", "no-such-thing-anywhere"], env)
    expect(none.code).toBe(0)
    expect(none.stdout).toBe("No thread matches the search.\n")
  })

  it("lists the packaged samples with --source sample", async () => {
    const result = await runCli(["threads", "--source", "sample", "--json"], env)
    const listing = JSON.parse(result.stdout) as { source: string; threads: ReadonlyArray<{ imported_thread_id: string }> }
    expect(listing.source).toBe("sample")
    expect(listing.threads.map((thread) => thread.imported_thread_id).sort()).toEqual(["sample-hello-cli", "sample-word-count"])
  })

  it.each([
    [["threads", "--limit", "0"], "--limit must be a whole number from 1 through 100."],
    [["threads", "--limit", "101"], "--limit must be a whole number from 1 through 100."],
    [["threads", "--limit", "many"], "--limit must be a whole number from 1 through 100."],
    [["threads", "--limit", ""], "--limit must be a whole number from 1 through 100."],
    [["threads", "--offset", "-1"], "--offset must be a whole number from 0 through 100000."],
    [["threads", "--source", "elsewhere"], "--source must be imported or sample (got \"elsewhere\")."],
    [["threads", "--query", "x".repeat(1001)], "--query must be at most 1000 characters."],
    [["threads", "--bogus"], "`codex-replay threads` has no flag --bogus; it has the flags --query,"],
    [["nonsense"], "Invalid command line"],
    [["open", "--bogus"], "`codex-replay open` has no flag --bogus; it has no flags"],
    [["threads", "--json=maybe"], "--json takes no value (got \"--json=maybe\")."],
    [["report", "run-x", "--open=yes"], "--open takes no value"],
    [["threads", "--offset", "1.5"], "--offset must be a whole number from 0 through 100000."],
    [["threads", "--offset", "1e3"], "--offset must be a whole number from 0 through 100000."],
    [["threads", "--limit", "5", "--limit", "6"], "--limit is given more than once; give it once."],
    [["threads", "--query=a", "--query", "b"], "--query is given more than once; give it once."],
    [["threads", "--json", "--json"], "--json is given more than once; give it once."],
    [["threads", "--limit"], "--limit needs a value: --limit N."],
    [["threads", "--source", "--json"], "--source needs a value: --source imported|sample."]
  ])("refuses %j with a clear message and writes nothing", async (args, message) => {
    const result = await runCli(args, env)
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(message)
    // No stack frame, of the bundle or of the sources this process runs.
    expect(result.stderr).not.toMatch(/\n\s+at .+:\d+:\d+/)
    expect(result.stdout).toBe("")
    expect(written()).toEqual([])
  })

  it("reports an invalid environment value clearly", async () => {
    const result = await runCli(["threads"], { ...env, CODEX_REPLAY_CONTROLLER_PORT: "80" })
    expect(result.code).toBe(1)
    expect(result.stderr).toContain("CODEX_REPLAY_CONTROLLER_PORT must be from 1024 through 65535.")
    expect(result.stdout).toBe("")
    expect(written()).toEqual([])
  })
})

describe("codex-replay report", () => {
  const runRoot = () => env.CODEX_REPLAY_RUN_ROOT!
  /** A run directory with the given files; its state says `completed` unless `state` says otherwise. */
  const makeRun = (runId: string, files: Record<string, string>, state: Record<string, unknown> | null = { status: "completed" }) => {
    const directory = path.join(runRoot(), runId)
    if (state === null) fs.mkdirSync(directory, { recursive: true })
    else writeRun(runRoot(), runId, { controller_session_id: "0".repeat(32), model: "gpt-5.6-terra", thread_id: "thread-x", ...state })
    for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(directory, name), content)
    return directory
  }

  it("prints the paths of the HTML and JSON reports", async () => {
    const directory = makeRun("run-with-report", { "report.html": "<html></html>", "report.json": "{}" })
    const result = await runCli(["report", "run-with-report"], env)
    expect(result.code).toBe(0)
    const real = fs.realpathSync(directory)
    // The verdict summary first (the run's state has no verdict to show), then the paths.
    expect(result.stdout).toMatch(/^Run: {5}run-with-report \(gpt-5\.6-terra, thread thread-x\)\n/)
    expect(result.stdout.endsWith(`${path.join(real, "report.html")}\n${path.join(real, "report.json")}\n`)).toBe(true)
    const json = await runCli(["report", "run-with-report", "--json"], env)
    expect(JSON.parse(json.stdout)).toMatchObject({
      run_id: "run-with-report",
      run_directory: directory,
      report_html: path.join(real, "report.html"),
      report_json: path.join(real, "report.json"),
      status: "completed",
      model: "gpt-5.6-terra",
      thread_id: "thread-x",
      opened: false
    })
  })

  it("opens the HTML report with the desktop's opener (--open)", async () => {
    const directory = makeRun("run-to-open", { "report.html": "<html></html>" })
    const bin = path.join(root, "bin")
    const log = path.join(root, "opened.txt")
    fs.mkdirSync(bin, { recursive: true })
    for (const name of ["xdg-open", "open"]) {
      fs.writeFileSync(path.join(bin, name), `#!/bin/sh\nprintf '%s' "$1" > '${log}'\n`, { mode: 0o755 })
    }
    const result = await runCli(["report", "run-to-open", "--open"], { ...env, PATH: `${bin}:${env.PATH}` })
    expect(result.code).toBe(0)
    const expected = path.join(fs.realpathSync(directory), "report.html")
    expect(result.stdout.endsWith(`\n${expected}\n`)).toBe(true)
    // The opener is detached: it may write after the command has ended.
    await waitUntil("the opener to run", () => fs.existsSync(log) && fs.readFileSync(log, "utf8") !== "", 10_000)
    expect(fs.readFileSync(log, "utf8")).toBe(expected)
    fs.rmSync(log)
  })

  it("says clearly when the opener is missing", async () => {
    makeRun("run-no-opener", { "report.html": "<html></html>" })
    const result = await runCli(["report", "run-no-opener", "--open"], { ...env, PATH: path.join(root, "empty-path") })
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/Cannot open the report: (xdg-)?open is not available\./)
  })

  it.concurrent.each([
    [["report", "../escape"], "The run ID is invalid."],
    [["report", ".hidden"], "The run ID is invalid."],
    [["report", "no-such-run"], "No run no-such-run in "],
    [["report"], "Missing argument <run-id>"],
    [["report", "a", "b"], "`codex-replay report` takes <run-id> only; \"b\" is one too many."],
    [["report", "run-x", "--format", "pdf"], "`codex-replay report` has no flag --format;"]
  ])("refuses %j with a clear message and writes nothing", async (args, message) => {
    // An install of its own, empty before and after.
    const own = scratch("codex-replay-cli-refusal-")
    try {
      const result = await runCli(args, installEnv(own))
      expect(result.code).toBe(1)
      expect(result.stderr).toContain(message)
      expect(result.stdout).toBe("")
      expect(listTree(own)).toEqual([])
    } finally {
      fs.rmSync(own, { recursive: true, force: true })
    }
  })

  it("refuses a run without a report, and a report that leads out of its run", async () => {
    makeRun("run-not-ready", {})
    const notReady = await runCli(["report", "run-not-ready"], env)
    expect(notReady.code).toBe(1)
    expect(notReady.stderr).toContain("The replay report is not ready.")
    const outside = path.join(root, "outside.html")
    fs.writeFileSync(outside, "<html>secret</html>")
    const directory = makeRun("run-escaping", {})
    fs.symlinkSync(outside, path.join(directory, "report.html"))
    const escaping = await runCli(["report", "run-escaping", "--json"], env)
    expect(escaping.code).toBe(1)
    expect(escaping.stderr).toContain("The replay report is outside its run directory.")
    expect(escaping.stdout).toBe("")
  })

  it("serves no report for a run that did not complete or has no state, whatever files it left", async () => {
    const files = { "report.html": "<html></html>", "report.json": "{}" }
    makeRun("run-killed-reporting", files, { status: "failed", phase: "reporting", error: "Interrupted." })
    const killed = await runCli(["report", "run-killed-reporting"], env)
    expect(killed.code).toBe(1)
    expect(killed.stderr).toContain("Run run-killed-reporting: failed")
    expect(killed.stderr).toContain("— no report")
    expect(killed.stdout).toBe("")
    // --json prints the run's state all the same, with no report whatever files it left.
    const state = await runCli(["report", "run-killed-reporting", "--json"], env)
    expect(state.code).toBe(0)
    expect(JSON.parse(state.stdout)).toMatchObject({ status: "failed", report_html: null, report_json: null, verdict: null })
    expect(JSON.parse(state.stdout).no_report).toMatch(/^Run run-killed-reporting: failed.* — no report\.$/)
    makeRun("run-without-state", files, null)
    const stateless = await runCli(["report", "run-without-state"], env)
    expect(stateless.code).toBe(1)
    expect(stateless.stderr).toContain("The replay report is not ready.")
    expect(stateless.stdout).toBe("")
  })
})
