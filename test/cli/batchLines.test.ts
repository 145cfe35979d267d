import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { BatchRecord, summarizeBatch, type RunView } from "../../src/domain/batch.js"
import { BatchSummary } from "../../src/domain/contracts/index.js"
import { blockedLines, progressLine, readyLines } from "../../src/cli/batch.js"
import { batchTable } from "../../src/cli/batchTable.js"
import { renderTable } from "../../src/cli/table.js"

const item = (n: number, model: string, extra: Partial<BatchRecord["items"][number]> = {}): BatchRecord["items"][number] => ({
  configuration_index: n,
  thread_id: `t${n}`,
  model,
  run_id: null,
  claude_usd: 0.002,
  ...extra
})

const record = (items: BatchRecord["items"]): BatchRecord => ({
  schema_version: 1,
  batch_id: "batch-20260101T000000Z-0123456789",
  status: "finished",
  controller_session_id: "a".repeat(32),
  coordinator_pid: 1,
  coordinator_start_time: null,
  created_at: "2026-01-01T00:00:00.000Z",
  ended_at: "2026-01-01T00:10:00.000Z",
  prepare_token_hash: "h",
  reviewer_model: "gpt-5.5",
  blocked: [],
  items,
  resumed_by: [],
  portfolio: null
})

const completed = (winner: string): RunView => ({ status: "completed", phase: "reporting", started_at: "2026-01-01T00:00:00.000Z", winner })

const ITEMS = [
  item(0, "m1", { run_id: "run-a", elapsed_ms: 1, codex_usd: 0.3725, evaluation_usd: 0.011, tokens: { input: 120_500, output: 3_200 } }),
  item(1, "m1", { run_id: "run-b", elapsed_ms: 1, codex_usd: 0, evaluation_usd: null, tokens: { input: 1_000, output: 50 } })
]
const RUNS = new Map([["run-a", completed("codex")], ["run-b", completed("claude")]])
const TITLES = new Map([["t0", "Fix the login"], ["t1", "Add a CSV export"]])

/** The summary as the command line receives it: encoded by the controller, decoded by the client. */
const throughTheContract = (summary: unknown) => Schema.decodeUnknownSync(BatchSummary)(Schema.encodeUnknownSync(BatchSummary)(summary))

describe("codex-replay batch's lines", () => {
  it("the table shows Codex's tokens and cost and the evaluation's cost, and sums them in the totals row", () => {
    const summary = throughTheContract(summarizeBatch(record(ITEMS), RUNS, 0))
    const lines = renderTable(batchTable(summary, TITLES), { width: undefined, colour: false }).split("\n").map((line) => line.replace(/ +/g, " "))
    expect(lines[1]).toBe("│ Run │ Thread │ Model │ Status │ Verdict │ Input │ Output │ Codex │ Evaluation │")
    expect(lines[3]).toBe("│ run-a │ Fix the login │ m1 │ completed │ Codex wins │ 120,500 │ 3,200 │ $0.37 │ $0.01 │")
    expect(lines[4]).toBe("│ run-b │ Add a CSV export │ m1 │ completed │ Claude wins │ 1,000 │ 50 │ $0.00 │ - │")
    expect(lines.at(-2)).toBe("│ Total │ 2 thread(s) │ │ 2 of 2 completed │ Codex wins 1 · Claude wins 1 · neither 0 │ 121,500 │ 3,250 │ $0.37 │ $0.01 │")
  })

  it("an older batch record, without tokens, still decodes and its table reads -", () => {
    const older = Schema.decodeUnknownSync(BatchRecord)(JSON.parse(JSON.stringify(record([item(0, "m1", { run_id: "run-a", elapsed_ms: 1, codex_usd: 0.2 })]))))
    const summary = throughTheContract(summarizeBatch(older, new Map([["run-a", completed("tie")]]), 0))
    const lines = renderTable(batchTable(summary, new Map()), { width: undefined, colour: false }).split("\n").map((line) => line.replace(/ +/g, " "))
    expect(lines[3]).toBe("│ run-a │ t0 │ m1 │ completed │ tie │ - │ - │ $0.20 │ - │")
    expect(lines.at(-2)).toMatch(/│ - │ - │ \$0\.20 │ - │$/)
  })

  it("the progress line gives every cost with two decimals, <$0.01 below a cent", () => {
    const line = progressLine(throughTheContract(summarizeBatch(record(ITEMS), RUNS, 0)))
    expect(line).toContain("· Codex $0.37 · Claude <$0.01 (once per thread) · evaluation $0.01 (+1 not priced)")
    for (const cost of line.matchAll(/\$[\d.,]+/g)) expect(cost[0]).toMatch(/^\$\d+\.\d\d$/)
  })

  it("names a blocked or warned thread with its title beside its id", () => {
    const titles = new Map([["t0", "Fix the login\u001b[31m"], ["t1", ""]])
    expect(blockedLines([{ thread_id: "t0", reasons: ["No repository.", "Pass --repo."] }, { thread_id: "t9", reasons: ["Gone."] }], titles)).toEqual([
      "Blocked: t0 (Fix the login\\u{1b}[31m): No repository. Pass --repo.",
      "Blocked: t9: Gone."
    ])
    const ready = [
      { index: 0, thread_id: "t0", models: ["m1"], checks: [], setup: [], warnings: ["Not like-for-like."] },
      { index: 1, thread_id: "t1", models: ["m1"], checks: [{ command: "npm test", directory: "." }], setup: [] }
    ]
    expect(readyLines(ready, titles)).toEqual([
      "Warning for t0 (Fix the login\\u{1b}[31m): Not like-for-like.",
      "Checks of t1: npm test; set-up: none"
    ])
  })
})
