import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runCli } from "../../cli/support.js"
import { type Daemon, startDaemon } from "../../rpc/support.js"

const SAMPLE = "sample-hello-cli"
const MODEL = "gpt-5.6-terra"
const REVIEWER = "gpt-5.6-luna"
/** A fixture thread Claude only created files in: ready to replay. */
const CREATED_ONLY = "c45af7b1-cb7c-4e51-93db-8cbb250a877a"

let daemon: Daemon

beforeAll(async () => {
  daemon = await startDaemon()
})

afterAll(async () => {
  await daemon?.stop()
})

type Json = Record<string, any>
const readJson = (file: string) => JSON.parse(fs.readFileSync(file, "utf8")) as Json

describe("every dollar counted", () => {
  it("estimates the run before approval, then counts the implementation and every review call in run.json, the report and the CLI", async () => {
    const result = await runCli(["replay", SAMPLE, "--model", MODEL, "--reviewer-model", REVIEWER, "--yes", "--json"], daemon.env, { timeoutMillis: 60_000 })
    expect(result.stderr).not.toContain("codex-replay:")
    expect(result.code).toBe(0)
    // The estimate comes before the approval, with its basis.
    const estimate = result.stderr.indexOf("Cost:       Estimated cost: about $")
    expect(estimate).toBeGreaterThan(-1)
    expect(estimate).toBeLessThan(result.stderr.indexOf(`Approve a Codex replay of ${SAMPLE} with ${MODEL}? yes (--yes)`))
    expect(result.stderr).toMatch(/Estimated cost: about \$\S+ for 1 run \(Codex implementation \$\S+, evaluation \$\S+ for two review orders per run, at API-equivalent prices\)\. An estimate from /)

    const run = (JSON.parse(result.stdout) as { runs: Array<{ run_id: string; report_json: string; report_html: string; verdict: Json }> }).runs[0]!
    const record = readJson(path.join(daemon.runRoot, run.run_id, "run.json"))
    const calls = record.spend.calls as Array<Json>
    // The implementation and both review orders, each with its tokens and its price (the fake codex reports usage).
    expect(calls.map((call) => call.purpose)).toEqual(["implementation", "review", "review"])
    expect(calls.map((call) => call.label)).toEqual(["implementation", "review:codex:ab", "review:codex:ba"])
    expect(calls.map((call) => call.model)).toEqual([MODEL, REVIEWER, REVIEWER])
    for (const call of calls) {
      expect(call.tokens.ordinary_input + call.tokens.cache_read).toBeGreaterThan(0)
      expect(call.cost_usd).toBeGreaterThan(0)
    }
    expect(record.spend.implementation.usd).toBeCloseTo(record.codex.cost.usd, 12)
    expect(record.spend.evaluation).toEqual({ usd: calls[1]!.cost_usd + calls[2]!.cost_usd, calls: 2, unpriced_calls: 0 })

    // The report keeps the same ledger and shows it apart from the comparison.
    const report = readJson(run.report_json)
    expect(report.spend).toEqual(record.spend)
    const html = fs.readFileSync(run.report_html, "utf8")
    expect(html).toContain("What it cost to know")
    expect(html).toContain("review:codex:ba")
    // The run's summary and the CLI's verdict carry it too.
    const state = readJson(path.join(daemon.runRoot, run.run_id, "controller-state.json"))
    expect(state.report_summary.spend.evaluation.calls).toBe(2)
    expect(run.verdict.spend.evaluation.calls).toBe(2)

    const shown = await runCli(["report", run.run_id], daemon.env)
    expect(shown.stdout).toMatch(/^Cost: {4}Codex \$\S+ · Claude \S+ · evaluation \$\S+ in 2 calls \(what it cost to know\)$/m)
    const runs = await runCli(["runs", "--query", run.run_id], { ...daemon.env, COLUMNS: "400" })
    // The run's tokens and its cost split into the implementation and the evaluation, two decimals each.
    expect(runs.stdout).toMatch(new RegExp(`│ ${run.run_id} │.*│ +[\\d,]+ │ +[\\d,]+ │ +(\\$\\d+\\.\\d\\d|<\\$0\\.01) │ +(\\$\\d+\\.\\d\\d|<\\$0\\.01) │`))
    const listed = JSON.parse((await runCli(["runs", "--query", run.run_id, "--json"], daemon.env)).stdout) as { runs: Array<Json> }
    expect(listed.runs[0]!.spend.evaluation.calls).toBe(2)
    expect(listed.runs[0]!.tokens.input).toBeGreaterThan(0)
  }, 90_000)

  it("counts Claude's cost once for a thread replayed by two models, in the batch and its portfolio", async () => {
    const result = await runCli(["batch", "--threads", CREATED_ONLY, "--model", MODEL, "--model", REVIEWER, "--reviewer-model", "gpt-5.5", "--yes", "--json"], daemon.env, {
      timeoutMillis: 120_000
    })
    expect(result.stderr).not.toContain("codex-replay:")
    expect(result.code).toBe(0)
    expect(result.stderr).toMatch(/Cost: {7}Estimated cost: about \$\S+ for 2 runs /)
    const answer = JSON.parse(result.stdout) as { batch: Json; portfolio: Json }
    expect(answer.batch.counts.completed).toBe(2)
    const reports = (answer.batch.items as Array<Json>).map((item) => readJson(path.join(daemon.runRoot, item.run_id, "report.json")))
    const claude = reports[0]!.candidates.claude.cost.usd as number
    expect(claude).toBeGreaterThan(0)
    expect(reports[1]!.candidates.claude.cost.usd).toBe(claude)
    // Once, not once per model.
    expect(answer.batch.cost_usd.claude).toBeCloseTo(claude, 12)
    expect(answer.batch.cost_usd.evaluation).toBeCloseTo(reports[0]!.spend.evaluation.usd + reports[1]!.spend.evaluation.usd, 12)
    expect(result.stderr).toMatch(/· Claude \$\S+ \(once per thread\) · evaluation \$\S+/)
    expect(answer.portfolio.cost_usd.claude.total).toBeCloseTo(claude, 12)
    expect(answer.portfolio.cost_usd.threads).toBe(1)
    expect(answer.portfolio.cost_usd.codex.total).toBeCloseTo(reports[0]!.candidates.codex.cost.usd + reports[1]!.candidates.codex.cost.usd, 12)
    const html = fs.readFileSync(answer.batch.portfolio.portfolio_html, "utf8")
    expect(html).toContain("counted once per thread (1 thread)")

    const portfolio = await runCli(["portfolio", ...answer.batch.items.map((item: Json) => item.run_id)], daemon.env)
    expect(portfolio.code).toBe(0)
    expect(portfolio.stdout).toMatch(/All runs: Codex implementations \$\S+ in all, .*· Claude \$\S+ in all, counted once per thread \(1 thread\) · evaluation \$\S+ in all/)

    // Again, as a person reads it: the estimate now rests on the earlier runs of the same thread and models.
    const again = await runCli(["batch", "--threads", CREATED_ONLY, "--model", MODEL, "--model", REVIEWER, "--reviewer-model", "gpt-5.5", "--yes"], daemon.env, {
      timeoutMillis: 120_000
    })
    expect(again.code).toBe(0)
    // The batch's replays as a table: its threads by title, and the counts in a totals row.
    expect(again.stdout).toMatch(/│ Run +│ Thread +│ Model +│ Status +│ Verdict +│/)
    expect(again.stdout).toMatch(/│ Total +│ 1 thread\(s\) +│ +│ 2 of 2 completed +│ Codex wins \d · Claude wins \d · neither \d +│/)
    const output = again.stdout + again.stderr
    expect(output).toContain("An estimate from the mean of 2 earlier run(s) of the same thread and model;")
    expect(output).toMatch(/All runs: Codex implementations \$\S+ in all, .*· Claude \$\S+ in all, counted once per thread \(1 thread\) · evaluation \$\S+ in all/)
  }, 240_000)
})
