/**
 * Repeats of one (thread, model) start as Results shows them (docs/verdicts.md#repeats): each repeat's
 * outcome linked to its run, and how many agree. Pure: the states come from the caller.
 */
import type { RepeatOutcome, RepeatOutcomes, RunState } from "./contracts/index.js"
import { type Caveat, caveatsOfSummary, countedWinner, verdictLine } from "./report/caveats.js"

/** How many times each model replays a configuration (absent: once). */
export const repeatsOf = (configuration: { readonly repeats?: number | undefined }) => configuration.repeats ?? 1

/** A run's address on the controller's page. */
export const runAddress = (runId: string) => `/runs/${encodeURIComponent(runId)}`

/**
 * A repeat's outcome in the words its own verdict says (`verdictLine`: `Codex wins`, `Tie`,
 * `Inconclusive (the two orders disagreed)`, …) once reported, else its status.
 */
export const outcomeWord = (outcome: RepeatOutcome) =>
  outcome.winner === null ? outcome.status : verdictLine(outcome.winner, outcome.caveats ?? [])

/** A run's reported winner and its caveats: what a repeat's outcome says of it. */
interface Reported {
  readonly winner: string
  readonly caveats?: ReadonlyArray<Caveat> | undefined
}

const reportedOfState = (state: RunState): Reported | null => {
  const summary = state.report_summary
  const winner = typeof summary === "object" && summary !== null ? (summary as { readonly winner?: unknown }).winner : undefined
  return state.status === "completed" && typeof winner === "string" ? { winner, caveats: caveatsOfSummary(summary) } : null
}

const outcomeOf = (member: RunState, reported: Reported | null): RepeatOutcome => ({
  run_id: member.run_id,
  index: member.repeat?.index ?? 0,
  status: reported === null ? member.status : "completed",
  winner: reported?.winner ?? null,
  ...(reported === null ? {} : { caveats: reported.caveats ?? [] }),
  address: runAddress(member.run_id)
})

/**
 * The outcomes of the repeats of `state`'s start among `states` (its siblings share `repeat.group`);
 * `undefined` for a run that is no repeat. `own` overrides the run's own winner (its report is being written).
 */
export const repeatOutcomesOf = (
  state: RunState,
  states: ReadonlyArray<RunState>,
  own?: Reported
): RepeatOutcomes | undefined => {
  const label = state.repeat
  if (label === undefined) return undefined
  const siblings = states.filter((other) => other.repeat?.group === label.group && other.run_id !== state.run_id)
  const outcomes = [state, ...siblings]
    .map((member) => outcomeOf(member, member.run_id === state.run_id && own !== undefined ? own : reportedOfState(member)))
    .sort((a, b) => a.index - b.index)
  return repeatOutcomes(typeof state.model === "string" ? state.model : "", label.of, outcomes)
}

/**
 * The k outcomes with the most common winner among those reported, and their line. A run whose caveats say
 * it has no winner (orders that disagreed, no verdict, a split) counts as inconclusive, as in a portfolio.
 */
export const repeatOutcomes = (model: string, of: number, outcomes: ReadonlyArray<RepeatOutcome>): RepeatOutcomes => {
  const reported = outcomes.flatMap((outcome) => (outcome.winner === null ? [] : [countedWinner(outcome.winner, outcome.caveats ?? [])]))
  const counts = new Map<string, number>()
  for (const winner of reported) counts.set(winner, (counts.get(winner) ?? 0) + 1)
  const top = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]
  const agreeing = top === undefined ? null : { winner: top[0], count: top[1] }
  const words = outcomes.map(outcomeWord).join(", ")
  const agreement = agreeing === null ? "none reported yet" : `${agreeing.count} of ${reported.length} agree`
  return { model, of, outcomes, agreeing, text: `Repeats: ${of} of ${model} from this start — ${words} (${agreement})` }
}

/**
 * The outcomes with `runId`'s own given its report's caveats, and their line said again: a report is
 * written before its run's state holds those caveats.
 */
export const withOwnCaveats = (repeats: RepeatOutcomes, runId: string, caveats: ReadonlyArray<Caveat>): RepeatOutcomes =>
  repeatOutcomes(
    repeats.model,
    repeats.of,
    repeats.outcomes.map((outcome) => (outcome.run_id === runId && outcome.winner !== null ? { ...outcome, caveats } : outcome))
  )
