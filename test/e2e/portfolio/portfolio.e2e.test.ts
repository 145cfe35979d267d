/**
 * The portfolio verdict of real completed runs: the real daemon runs the packaged sample with two
 * models through the fake Codex CLI, then `make_portfolio` (over /api/call) and `codex-replay
 * portfolio` (the built CLI, in its own process) count them and write portfolios/<id>/ in the run root.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { listTree } from "../../support/daemon.js"
import { runCli } from "../../cli/support.js"
import { parseCsv } from "../../support/csv.js"
import {
  approveAndStart,
  awaitTerminal,
  type Daemon,
  eventually,
  killAllDaemons,
  MODELS,
  nonGitConfig,
  readLog,
  scratch,
  startDaemon
} from "../../runs/support.js"

let daemon: Daemon
let completed: Array<string> = []
let cancelled: string

const portfolios = () => path.join(daemon.runRoot, "portfolios")
const modeOf = (file: string) => fs.statSync(file).mode & 0o777

beforeAll(async () => {
  daemon = await startDaemon()
  const started = await approveAndStart(daemon, nonGitConfig({ model: undefined, models: [MODELS[0], MODELS[1]] }))
  completed = started.runs.map((run: { run_id: string }) => run.run_id)
  for (const runId of completed) expect((await awaitTerminal(daemon, runId)).status).toBe("completed")
  const hanging = await approveAndStart(daemon, nonGitConfig({ request: "Create greet.py.\nfake-scenario: hang" }))
  cancelled = hanging.run_id
  await eventually(() => (readLog(daemon.runRoot, cancelled).includes("\"command_execution\"") ? true : undefined))
  await daemon.call("cancel_run", { run_id: cancelled })
}, 120_000)

afterAll(async () => {
  await daemon?.stop()
  expect(await killAllDaemons()).toBe(0)
})

describe("make_portfolio", () => {
  it("counts completed runs per model and writes portfolio.json and portfolio.html, private and linked to each report", async () => {
    const answer = await daemon.call("make_portfolio", { run_ids: completed })
    expect(answer.portfolio_id).toMatch(/^portfolio-\d{8}T\d{6}Z-[0-9a-f]{10}$/)
    const directory = path.join(portfolios(), answer.portfolio_id)
    expect(answer.portfolio_json).toBe(path.join(directory, "portfolio.json"))
    expect(answer.portfolio_html).toBe(path.join(directory, "portfolio.html"))
    expect(answer.html).toBeUndefined()
    expect(modeOf(portfolios())).toBe(0o700)
    expect(modeOf(directory)).toBe(0o700)
    expect(modeOf(answer.portfolio_json)).toBe(0o600)
    expect(modeOf(answer.portfolio_html)).toBe(0o600)
    expect(listTree(directory)).toEqual(["portfolio.csv", "portfolio.html", "portfolio.json"])

    const written = JSON.parse(fs.readFileSync(answer.portfolio_json, "utf8"))
    expect(written).toEqual(answer.portfolio)
    expect(written.run_ids).toEqual(completed)
    expect(written.models.map((model: { model: string }) => model.model).sort()).toEqual([MODELS[0], MODELS[1]].sort())
    for (const model of written.models) {
      // Each model's one run, counted as its report says.
      const [runId] = model.runs.map((run: { run_id: string }) => run.run_id)
      const report = JSON.parse(fs.readFileSync(path.join(daemon.runRoot, runId, "report.json"), "utf8"))
      expect(report.candidates.codex.model).toBe(model.model)
      // A verdict its caveats call none (no ballots, orders that disagreed on everything) counts in no figure.
      const noVerdict = (report.caveats as Array<{ kind: string }>).some((caveat) => ["no_verdict", "inconclusive", "split"].includes(caveat.kind))
      const outcome = noVerdict ? "not_counted" : { codex: "wins", claude: "losses", tie: "ties", inconclusive: "not_counted" }[report.winner as string]!
      expect(model.overall[outcome]).toEqual({ count: 1, run_ids: [runId] })
      expect(model.flipped_dimensions.count).toBe(report.evaluation.flips)
      expect(model.time_ms.codex.total).toBe(report.candidates.codex.elapsed_ms)
      expect(model.time_ms.claude.total).toBe(report.candidates.claude.elapsed_ms)
    }

    // Every run link of the page leads to that run's report, embedded in the page itself; nothing leads outside it.
    const html = fs.readFileSync(answer.portfolio_html, "utf8")
    expect(html).not.toMatch(/href="\.\.\//)
    const links = [...html.matchAll(/href="(#report-[^"]+)"/g)].map((match) => match[1]!)
    expect(new Set(links)).toEqual(new Set(completed.map((runId) => `#report-${runId}`)))
    for (const runId of completed) expect(html).toContain(`<section class="embedded-report" id="report-${runId}"`)
    // The grid beside it as CSV, one line per run.
    expect(answer.portfolio_csv).toBe(path.join(directory, "portfolio.csv"))
    expect(modeOf(answer.portfolio_csv)).toBe(0o600)
    expect(fs.readFileSync(answer.portfolio_csv, "utf8").trimEnd().split("\r\n")).toHaveLength(3)
  })

  it("answers the HTML too when asked (the page downloads it)", async () => {
    const answer = await daemon.call("make_portfolio", { run_ids: [completed[0]], include_html: true })
    expect(answer.html).toBe(fs.readFileSync(answer.portfolio_html, "utf8"))
    expect(answer.html_file_name).toBe(`codex-replay-${answer.portfolio_id}.html`)
  })

  it("refuses a bad selection in one sentence and writes nothing", async () => {
    const before = listTree(portfolios())
    const unknown = "run-20260101T000000Z-0000000000"
    const refusals: Array<[unknown, string | RegExp]> = [
      [{}, "run_ids is required."],
      [{ run_ids: "x" }, /^run_ids: /],
      [{ run_ids: [] }, "Choose at least one completed run (run_ids)."],
      [{ run_ids: Array.from({ length: 101 }, (_, index) => `run-${index}`) }, "A portfolio counts at most 100 runs; 101 were chosen."],
      [{ run_ids: [completed[0], completed[0]] }, `Run ${completed[0]} is chosen twice; choose each run once.`],
      [{ run_ids: [completed[0], "../etc"] }, "The run ID ../etc is invalid."],
      [{ run_ids: [completed[0], unknown] }, `No run ${unknown} in ${daemon.runRoot}.`],
      [{ run_ids: [completed[0], "portfolios"] }, `No run portfolios in ${daemon.runRoot}.`],
      [{ run_ids: [completed[0], cancelled] }, `Run ${cancelled} is cancelled, not completed: only a completed run has a verdict to count.`]
    ]
    for (const [args, message] of refusals) {
      const refusal = await daemon.refused("make_portfolio", args)
      if (typeof message === "string") expect(refusal).toBe(message)
      else expect(refusal).toMatch(message)
    }
    expect(listTree(portfolios())).toEqual(before)
  })
})

describe("codex-replay portfolio", () => {
  const env = () => ({ ...process.env, CODEX_REPLAY_RUN_ROOT: daemon.runRoot, CLAUDE_CONFIG_DIR: path.join(daemon.root, "claude") })

  it("prints each model's figures and the paths, and --json the portfolio", async () => {
    const text = await runCli(["portfolio", ...completed], env(), { timeoutMillis: 60_000 })
    expect(text.stderr).toBe("")
    expect(text.code).toBe(0)
    expect(text.stdout).toMatch(/^Portfolio of 2 run\(s\):$/m)
    for (const model of [MODELS[0], MODELS[1]]) expect(text.stdout).toMatch(new RegExp(`^${model}: (Codex leads|Claude leads|Even): Codex won \\d, tied \\d and lost \\d of 1 run( \\(1 without a verdict: not counted\\))?;`, "m"))
    expect(text.stdout).toMatch(/^ {2}Win rate: /m)
    expect(text.stdout).toMatch(/^Report: {2}.*\/portfolios\/portfolio-[^/]+\/portfolio\.html$/m)

    const json = await runCli(["portfolio", "--recent", "5", "--json"], env(), { timeoutMillis: 60_000 })
    expect(json.code).toBe(0)
    const answer = JSON.parse(json.stdout)
    // The cancelled run is not a completed one: --recent takes the two completed runs, newest first.
    expect([...answer.portfolio.run_ids].sort()).toEqual([...completed].sort())
    expect(fs.existsSync(answer.portfolio_html)).toBe(true)
    expect(JSON.parse(fs.readFileSync(answer.portfolio_json, "utf8")).portfolio_id).toBe(answer.portfolio_id)
  }, 120_000)

  it("--csv prints the grid as CSV, one line per run, the same as portfolio.csv beside the page", async () => {
    const before = new Set(fs.existsSync(portfolios()) ? fs.readdirSync(portfolios()) : [])
    const result = await runCli(["portfolio", "--csv", ...completed], env(), { timeoutMillis: 60_000 })
    expect(result.stderr).toBe("")
    expect(result.code).toBe(0)
    const [header, ...records] = parseCsv(result.stdout)
    expect(header).toEqual(["thread_id", "title", "model", "run_id", "status", "verdict", "caveats", "checks", "address"])
    expect(records.map((record) => record[3]).sort()).toEqual([...completed].sort())
    expect(records.map((record) => record[2]).sort()).toEqual([MODELS[0], MODELS[1]].sort())
    // The packaged sample's title, from the history this command reads.
    for (const record of records) expect(record[1]).not.toBe("")
    // The one portfolio this command wrote (ids sort by the second, so two made in one second need not sort by time).
    const written = fs.readdirSync(portfolios()).filter((id) => !before.has(id))
    expect(written).toHaveLength(1)
    expect(fs.readFileSync(path.join(portfolios(), written[0]!, "portfolio.csv"), "utf8")).toBe(result.stdout)
  }, 90_000)

  it("refuses a bad command line in one sentence, exit code 1, writing nothing", async () => {
    const before = listTree(portfolios())
    const cases: Array<[Array<string>, string]> = [
      [["portfolio"], "Choose the runs: give their run ids or --recent N."],
      [["portfolio", completed[0]!, "--recent", "2"], "Give run ids or --recent N, not both."],
      [["portfolio", "--recent", "0"], "--recent must be a whole number from 1 through 100."],
      [["portfolio", "--recent", "many"], "--recent must be a whole number from 1 through 100."],
      [["portfolio", "--csv", "--json", completed[0]!], "Give --csv or --json, not both."],
      [["portfolio", cancelled], `Run ${cancelled} is cancelled, not completed: only a completed run has a verdict to count.`]
    ]
    // In parallel: each process starts Node and Effect, which takes seconds on a busy machine.
    const results = await Promise.all(cases.map(([args]) => runCli(args, env(), { timeoutMillis: 90_000 })))
    for (const [index, [, message]] of cases.entries()) {
      const result = results[index]!
      expect(result.code).toBe(1)
      expect(result.stdout).toBe("")
      expect(result.stderr.trim()).toBe(`codex-replay: ${message}`)
    }
    expect(listTree(portfolios())).toEqual(before)
  }, 120_000)

  it("says so when the run root holds no completed run", async () => {
    const empty = scratch("codex-replay-portfolio-empty-")
    const runRoot = path.join(empty, "runs")
    fs.mkdirSync(runRoot, { mode: 0o700 })
    const result = await runCli(["portfolio", "--recent", "3"], { ...env(), CODEX_REPLAY_RUN_ROOT: runRoot }, { timeoutMillis: 60_000 })
    expect(result.code).toBe(1)
    expect(result.stderr.trim()).toBe(`codex-replay: No completed run in ${runRoot}.`)
    expect(fs.readdirSync(runRoot)).toEqual([])
  }, 90_000)
})
