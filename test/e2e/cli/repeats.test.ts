import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runCli } from "../../cli/support.js"
import { type Daemon, startDaemon } from "../../rpc/support.js"

const SAMPLE = "sample-hello-cli"
const MODEL = "gpt-5.6-terra"

let daemon: Daemon

beforeAll(async () => {
  daemon = await startDaemon()
})

afterAll(async () => {
  await daemon?.stop()
})

describe("--repeats", () => {
  it("replay --repeats 2 runs the model twice from the same start and prints the repeats' outcomes (--yes --json)", async () => {
    const result = await runCli(["replay", SAMPLE, "--model", MODEL, "--repeats", "2", "--yes", "--json"], daemon.env, { timeoutMillis: 60_000 })
    expect(result.stderr).not.toContain("codex-replay:")
    expect(result.code).toBe(0)
    expect(result.stderr).toContain("Repeats:    each model 2 times from the same start (each repeat a run)\n")
    expect(result.stderr).toContain("Approve 2 parallel Codex implementations (each model 2 times) using this configuration? yes (--yes)")
    const answer = JSON.parse(result.stdout) as {
      runs: ReadonlyArray<{ run_id: string; model: string; status: string }>
      repeats: ReadonlyArray<{ model: string; of: number; text: string; outcomes: ReadonlyArray<{ run_id: string; index: number; status: string }> }>
    }
    expect(answer.runs.map((run) => [run.model, run.status])).toEqual([[MODEL, "completed"], [MODEL, "completed"]])
    const runIds = answer.runs.map((run) => run.run_id)
    expect(answer.repeats).toHaveLength(1)
    expect(answer.repeats[0]!.outcomes.map((outcome) => [outcome.run_id, outcome.index, outcome.status])).toEqual([
      [runIds[0], 1, "completed"],
      [runIds[1], 2, "completed"]
    ])
    expect(answer.repeats[0]!.text).toMatch(new RegExp(`^Repeats: 2 of ${MODEL} from this start — [A-Z][^,]*, [A-Z][^,]* \\([12] of 2 agree\\)$`))
    for (const [index, runId] of runIds.entries()) {
      const state = JSON.parse(fs.readFileSync(path.join(daemon.runRoot, runId, "controller-state.json"), "utf8"))
      expect(state.repeat).toMatchObject({ index: index + 1, of: 2 })
    }

    // The portfolio of the two repeats counts one observation and says how often they agree.
    const portfolio = await runCli(["portfolio", ...runIds], daemon.env, { timeoutMillis: 30_000 })
    expect(portfolio.code).toBe(0)
    expect(portfolio.stdout).toMatch(/ {2}Repeats: {8}repeats agree on the winner in [01] of 1 repeated \(thread, model\) cell\(s\) \((0|100)%\); mean pairwise agreement (0|100)%/)
  }, 120_000)
})
