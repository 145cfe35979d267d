import { Either, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { batchProgressText, type BatchRecord, estimateRemainingMs, summarizeBatch, type RunView } from "../../src/domain/batch.js"
import { PrepareRunPayload, StartPayload } from "../../src/domain/contracts/index.js"
import { describeParseError } from "../../src/domain/toolResult.js"

const item = (n: number, model: string, extra: Partial<BatchRecord["items"][number]> = {}): BatchRecord["items"][number] => ({
  configuration_index: n,
  thread_id: `t${n}`,
  model,
  run_id: null,
  claude_usd: 0.5,
  ...extra
})

const record = (items: BatchRecord["items"], status: BatchRecord["status"] = "running"): BatchRecord => ({
  schema_version: 1,
  batch_id: "batch-20260101T000000Z-0123456789",
  status,
  controller_session_id: "a".repeat(32),
  coordinator_pid: 1,
  coordinator_start_time: null,
  created_at: "2026-01-01T00:00:00.000Z",
  ended_at: null,
  prepare_token_hash: "h",
  reviewer_model: "gpt-5.5",
  blocked: [{ index: 2, thread_id: "t2", reasons: ["Confirm that the replay starts from an empty folder: pass --accept-empty-beginning to `batch` or tick “Accept empty beginnings” in the batch form."] }],
  items,
  resumed_by: [],
  portfolio: null
})

const run = (status: string, phase = "implementing", winner: string | null = null): RunView => ({
  status,
  phase,
  started_at: "2026-01-01T00:00:00.000Z",
  winner
})

describe("a batch's summary", () => {
  it("gives each replay's checks sentence from its run, null for a run without checks or before it has one", () => {
    const sentence = "checks: Codex 2 of 2, Claude 1 of 2; Codex fixed `npm test`, which Claude's result still failed."
    const runs = new Map([["r1", { ...run("completed", "reporting", "codex"), checks: sentence }], ["r2", run("completed", "reporting", "tie")]])
    const summary = summarizeBatch(record([item(0, "m", { run_id: "r1" }), item(1, "m", { run_id: "r2" }), item(2, "m")]), runs, 0)
    expect(summary.items.map((entry) => entry.checks)).toEqual([sentence, null, null])
  })

  it("counts a replay of a running batch as ended once the batch recorded its time and cost, so counts and cost move together", () => {
    const runs = new Map([["r1", run("completed")], ["r2", run("completed")]])
    const items = [item(0, "m", { run_id: "r1", elapsed_ms: 1000, codex_usd: 0.25 }), item(1, "m", { run_id: "r2" })]
    const running = summarizeBatch(record(items), runs, Date.parse("2026-01-01T00:01:00.000Z"))
    expect(running.counts).toMatchObject({ completed: 1, running: 1 })
    expect(running.cost_usd.codex).toBe(0.25)
    // A batch that ended counts its runs as they ended, recorded or not (a cancelled batch stops recording).
    expect(summarizeBatch(record(items, "cancelled"), runs, 0).counts).toMatchObject({ completed: 2, running: 0 })
  })

  const items = [
    item(0, "m1", { run_id: "r1", elapsed_ms: 60_000, codex_usd: 0.25 }),
    item(0, "m2", { run_id: "r2", elapsed_ms: 120_000, codex_usd: null }),
    item(1, "m1", { run_id: "r3", elapsed_ms: 90_000 }),
    item(1, "m2", { run_id: "r4" }),
    item(3, "m1", { run_id: "r5" }),
    item(3, "m2"),
    item(4, "m1", { error: "The repository changed since preparation. Prepare the replay again." }),
    item(4, "m2")
  ]
  const runs = new Map<string, RunView>([
    ["r1", run("completed", "reporting", "codex")],
    ["r2", run("completed", "reporting", "claude")],
    ["r3", run("failed")],
    ["r4", run("running", "reviewing")],
    // A run id written into the record whose run was not created yet.
  ])

  it("counts per status, the runs in progress, elapsed time and cost on both sides", () => {
    const summary = summarizeBatch(record(items), runs, Date.parse("2026-01-01T00:10:00.000Z"))
    expect(summary.counts).toEqual({ pending: 3, running: 1, completed: 2, failed: 2, cancelled: 0 })
    expect(summary.total).toBe(8)
    expect(summary.threads).toBe(4)
    expect(summary.models).toEqual(["m1", "m2"])
    expect(summary.current_runs).toEqual([{ run_id: "r4", thread_id: "t1", model: "m2", phase: "reviewing" }])
    expect(summary.elapsed_ms).toBe(600_000)
    // Codex: the priced completed run; Claude: its thread's cost once, though both models replayed it.
    expect(summary.cost_usd).toMatchObject({ codex: 0.25, claude: 0.5, unpriced_runs: 1 })
    // Mean 90 s over the three ended runs; 3 pending and 1 running (half done), 4 at a time.
    expect(summary.estimate_remaining_ms).toBe(Math.round((90_000 * 3.5) / 4))
    expect(summary.items[0]).toMatchObject({ run_id: "r1", status: "completed", winner: "codex" })
    expect(summary.items[6]).toMatchObject({ status: "failed", error: "The repository changed since preparation. Prepare the replay again." })
    expect(batchProgressText(summary)).toBe(
      "Batch batch-20260101T000000Z-0123456789 is running: 4 of 8 replay(s) done (2 completed, 2 failed), 1 running, 3 pending."
    )
  })

  it("a cancelled batch's replays that never started count as cancelled, and nothing is left to wait for", () => {
    const summary = summarizeBatch({ ...record(items, "cancelled"), ended_at: "2026-01-01T00:05:00.000Z" }, runs, Date.parse("2026-01-01T01:00:00.000Z"))
    expect(summary.counts).toEqual({ pending: 0, running: 1, completed: 2, failed: 2, cancelled: 3 })
    expect(summary.elapsed_ms).toBe(300_000)
    expect(summary.estimate_remaining_ms).toBe(0)
  })

  it("estimates the time left from the mean duration of the ended runs, the limit at a time", () => {
    expect(estimateRemainingMs([], 10, 0)).toBeNull()
    expect(estimateRemainingMs([300_000], 0, 0)).toBe(0)
    // 100 threads × 2 models at 5 minutes each, 4 at a time: 250 minutes.
    expect(estimateRemainingMs([300_000], 200, 0, 4)).toBe(250 * 60_000)
    expect(estimateRemainingMs([60_000, 120_000], 2, 2, 4)).toBe(Math.round((90_000 * 3) / 4))
  })
})

const message = (schema: Schema.Schema<any, any>, input: unknown) =>
  Either.match(Schema.decodeUnknownEither(schema)(input), { onLeft: describeParseError, onRight: () => "valid" })

describe("a batch's cost", () => {
  it("counts Claude's cost once per thread however many models replayed it, and the evaluation's cost apart", () => {
    // One thread (Claude $0.951) replayed by two models: $0.951, not $1.90.
    const items = [
      item(0, "m1", { run_id: "r1", claude_usd: 0.951, elapsed_ms: 1, codex_usd: 0.2, evaluation_usd: 0.05 }),
      item(0, "m2", { run_id: "r2", claude_usd: 0.951, elapsed_ms: 1, codex_usd: 0.3, evaluation_usd: null }),
      item(1, "m1", { run_id: "r3", claude_usd: 0.1, elapsed_ms: 1, codex_usd: 0.1 })
    ]
    const runs = new Map([["r1", run("completed")], ["r2", run("completed")], ["r3", run("completed")]])
    const summary = summarizeBatch(record(items, "finished"), runs, 0)
    expect(summary.cost_usd.claude).toBeCloseTo(0.951 + 0.1, 12)
    expect(summary.cost_usd.codex).toBeCloseTo(0.6, 12)
    expect(summary.cost_usd.evaluation).toBeCloseTo(0.05, 12)
    expect(summary.cost_usd.evaluation_unpriced_runs).toBe(1)
  })
})

describe("prepare_run and start_run take one configuration or a batch", () => {
  it("a batch is 1 to 100 configurations, never beside a configuration of its own", () => {
    expect(message(PrepareRunPayload, { configurations: [{}] })).toBe("valid")
    expect(message(PrepareRunPayload, { configurations: [] })).toBe("configurations must list from 1 through 100 replay configurations.")
    expect(message(PrepareRunPayload, { configurations: Array.from({ length: 101 }, () => ({})) })).toBe(
      "configurations must list from 1 through 100 replay configurations."
    )
    expect(message(PrepareRunPayload, { configurations: [{}], thread_id: "t", model: "m" })).toBe(
      "Give either configurations (a batch) or one configuration, not both (remove thread_id, model)."
    )
    expect(message(PrepareRunPayload, { configurations: [{}], reviewer_model: "bad model" })).toBe(
      "reviewer_model must be a Codex model id such as gpt-5.5."
    )
    expect(message(StartPayload, { configurations: [{}], approved: true, prepare_token: "short" })).toBe(
      "Prepare and approve this exact configuration before starting (prepare_token)."
    )
  })

  it("one configuration reads as it always has", () => {
    expect(message(PrepareRunPayload, { thread_id: 5 })).toBe("The thread (thread_id) is required and must be a non-empty string.")
    expect(message(PrepareRunPayload, { configurations: null, thread_id: 5 })).toBe("The thread (thread_id) is required and must be a non-empty string.")
    expect(message(StartPayload, { thread_id: 5 })).toBe("Explicit approval (approved: true) is required before starting a replay.")
  })
})
