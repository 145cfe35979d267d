import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { OpenControllerResult, type ToolName, type ToolResultOf, ToolResults } from "../../src/domain/contracts/index.js"

const run = {
  schema_version: 1,
  controller_session_id: "a".repeat(32),
  run_id: "run-1",
  status: "completed" as const,
  phase: "reporting",
  phases: [{ id: "reporting", label: "Reporting", status: "done" }],
  events: [{ at: "2026-01-01T00:00:00.000Z", phase: "reporting", status: "done", summary: "Done." }],
  coordinator_pid: 42,
  started_at: "2026-01-01T00:00:00.000Z",
  updated_at: "2026-01-01T00:01:00.000Z",
  completed_at: "2026-01-01T00:01:00.000Z",
  error: null,
  model: "gpt-x",
  report_summary: { winner: "codex" }
}
const snapshot = { ...run, run_log: "started\n" }
const supervision = { controller_session_id: "a".repeat(32), this_controller: true, live: true, read_only: false, controller_url: null }
const batch = {
  batch_id: "batch-20260101T000000Z-0123456789",
  status: "running" as const,
  controller_session_id: "a".repeat(32),
  created_at: "2026-01-01T00:00:00.000Z",
  ended_at: null,
  elapsed_ms: 1000,
  reviewer_model: "gpt-x",
  models: ["gpt-x"],
  threads: 1,
  blocked: [{ index: 1, thread_id: "t2", reasons: ["No repository."] }],
  total: 1,
  counts: { pending: 0, running: 1, completed: 0, failed: 0, cancelled: 0 },
  current_runs: [{ run_id: "run-1", thread_id: "t1", model: "gpt-x", phase: "implementing" }],
  cost_usd: { codex: 0.5, claude: 1.25, unpriced_runs: 0 },
  estimate_remaining_ms: null,
  items: [{ thread_id: "t1", model: "gpt-x", run_id: "run-1", status: "running" as const, phase: "implementing", winner: null, error: null }],
  resumed_by: [],
  portfolio: null
}
const configuration = {
  thread_id: "t1",
  source_path: null,
  message_uuid: null,
  request: "Fix it.",
  repo: "/repo",
  beginning_kind: "git" as const,
  ending_kind: "git" as const,
  baseline_commit: "abcdef1",
  ending_commit: "abcdef2",
  created_by_claude: [],
  excluded_files: [],
  carried_forward_files: [],
  confirm_empty_beginning: false,
  confirm_file_selection: true,
  confirm_repository_selection: true,
  models: ["gpt-x"],
  reviewer_model: null,
  timeout_seconds: 3600,
  range_start: null,
  range_end: null,
  checks: null,
  setup: [{ command: "npm ci", directory: "." }]
}
const thread = {
  imported_thread_id: "t1",
  title: "Fix it",
  project_dir: "/repo",
  git_branch: "main",
  claude_model: "claude-x",
  claude_models: ["claude-x"],
  started_at: null,
  ended_at: null,
  human_turns: 2,
  changed_files: 1,
  tokens: { input: 1, cache_read: 2, cache_write_5m: 3, cache_write_1h: 4, output: 5 },
  cost_usd: null,
  source_path: "/home/.claude/projects/p/t1.jsonl",
  source: "imported" as const
}
/** A value with fields its Schema does not list: they pass through as they are. */
const passing = <A extends object>(value: A, extra: object): A => Object.assign({}, value, extra)

const approval = { required: true as const, prompt: "Approve?", prepare_token: "token" }

const vote = {
  schema_version: 1 as const,
  run_id: "run-1",
  voted_at: "2026-01-01T00:02:30.000Z",
  overall: "codex" as const,
  dimensions: { reliability: "codex", code_quality: "tie", request_fulfillment: "claude", change_scope: "tie", safe_operations: "tie", accurate_reporting: "codex" } as const,
  shown_first: "candidate-b.json" as const
}

/** One answer of every tool, in every shape it takes. */
const samples: { readonly [Name in ToolName]: ReadonlyArray<ToolResultOf<Name>> } = {
  get_state: [{
    state: {
      plugin_version: "0.1.0",
      controller_session_id: "a".repeat(32),
      max_parallel_runs: 4,
      max_replay_threads: 100,
      batch,
      models: [{ id: "gpt-x", label: "GPT X", default: true }],
      reviewer_model: "gpt-x",
      diagnostics: [{ step: "models", message: "Built-in list." }],
      recent_runs: [run],
      run_root: "/runs"
    }
  }],
  get_run: [{ run: { ...snapshot, supervision } }],
  list_runs: [{
    runs: [{
      run_id: "run-1",
      thread_id: "t1",
      model: "gpt-x",
      models: ["gpt-x"],
      status: "completed",
      phase: "reporting",
      phase_label: "Reporting",
      winner: "codex",
      dimensions: { won: 2, tied: 1, lost: 0 },
      possible_leak: null,
      started_at: run.started_at,
      completed_at: run.completed_at,
      updated_at: run.updated_at,
      error: null,
      chunk: { range_start: "u1", range_end: null },
      report_ready: true,
      start_group: "0123456789abcdef",
      supervision
    }],
    total: 1,
    offset: 0,
    limit: 50,
    has_more: false,
    run_root: "/runs",
    diagnostics: []
  }],
  cancel_run: [{ run_id: "run-1", run: snapshot, idempotent: true }],
  list_threads: [{
    threads: [thread],
    source: "imported",
    sort: "cost",
    sample_total: 2,
    imported_total: 1,
    offset: 0,
    total: 1,
    has_more: false,
    diagnostics: [],
    history_directory: "/home/.claude/projects",
    empty_history: null
  }],
  list_threads_progress: [{ reading: true, done: 3, total: 10, message: "Reading 3 of 10." }, { reading: false, done: 0, total: 0, message: null }],
  inspect_thread: [{
    thread: passing({ ...thread, request: "Fix it.", request_generation: { method: "pending" } }, { request_turns: [] }),
    replay: { ...thread, request: "Fix it.", request_generation: { method: "single_user_prompt" } },
    baseline: passing({ repository: "/repo" }, { commit: "abcdef1" }),
    capabilities: { items: [{ name: "git", title: "Git", status: "available", guidance: "None needed." }] },
    file_selection: passing({ preexisting_files: ["a.ts"] }, { candidates: [] }),
    workspace: { kind: "git", files: [], requires_empty_attestation: false, requires_confirmation: false, complete: true },
    models: [{ id: "gpt-x", label: "GPT X" }],
    chunks: { available: false, reason: "One prompt.", split_points: [] },
    checks: {
      checks: [{ command: "npm test", directory: ".", kind: "test", runs: 2, last_outcome: "passed", last_exit_code: 0, after_last_edit: true }],
      setup: [{ command: "npm ci", directory: ".", runs: 1 }]
    },
    questions: [],
    repository_blockers: [],
    blockers: [],
    diagnostics: [{ step: "baseline", message: "Guessed." }]
  }],
  synthesize_request: [
    { thread_id: "t1", request: "Fix it.", request_generation: { method: "llm_synthesis", model: "gpt-x", generated_at: "2026-01-01T00:00:00.000Z" } },
    { thread_id: "t1", request: "Fix it.", request_generation: { method: "concatenated_fallback" } }
  ],
  infer_working_directory: [{ thread_id: "t1", working_directory: "/repo", source: "cwd" }],
  get_report: [
    { report: passing({ winner: "codex", schema_version: 3, candidates: { codex: { model: "gpt-x" }, claude: {} }, evaluation: null }, { verdict_note: "kept" }), report_json: "/runs/run-1/report.json", report_html: "/runs/run-1/report.html" },
    { artifact_content: "<html></html>", artifact_format: "html", artifact_mime_type: "text/html", artifact_file_name: "codex-replay-run-1-report.html" }
  ],
  prepare_run: [
    {
      status: "ready_for_approval",
      ready: true,
      can_run: true,
      controller_session_id: "a".repeat(32),
      model: "gpt-x",
      models: ["gpt-x"],
      reviewer_model: "gpt-x",
      self_review_models: ["gpt-x"],
      blockers: [],
      blocking_reasons: [],
      questions: [],
      approval_prompt: "Approve?",
      prepare_token: "token",
      approval,
      configuration_fingerprint: "f",
      historical_result_sha256: "h",
      prepared_configuration_sha256: "p",
      prepared_configuration_sha256_by_model: { "gpt-x": "p" },
      run_config: configuration,
      chunk: passing({
        range_start: "u1",
        range_end: "u2",
        first_index: 1,
        last_index: 2,
        carried_forward_files: ["a.ts"],
        excluded_files: [],
        excluded_reasons: {}
      }, { background: "Earlier requests." }),
      checks: [{ command: "npm test", directory: "." }],
      setup: []
    },
    {
      status: "blocked",
      ready: false,
      can_run: false,
      batch: true,
      controller_session_id: "a".repeat(32),
      models: [],
      reviewer_model: "gpt-x",
      self_review_models: [],
      ready_threads: [],
      blocked: [{ index: 0, thread_id: "t1", reasons: ["No repository."] }],
      runs: 0,
      blockers: ["Every configuration of the batch is blocked."],
      blocking_reasons: ["Every configuration of the batch is blocked."],
      approval_prompt: null,
      prepare_token: null,
      approval: { required: true, prompt: null, prepare_token: null },
      configuration_fingerprint: "f"
    }
  ],
  start_run: [
    {
      run_id: "run-1",
      run: snapshot,
      model: "gpt-x",
      models: ["gpt-x", "gpt-y"],
      runs: [{ run_id: "run-1", model: "gpt-x", run: snapshot }],
      errors: [{ model: "gpt-y", error: "No.", controller_code: "launch_failed" }],
      idempotent: false
    },
    { batch_id: batch.batch_id, batch, idempotent: true }
  ],
  make_portfolio: [{
    portfolio_id: "portfolio-1",
    portfolio: passing({
      portfolio_id: "portfolio-1",
      run_ids: ["run-1"],
      models: [{
        model: "gpt-x",
        overall: { wins: passing({ count: 1 }, { rate: 1 }), ties: { count: 0 }, losses: { count: 0 }, sign_test_p: null }
      }]
    }, { schema_version: 1 }),
    portfolio_json: "/runs/portfolios/portfolio-1/portfolio.json",
    portfolio_html: "/runs/portfolios/portfolio-1/portfolio.html",
    html: "<html></html>",
    html_file_name: "codex-replay-portfolio-1.html"
  }],
  get_batch: [{ batch }],
  cancel_batch: [{ batch_id: batch.batch_id, batch: { ...batch, status: "cancelled", ended_at: "2026-01-01T00:02:00.000Z" }, idempotent: false }],
  blind_candidates: [{
    run_id: "run-1",
    ballot_token: "t".repeat(43),
    task: "Fix it.",
    candidates: [
      { label: "first", patch: "diff", final_response: "Done.", changed_files: [{ path: "a.ts", additions: 1, deletions: 0 }], checks: [] },
      { label: "second", patch: "", final_response: "", changed_files: [], checks: [{ command: "npm test", outcome: "passed" }] }
    ],
    dimensions: [{ id: "reliability", label: "Reliability" }]
  }],
  submit_vote: [{ run_id: "run-1", vote, vote_file: "/runs/run-1/vote.json" }],
  reveal_run: [
    { run_id: "run-1", revealed_at: "2026-01-01T00:03:00.000Z", first_reveal: true, vote: null },
    { run_id: "run-1", revealed_at: "2026-01-01T00:03:00.000Z", first_reveal: false, vote }
  ],
  vote_status: [
    { run_id: "run-1", blind: true, reason: null, vote: null, revealed_at: null },
    { run_id: "run-1", blind: false, reason: "You have already voted on run run-1; a run takes one blind vote.", vote, revealed_at: null }
  ]
}

describe("every tool result is a Schema", () => {
  it("names a result Schema for each of the nineteen tools", () => {
    expect(Object.keys(ToolResults).sort()).toEqual(Object.keys(samples).sort())
    expect(Object.keys(ToolResults)).toHaveLength(19)
  })

  for (const name of Object.keys(samples) as Array<ToolName>) {
    it(`${name}: encodes to JSON and decodes back to the same value, every field kept`, () => {
      const schema = ToolResults[name] as Schema.Schema<unknown, unknown>
      for (const sample of samples[name]) {
        const wire: unknown = JSON.parse(JSON.stringify(Schema.encodeSync(schema)(sample)))
        expect(wire).toEqual(sample)
        expect(Schema.decodeUnknownSync(schema)(wire)).toEqual(sample)
      }
    })
  }

  it("open_controller (MCP): encodes to JSON and decodes back to the same value", () => {
    const sample = { prepared: true, opened: false, launch_url: "http://127.0.0.1:43118/?token=t", controller_session_id: "a".repeat(32) } as const
    const wire: unknown = JSON.parse(JSON.stringify(Schema.encodeSync(OpenControllerResult)(sample)))
    expect(wire).toEqual(sample)
    expect(Schema.decodeUnknownSync(OpenControllerResult)(wire)).toEqual(sample)
    expect(() => Schema.decodeUnknownSync(OpenControllerResult)({ ...sample, opened: true })).toThrow(/opened/)
  })

  it("types a chunk offer, a run's models and a report's top-level fields", () => {
    const inspected = samples.inspect_thread[0]!
    const selected = {
      ...inspected,
      chunks: {
        available: true,
        reason: null,
        split_points: [{ index: 1, message_id: "u1", timestamp: "2026-01-01T00:00:00.000Z", prompt: "Fix it.", files_touched: ["a.ts"] }],
        selected: { range_start: "u1", range_end: "u1", first_index: 1, last_index: 1, request: "Fix it.", carried_forward_files: [] }
      }
    }
    expect(Schema.decodeUnknownSync(ToolResults.inspect_thread)(selected)).toEqual(selected)
    expect(() => Schema.decodeUnknownSync(ToolResults.inspect_thread)({ ...inspected, chunks: { available: false, reason: "x" } })).toThrow(/split_points/)
    const listed = samples.list_runs[0]!
    expect(() => Schema.decodeUnknownSync(ToolResults.list_runs)({ ...listed, runs: [{ ...listed.runs[0], models: [1] }] })).toThrow(/models/)
    expect(() => Schema.decodeUnknownSync(ToolResults.get_report)({ ...samples.get_report[0], report: { winner: 1 } })).toThrow()
  })

  it("refuses an answer that lacks a field of its contract", () => {
    const { run_root: _dropped, ...withoutRoot } = samples.list_runs[0]!
    expect(() => Schema.decodeUnknownSync(ToolResults.list_runs)(withoutRoot)).toThrow(/run_root/)
    expect(() => Schema.decodeUnknownSync(ToolResults.cancel_run)({ run_id: "run-1", idempotent: true })).toThrow(/run/)
  })
})
