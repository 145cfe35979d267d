import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Daemon, scratch, startDaemon } from "../../rpc/support.js"
import { spawn } from "node:child_process"
import { BIN } from "../../rpc/support.js"
import { runCli, runDirectories, spawnCli, waitUntil } from "../../cli/support.js"
import { isAlive } from "../../support/daemon.js"
import { fakeCodexPids, leftBehind } from "../../support/fakeCodexPids.js"

const SAMPLE = "sample-hello-cli"
const MODEL = "gpt-5.6-terra"
const OTHER_MODEL = "gpt-5.6-luna"

let daemon: Daemon

beforeAll(async () => {
  daemon = await startDaemon()
})

afterAll(async () => {
  await daemon?.stop()
})

describe("codex-replay replay", () => {
  it("prepares, starts and follows one run per model to its report (--yes --json), reviewed by --reviewer-model", async () => {
    const result = await runCli([
      "replay", SAMPLE, "--model", MODEL, "--model", OTHER_MODEL, "--reviewer-model", OTHER_MODEL,
      "--check", "npm test", "--check", "cd web && npx tsc --noEmit", "--setup", "npm ci", "--yes", "--json"
    ], daemon.env, {
      timeoutMillis: 60_000
    })
    expect(result.stderr).not.toContain("codex-replay:")
    expect(result.code).toBe(0)
    const answer = JSON.parse(result.stdout) as {
      controller_url: string
      thread_id: string
      models: ReadonlyArray<string>
      runs: ReadonlyArray<{
        run_id: string
        model: string
        status: string
        report_html: string | null
        report_json: string | null
        verdict: { winner: string; dimensions: { won: number; tied: number; lost: number }; codex: { elapsed_ms: number }; claude: object }
      }>
    }
    expect(answer.controller_url).toBe(daemon.launchUrl)
    expect(answer.thread_id).toBe(SAMPLE)
    expect(answer.runs.map((run) => run.model)).toEqual([MODEL, OTHER_MODEL])
    for (const run of answer.runs) {
      expect(run.status).toBe("completed")
      expect(run.report_html).toBe(path.join(daemon.runRoot, run.run_id, "report.html"))
      expect(fs.readFileSync(run.report_html!, "utf8")).toContain("<html")
      const report = JSON.parse(fs.readFileSync(run.report_json!, "utf8")) as Record<string, any>
      expect(report.about_review).toMatchObject({ reviewer_model: OTHER_MODEL, self_review: run.model === OTHER_MODEL })
      // --json carries the verdict: the winner, the six dimensions from Codex's side, both sides' figures.
      expect(run.verdict.winner).toBe(report.winner)
      expect(run.verdict.dimensions.won + run.verdict.dimensions.tied + run.verdict.dimensions.lost).toBe(6)
      expect(run.verdict.codex.elapsed_ms).toBe(report.candidates.codex.elapsed_ms)
      expect(run.verdict.claude).toHaveProperty("cost_usd")
      // Exactly the commands approved are recorded on the run.
      const state = JSON.parse(fs.readFileSync(path.join(daemon.runRoot, run.run_id, "controller-state.json"), "utf8"))
      expect([state.checks, state.setup]).toEqual([
        [{ command: "npm test", directory: "." }, { command: "cd web && npx tsc --noEmit", directory: "." }],
        [{ command: "npm ci", directory: "." }]
      ])
    }
    expect(result.stderr).toContain("Checks:     npm test · cd web && npx tsc --noEmit\n")
    expect(result.stderr).toContain("Set-up:     npm ci\n")
    // Not a terminal: plain lines, never an ANSI sequence.
    expect(result.stderr).not.toContain("\x1b")
    // A person's view (configuration, approval, phases) went to stderr under --json.
    expect(result.stderr).toContain(`Thread:     ${SAMPLE}`)
    expect(result.stderr).toContain(`Reviewer:   ${OTHER_MODEL} (self-review for ${OTHER_MODEL})\n`)
    expect(result.stderr).toContain("Approve 2 parallel Codex implementations using this configuration? yes (--yes)")
    // Phases are sampled every 500 ms, so which ones show depends on speed; the first sample is never the end.
    for (const model of [MODEL, OTHER_MODEL]) {
      expect(result.stderr).toMatch(
        new RegExp(`\\[${model}\\] (Waiting to run|Creating workspace|Implementing with Codex|Collecting results|Blind review|Writing the report) \\(at \\d+:\\d\\d\\)\n`)
      )
      expect(result.stderr).toMatch(new RegExp(`\\[${model}\\] completed in \\d+:\\d\\d\n`))
      expect(result.stderr.indexOf(`[${model}] started`)).toBeLessThan(result.stderr.indexOf(`[${model}] completed`))
    }
    // Each run's page address, printed when it starts and in --json: it opens that run in a fresh browser.
    const { origin, search } = new URL(daemon.launchUrl)
    // The thread's Configure in the page, beside the configuration.
    expect(result.stderr).toContain(`Page:       ${origin}/threads/${SAMPLE}${search}\n`)
    expect((answer as { thread_address?: string }).thread_address).toBe(`${origin}/threads/${SAMPLE}${search}`)
    for (const run of answer.runs as ReadonlyArray<{ run_id: string; model: string; address?: string }>) {
      expect(run.address).toBe(`${origin}/runs/${run.run_id}${search}`)
      expect(result.stderr).toContain(`[${run.model}] started ${run.run_id}  ${run.address}\n`)
    }
    expect(runDirectories(daemon.runRoot).sort()).toEqual(answer.runs.map((run) => run.run_id).sort())

    // The same report through `codex-replay report`, with the run's address in the controller that is running.
    const first = answer.runs[0]!
    const report = await runCli(["report", first.run_id], daemon.env)
    expect(report.stdout).toContain(`Address: ${origin}/runs/${first.run_id}${search}\n`)
    // The Runs list with its filters, as the page addresses it, in that controller.
    const listed = await runCli(["runs", "--query", "hello-cli", "--status", "completed"], daemon.env)
    expect(listed.stdout).toContain(`Address: ${origin}/runs?query=hello-cli&status=completed&${search.slice(1)}\n`)
    const listedJson = JSON.parse((await runCli(["runs", "--json"], daemon.env)).stdout) as { address: string | null }
    expect(listedJson.address).toBe(`${origin}/runs${search}`)
    // A portfolio of those runs prints its own address in that controller too (its saved page, shown in place).
    const portfolio = await runCli(["portfolio", "--json", ...answer.runs.map((run) => run.run_id)], daemon.env)
    const written = JSON.parse(portfolio.stdout) as { portfolio_id: string; address: string | null }
    expect(written.address).toBe(`${origin}/portfolios/${written.portfolio_id}${search}`)
    const lines = report.stdout.split("\n")
    expect(lines[0]).toBe(`Run:     ${first.run_id} (${MODEL}, thread ${SAMPLE})`)
    expect(lines[1]).toMatch(
      /^Verdict: (Codex wins|Claude wins|Tie|Inconclusive \(no order-balanced verdict\)|Inconclusive \(the two orders disagreed\))( — \d dimension\(s\) won, \d tied, \d lost)?$/
    )
    // The report's caveats follow the verdict, one a line: the fake reviewer's two orders disagree on every dimension.
    const caveats = lines.slice(2).findIndex((line) => !line.startsWith("Caveat:  "))
    if (lines[1]!.endsWith("(the two orders disagreed)")) {
      expect(lines).toContain(
        "Caveat:  inconclusive (the two orders disagreed): The two review orders disagreed on every dimension compared: each counts as a tie, which is no verdict."
      )
    }
    const at = 2 + caveats
    expect(lines[at]).toMatch(/^Time:    Codex \d+ s · Claude /)
    expect(lines[at + 1]).toMatch(/^Cost:    Codex .+ · Claude /)
    expect(lines[at + 2]).toBe(fs.realpathSync(first.report_html!))
    // After the paths, the checks the run ran on the three states: the sentence, then one line per approved check.
    const checks = (JSON.parse(fs.readFileSync(first.report_json!, "utf8")) as { checks: { sentence: string; rows: Array<unknown> } }).checks
    expect(lines[at + 4]).toBe(`Checks:  ${checks.sentence}`)
    expect(lines.slice(at + 5, at + 5 + checks.rows.length).every((line) => /^ {2}\S.*: start .+ · Claude .+ · Codex .+$/.test(line))).toBe(true)
    expect(checks.rows).toHaveLength(2)
  })

  it("on a terminal, keeps one updating line per model with the phase's elapsed time, then the verdict", { timeout: 120_000 }, async () => {
    // `script` gives the command a pseudo-terminal, as a person's shell would.
    const command = [process.execPath, BIN, "replay", SAMPLE, "--model", MODEL, "--yes"].map((word) => `'${word}'`).join(" ")
    const child = spawn("script", ["-qec", command, "/dev/null"], { env: daemon.env, stdio: ["ignore", "pipe", "pipe"] })
    let output = ""
    child.stdout.on("data", (chunk: Buffer) => void (output += chunk.toString("utf8")))
    const code = await new Promise<number | null>((resolve) => child.once("close", resolve))
    expect(code).toBe(0)
    expect(output).toMatch(new RegExp(`\r\x1b\\[2K\\[${MODEL}\\] (Waiting to run|Creating workspace|Implementing with Codex|Collecting results|Blind review|Writing the report)  \\d+:\\d\\d`))
    expect(output).toMatch(/\x1b\[1A/)
    expect(output).toMatch(new RegExp(`\\[${MODEL}\\] completed  \\d+:\\d\\d in total`))
    expect(output).toMatch(/Verdict: /)
    expect(output).toMatch(/ {2}Report: {2}\S+report\.html/)
  })

  it("starts nothing when the approval is declined", async () => {
    // The shared controller: the runs of the tests above stay, and no run directory is added.
    const before = runDirectories(daemon.runRoot)
    const result = await runCli(["replay", SAMPLE, "--model", MODEL], daemon.env, { input: "n\n" })
    expect(result.code).toBe(1)
    expect(result.stdout).toContain(`Thread:     ${SAMPLE}`)
    expect(result.stderr).toContain(`Approve a Codex replay of ${SAMPLE} with ${MODEL}? [y/N]`)
    expect(result.stderr).toContain("codex-replay: The replay was not approved; nothing was started.")
    expect(runDirectories(daemon.runRoot)).toEqual(before)
    const ended = await runCli(["replay", SAMPLE, "--model", MODEL], daemon.env, { input: "" })
    expect(ended.code).toBe(1)
    expect(ended.stderr).toContain("The replay was not approved; nothing was started.")
    expect(runDirectories(daemon.runRoot)).toEqual(before)
  })

  it("cancels its runs on Ctrl-C and leaves no Codex process behind", async () => {
    const root = scratch("codex-replay-cancel-")
    const pidfile = path.join(root, "fake.pids")
    const marker = path.join(root, "survived")
    const hanging = await startDaemon({
      FAKE_CODEX_SCENARIO: "hang",
      FAKE_CODEX_PIDFILE: pidfile,
      FAKE_CODEX_MARKER: marker,
      // Past what a busy machine takes from the tool's start to the cancellation (1.5 s once was not), and
      // waited out below: a grandchild that survived would write the marker.
      FAKE_CODEX_MARKER_DELAY_MS: "4000"
    })
    try {
      const cli = spawnCli(["replay", SAMPLE, "--model", MODEL, "--yes"], hanging.env)
      await waitUntil("the implementation to start", () => cli.stdout().includes(`[${MODEL}] Implementing with Codex`) && fs.existsSync(pidfile))
      const runId = /started (run-\S+)/.exec(cli.stdout())?.[1]
      expect(runId).toBeDefined()
      const pids = fakeCodexPids(pidfile)
      expect(pids.length).toBe(2)
      expect(pids.every(isAlive)).toBe(true)
      cli.child.kill("SIGINT")
      const result = await cli.done
      expect(result.code).toBe(130)
      expect(result.stdout).toContain("Cancelling…")
      expect(result.stdout).toContain(`[${MODEL}] cancelled ${runId}`)
      const state = JSON.parse(fs.readFileSync(path.join(hanging.runRoot, runId!, "controller-state.json"), "utf8")) as {
        status: string
        cancellation_reason: string
      }
      expect(state.status).toBe("cancelled")
      expect(state.cancellation_reason).toBe("user_requested")
      await waitUntil("the fake Codex processes to end", () => leftBehind(pidfile, pids).length === 0, 5_000)
      await new Promise((resolve) => setTimeout(resolve, 4_500))
      expect(fs.existsSync(marker)).toBe(false)
    } finally {
      await hanging.stop()
      fs.rmSync(root, { recursive: true, force: true })
    }
  })

  it("reports a failed run: its error in the JSON, a summary on stderr, exit code 1", async () => {
    const crashing = await startDaemon({ FAKE_CODEX_SCENARIO: "crash" })
    try {
      const result = await runCli(["replay", SAMPLE, "--model", MODEL, "--yes", "--json"], crashing.env, { timeoutMillis: 60_000 })
      expect(result.code).toBe(1)
      const answer = JSON.parse(result.stdout) as { runs: ReadonlyArray<{ status: string; error: string; report_html: string | null }> }
      expect(answer.runs).toHaveLength(1)
      expect(answer.runs[0]).toMatchObject({ status: "failed", report_html: null })
      expect(answer.runs[0]?.error).toContain("fake panic for tests")
      expect(result.stderr).toContain(`codex-replay: 1 of 1 replay(s) did not complete: ${MODEL} failed (thread 'main' panicked`)
    } finally {
      await crashing.stop()
    }
  })

  it("answers a controller-side mistake clearly and writes no run", async () => {
    const unknownModel = await runCli(["replay", SAMPLE, "--model", "gpt-nonexistent", "--yes"], daemon.env)
    expect(unknownModel.code).toBe(1)
    expect(unknownModel.stderr).toContain("codex-replay: Unknown Codex model: gpt-nonexistent. Choose one of:")
    const unknownReviewer = await runCli(["replay", SAMPLE, "--model", MODEL, "--reviewer-model", "gpt-nope", "--yes"], daemon.env)
    expect(unknownReviewer.code).toBe(1)
    expect(unknownReviewer.stderr).toContain("codex-replay: Unknown reviewer model (reviewer_model): gpt-nope. Choose one of:")
    const unknownThread = await runCli(["replay", "sample-no-such-sample", "--model", MODEL, "--yes"], daemon.env)
    expect(unknownThread.code).toBe(1)
    expect(unknownThread.stderr).toMatch(/codex-replay: .*(sample|thread)/i)
    expect(unknownThread.stderr).not.toMatch(/\bat .+\.js:\d+/)
    // The runs of the two replays above (two models, then one on a terminal), and nothing more.
    expect(runDirectories(daemon.runRoot)).toHaveLength(3)
  })
})

describe("codex-replay open", () => {
  it("prints the URL of the install's running controller", async () => {
    const result = await runCli(["open"], daemon.env)
    expect(result.code).toBe(0)
    expect(result.stdout).toBe(`${daemon.launchUrl}\n`)
  })
})
