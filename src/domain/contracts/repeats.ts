/**
 * Repeats: the same (thread, model) replayed k times from the same start, each repeat a run of its own.
 * The field a configuration or a batch carries, the label a repeat's run state carries, and the outcomes
 * of one (thread, model) start as a run's tool result and report show them.
 */
import { Schema } from "effect"
import { Caveats } from "../report/caveats.js"
import { sentence } from "../toolResult.js"
import { optionalOrNull } from "./fields.js"

export const MAX_REPEATS = 5
export const REPEATS_MESSAGE = `repeats must be a whole number from 1 through ${MAX_REPEATS}.`

/** `repeats` on `prepare_run`/`start_run` (one configuration or a batch): absent or null is 1. */
export const RepeatsField = optionalOrNull(
  Schema.Number.pipe(
    Schema.filter((value) => Number.isInteger(value) && value >= 1 && value <= MAX_REPEATS),
    Schema.annotations(sentence(REPEATS_MESSAGE))
  ).annotations(sentence(REPEATS_MESSAGE))
)

/**
 * A repeat's label in its run state: its index (1-based), how many repeats its start made, and the key its
 * siblings share (the same approval, thread, range and model).
 */
export const RepeatLabel = Schema.Struct({
  index: Schema.Number,
  of: Schema.Number,
  group: Schema.String
})
export type RepeatLabel = typeof RepeatLabel.Type

/** One repeat of a (thread, model) start as Results shows it: its run, its state and, once reported, its winner. */
export const RepeatOutcome = Schema.Struct({
  run_id: Schema.String,
  index: Schema.Number,
  status: Schema.String,
  /** `codex`, `claude`, `tie` or `inconclusive` once reported; `null` before. */
  winner: Schema.NullOr(Schema.String),
  /** Its verdict's caveats once reported (a tie by disagreement is no tie); absent before, and in older reports. */
  caveats: Schema.optionalWith(Caveats, { exact: true }),
  /** The run's address on the controller's page. */
  address: Schema.String
})
export type RepeatOutcome = typeof RepeatOutcome.Type

/** The k outcomes of one (thread, model) start: `get_run`'s `repeats` and the report's. */
export const RepeatOutcomes = Schema.Struct({
  model: Schema.String,
  of: Schema.Number,
  outcomes: Schema.Array(RepeatOutcome),
  /** The most common winner among the reported repeats (as counted: `inconclusive` when a caveat says there is none) and how many gave it; `null` before any is reported. */
  agreeing: Schema.NullOr(Schema.Struct({ winner: Schema.String, count: Schema.Number })),
  /** One line: "Repeats: 3 of gpt-X from this start — Codex wins, Codex wins, Claude wins (2 of 3 agree)". */
  text: Schema.String
})
export type RepeatOutcomes = typeof RepeatOutcomes.Type
