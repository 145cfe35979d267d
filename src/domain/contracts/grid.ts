/**
 * A batch or a portfolio as a thread × model grid (docs/verdicts.md, "The grid"): what `get_batch` and
 * `make_portfolio` answer beside their own results, what `portfolio.html` renders and the CSV export holds.
 */
import { Schema } from "effect"
import { Caveats } from "../report/caveats.js"
import { NullableString, Strings } from "./resultFields.js"

const NullableNumber = Schema.NullOr(Schema.Number)

/** How a cell reads at a glance (its colour); its text always says the same in words. */
export const GridTone = Schema.Literal("win", "loss", "tie", "none", "hidden", "pending", "running", "failed", "cancelled")
export type GridTone = typeof GridTone.Type

/** One run of a (thread, model) pair. */
export const GridRun = Schema.Struct({
  run_id: NullableString,
  /** The run's address in the controller, `/runs/<run id>`; null before the run exists. */
  address: NullableString,
  status: Schema.Literal("pending", "running", "completed", "failed", "cancelled"),
  tone: GridTone,
  /** The verdict in words (`verdictWords`), or the run's status when it has none yet. */
  text: Schema.String,
  /** The caveats beside the verdict (the one said instead of a winner is not repeated). */
  caveats: Caveats,
  /** The check outcome, when the run ran checks. */
  checks: NullableString,
  /** Claude won: a loss for Codex. */
  loss: Schema.Boolean,
  /** The two judges split on the winner. */
  split: Schema.Boolean,
  not_like_for_like: Schema.Boolean
}).annotations({ identifier: "GridRun" })
export type GridRun = typeof GridRun.Type

/** One (thread, model) cell: its runs, oldest first (none: the model did not replay the thread). */
export const GridCell = Schema.Struct({ model: Schema.String, runs: Schema.Array(GridRun) })
export type GridCell = typeof GridCell.Type

/** One thread: its title and one cell per model, in the grid's model order. */
export const GridRow = Schema.Struct({
  thread_id: NullableString,
  /** The thread's title in the history; null when the thread is no longer there. */
  title: NullableString,
  cells: Schema.Array(GridCell),
  /** Whether any of its runs is a loss, a split or not like-for-like: what the filters keep. */
  loss: Schema.Boolean,
  split: Schema.Boolean,
  not_like_for_like: Schema.Boolean
})
export type GridRow = typeof GridRow.Type

/** One model's statistics above the grid: the portfolio's once it exists, else the batch's so far. */
export const GridStatistics = Schema.Struct({
  model: Schema.String,
  wins: Schema.Number,
  ties: Schema.Number,
  losses: Schema.Number,
  /** Completed runs without a verdict (no verdict, orders that disagreed, judges that split). */
  not_counted: Schema.Number,
  /** Runs not completed yet (a running batch), or failed or cancelled. */
  unfinished: Schema.Number,
  win_rate: NullableNumber,
  win_rate_interval: Schema.NullOr(Schema.Struct({ lower: Schema.Number, upper: Schema.Number })),
  sign_test_p: NullableNumber,
  significant: Schema.Boolean,
  /** The figures in one sentence. */
  sentence: Schema.String
})
export type GridStatistics = typeof GridStatistics.Type

export const Grid = Schema.Struct({
  models: Strings,
  rows: Schema.Array(GridRow),
  statistics: Schema.Array(GridStatistics),
  /** How many rows each filter keeps. */
  filters: Schema.Struct({ loss: Schema.Number, split: Schema.Number, not_like_for_like: Schema.Number })
})
export type Grid = typeof Grid.Type
