import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runCli, runDirectories } from "../../cli/support.js"
import { type Daemon, startDaemon } from "../../rpc/support.js"

const SAMPLE = "sample-hello-cli"
const MODEL = "gpt-5.6-terra"
const FAKE_CLAUDE = path.resolve(import.meta.dirname, "../../fake-claude/claude")

let daemon: Daemon
/** Where the controller looks for Claude Code: absent at first, then a copy of the fake claude. */
let claudePath: string

beforeAll(async () => {
  const place = fs.mkdtempSync(path.join(process.env.TMPDIR ?? "/tmp", "codex-replay-claude-"))
  claudePath = path.join(place, "claude")
  // The Codex reviewer prefers Claude's patch (it alone defines main) in both orders; the fake claude prefers Codex's.
  daemon = await startDaemon({ CODEX_REPLAY_CLAUDE_PATH: claudePath, OPENAI_API_KEY: "sk-controller-secret-for-codex", FAKE_CODEX_REVIEW_PREFER: "def main" })
})

afterAll(async () => {
  await daemon?.stop()
  fs.rmSync(path.dirname(claudePath), { recursive: true, force: true })
})

type Json = Record<string, any>

const run0Id = (stdout: string) => (JSON.parse(stdout) as { runs: Array<{ run_id: string }> }).runs[0]!.run_id

describe("codex-replay replay --second-judge", () => {
  it("refuses an unknown second judge or a malformed model in one sentence, before anything is contacted or written", async () => {
    for (const [args, sentence] of [
      [["replay", SAMPLE, "--model", MODEL, "--second-judge", "gemini"], "Unknown second judge \"gemini\": the only second judge is claude (or claude:MODEL, such as claude:sonnet)."],
      [["replay", SAMPLE, "--model", MODEL, "--second-judge", "claude:"], "The second judge's model \"\" is not a Claude model name: give claude or claude:MODEL, such as claude:sonnet."],
      [["batch", "--threads", SAMPLE, "--model", MODEL, "--second-judge", "gpt-5.5"], "Unknown second judge \"gpt-5.5\": the only second judge is claude (or claude:MODEL, such as claude:sonnet)."]
    ] as const) {
      const result = await runCli([...args, "--yes"], daemon.env)
      expect(result.code).not.toBe(0)
      expect(result.stderr.trim()).toBe(`codex-replay: ${sentence}`)
      expect(result.stdout).toBe("")
    }
    expect(runDirectories(daemon.runRoot)).toEqual([])
  })

  it("refuses the second judge when Claude Code is not installed, saying why, and starts nothing", async () => {
    const result = await runCli(["replay", SAMPLE, "--model", MODEL, "--second-judge", "claude", "--yes"], daemon.env, { timeoutMillis: 60_000 })
    expect(result.code).not.toBe(0)
    expect(result.stderr).toContain(`codex-replay: The second judge claude cannot run: CODEX_REPLAY_CLAUDE_PATH does not name an executable file (${claudePath}); install Claude Code or leave out the second judge.`)
    expect(runDirectories(daemon.runRoot)).toEqual([])
  })

  it("with Claude Code, judges both orders too, records its cost, and the verdict says split when the judges disagree", async () => {
    fs.copyFileSync(FAKE_CLAUDE, claudePath)
    fs.chmodSync(claudePath, 0o755)
    // The fake claude favours the candidate whose patch adds the fake codex's file; the fake Codex reviewer
    // favours Claude's in both orders: the judges split.
    const envFile = path.join(daemon.root, "claude-env.jsonl")
    fs.writeFileSync(path.join(daemon.root, ".fake-claude.json"), JSON.stringify({ prefer: "FAKE_CODEX_OUTPUT", "env-file": envFile, cost: "0.02" }))
    const result = await runCli(["replay", SAMPLE, "--model", MODEL, "--second-judge", "claude:claude-test", "--yes", "--json"], daemon.env, { timeoutMillis: 90_000 })
    expect(result.stderr).not.toContain("codex-replay:")
    expect(result.code).toBe(0)
    expect(result.stderr).toContain("Second judge: claude:claude-test (Claude Code, both orders; its cost is counted)\n")
    // The estimate before approval includes the second judge, priced as the documented default (its model has no known price).
    expect(result.stderr).toMatch(/and the second judge's two orders \(claude:claude-test\), about \$\S+ from the result's size at claude-sonnet-4-6's API prices, assumed because claude:claude-test names no model whose price is known/)
    // The run's spend ledger counts the second judge's two calls in the evaluation.
    const ledger = (JSON.parse(fs.readFileSync(path.join(daemon.runRoot, run0Id(result.stdout), "run.json"), "utf8")) as Json).spend
    expect(ledger.calls.filter((call: Json) => call.purpose === "second_judge").map((call: Json) => [call.label, call.cost_usd])).toEqual([
      ["second_judge:claude:ab", 0.02],
      ["second_judge:claude:ba", 0.02]
    ])
    const run = (JSON.parse(result.stdout) as { runs: Array<Json> }).runs[0]!
    expect(run.status).toBe("completed")
    expect(run.verdict.judges_split).toBe(true)
    expect(run.verdict.second_judge).toMatchObject({ judge: "claude", model: "claude-test", status: "completed", winner: "codex", agreement: "split", cost_usd: 0.04 })

    const report = JSON.parse(fs.readFileSync(run.report_json, "utf8")) as Json
    expect(report.winner).toBe("claude")
    const second = report.evaluation.second_judge
    expect(second.evaluation.reviews.map((review: Json) => [review.order, review.status, review.evaluator, review.model])).toEqual([
      ["AB", "completed", "claude", "claude-test"],
      ["BA", "completed", "claude", "claude-test"]
    ])
    expect(second.calls.map((call: Json) => [call.purpose, call.label, call.cost_usd])).toEqual([
      ["second_judge", "second_judge:claude:ab", 0.02],
      ["second_judge", "second_judge:claude:ba", 0.02]
    ])
    expect(report.evaluation.judges_split).toBe(true)
    const state = JSON.parse(fs.readFileSync(path.join(daemon.runRoot, run.run_id, "controller-state.json"), "utf8")) as Json
    expect(state.report_summary.judges_split).toBe(true)
    expect(state.report_summary.second_judge).toMatchObject({ winner: "codex", agreement: "split" })
    const html = fs.readFileSync(run.report_html, "utf8")
    // The headline says Split, once; each judge's verdict is in the second judge's section.
    expect(html).toContain(`<h2 class="verdict-headline">Split</h2>`)
    expect(html).not.toContain(`<span class="judges-split"`)
    expect(html).toMatch(/<p class="first-judge-verdict" id="first-judge-verdict">First judge \(Codex, [\w.-]+\): Claude\.<\/p>/)
    expect(html).toContain("Second judge (Claude, claude-test): Codex; split: the two judges disagree on the overall winner.")

    // Claude Code got none of the controller's secrets: not its session, its API token, nor OpenAI's key.
    const seen = fs.readFileSync(envFile, "utf8").trim().split("\n").map((line) => JSON.parse(line) as { env: Record<string, string>; files: Array<string> })
    expect(seen).toHaveLength(2)
    for (const { env, files } of seen) {
      const text = JSON.stringify(env)
      expect(text).not.toContain(daemon.apiToken)
      expect(text).not.toContain(daemon.token)
      expect(text).not.toContain("sk-controller-secret-for-codex")
      // Only the run's tag, so that the run's end sweeps whatever Claude Code left running.
      expect(Object.keys(env).filter((name) => /^(CODEX|OPENAI)/.test(name))).toEqual(["CODEX_REPLAY_RUN_TAG"])
      expect(env.CODEX_REPLAY_RUN_TAG).toBe(run.run_id)
      expect(files).toEqual(["candidate-a.json", "candidate-b.json"])
    }

    // The same through `codex-replay report`, in text.
    const text = await runCli(["report", run.run_id], daemon.env)
    const lines = text.stdout.split("\n")
    // A split replaces the winner, and no tally is printed: each judge's verdict is on the next line.
    expect(lines[1]).toBe("Verdict: Split")
    expect(lines[2]).toBe("Judges:  Codex reviewer: Claude · Second judge (Claude, claude-test): Codex; split: the two judges disagree on the overall winner.")

    // `runs` marks it.
    const runs = await runCli(["runs"], { ...daemon.env, COLUMNS: "400" })
    expect(runs.stdout.split("\n").find((line) => line.includes(run.run_id))).toMatch(/│ completed +│ split +│/)

    // The portfolio counts the split.
    const portfolio = await runCli(["portfolio", run.run_id], daemon.env)
    expect(portfolio.stdout).toContain(`  Judges split:   1 of 1 run(s) a second judge (Claude) also judged: ${run.run_id}`)
  }, 120_000)

  it("batch --second-judge has Claude judge every replay of the batch, and its portfolio counts the splits", async () => {
    expect(fs.existsSync(claudePath)).toBe(true)
    const result = await runCli(["batch", "--threads", SAMPLE, "--model", MODEL, "--second-judge", "claude", "--yes", "--json"], daemon.env, { timeoutMillis: 90_000 })
    expect(result.stderr).not.toContain("codex-replay:")
    expect(result.code).toBe(0)
    expect(result.stderr).toContain("Second judge: claude (Claude Code, both orders; its cost is counted)\n")
    const answer = JSON.parse(result.stdout) as Json
    const model = answer.portfolio.models[0]
    expect(model.runs).toHaveLength(1)
    expect(model.second_judge.judged.count).toBe(1)
    expect(model.second_judge.split.count).toBe(1)
    const report = JSON.parse(fs.readFileSync(path.join(daemon.runRoot, model.runs[0].run_id, "report.json"), "utf8")) as Json
    expect(report.evaluation.second_judge).toMatchObject({ model: null, winner: "codex", agreement: "split" })
    // Without a model named, each ballot records the model Claude Code said it used.
    expect(report.evaluation.second_judge.evaluation.reviews.map((review: Json) => review.model)).toEqual(["claude-default", "claude-default"])
  }, 120_000)
})
