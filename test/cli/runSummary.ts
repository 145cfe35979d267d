import type { RunSummary } from "../../src/programs/runs/history.js"

/** A row of `list_runs` as the command line's tables read it: a completed run of this controller, `extra` on top. */
export const runSummaryOf = (extra: Partial<RunSummary> = {}): RunSummary => ({
  run_id: "run-20261130T100000Z-aaaaaaaaaa",
  thread_id: "t-1",
  thread_title: null,
  model: "gpt-5.6-terra",
  models: ["gpt-5.6-terra"],
  status: "completed",
  phase: "reporting",
  phase_label: "Writing the report",
  winner: null,
  dimensions: null,
  possible_leak: false,
  checks: null,
  caveats: [],
  started_at: "2026-11-30T10:00:00.000Z",
  completed_at: null,
  updated_at: "2026-11-30T10:05:00.000Z",
  error: null,
  chunk: null,
  report_ready: true,
  start_group: null,
  supervision: { controller_session_id: "a".repeat(32), this_controller: true, live: true, read_only: false, controller_url: null },
  ...extra
})
