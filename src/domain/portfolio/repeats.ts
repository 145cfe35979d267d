/**
 * Repeats in a portfolio (docs/verdicts.md#repeats): the k runs of one (thread, model) start are one
 * observation, not k. They are combined into one cell before any statistic — the winner most of its
 * judged repeats gave, a tie among them counting as inconclusive — and how often repeats agree is shown
 * beside the statistics.
 */
import { Schema } from "effect"
import { countedWinner as winnerCounted } from "../report/caveats.js"
import { DIMENSIONS, type DimensionId } from "../review/dimensions.js"
import type { PortfolioRun } from "./portfolioFile.js"

type Outcome = "win" | "tie" | "loss" | "not_counted"
type Winner = PortfolioRun["winner"]

/** A run's overall winner as the portfolio counts it: `inconclusive` when a caveat says it has none (as the overall tally). */
export const countedWinner = (run: PortfolioRun): Winner => winnerCounted(run.winner, run.caveats ?? [])

/**
 * The combined answer of some repeats: the answer most of those that gave one gave; `none` when none
 * gave one, or when two answers are given equally often (the repeats point both ways: no direction).
 */
export const majority = <A extends string>(answers: ReadonlyArray<A>, none: A): A => {
  const counts = new Map<A, number>()
  for (const answer of answers) if (answer !== none) counts.set(answer, (counts.get(answer) ?? 0) + 1)
  const ranked = [...counts.entries()].sort((a, b) => b[1] - a[1])
  const [first, second] = ranked
  if (first === undefined || (second !== undefined && second[1] === first[1])) return none
  return first[0]
}

const sumOrNull = (values: ReadonlyArray<number | null | undefined>) =>
  values.some((value) => value === null || value === undefined) ? null : values.reduce<number>((sum, value) => sum + value!, 0)

const meanOrNull = (values: ReadonlyArray<number | null>) => {
  const known = values.filter((value): value is number => value !== null)
  return known.length === 0 ? null : known.reduce((sum, value) => sum + value, 0) / known.length
}

/** The key the repeats of one start share; a run that is no repeat is a cell of its own. */
const cellKey = (run: PortfolioRun) => (run.repeat === undefined ? `run:${run.run_id}` : `repeat:${run.repeat.group}`)

/** Runs grouped into cells, in the order their first run comes; each cell's runs in repeat order. */
export const cellsOf = (runs: ReadonlyArray<PortfolioRun>): ReadonlyArray<ReadonlyArray<PortfolioRun>> => {
  const cells = new Map<string, Array<PortfolioRun>>()
  for (const run of runs) cells.set(cellKey(run), [...(cells.get(cellKey(run)) ?? []), run])
  return [...cells.values()].map((cell) => [...cell].sort((a, b) => (a.repeat?.index ?? 0) - (b.repeat?.index ?? 0)))
}

/**
 * One cell as one observation: the combined overall winner and dimensions, costs summed over its repeats,
 * times their mean; the other facts (checks, caveats, vote) are those of the first repeat that gave the
 * combined winner. Its `run_id` is that repeat's; `repeats` names them all.
 */
export const combineCell = (cell: ReadonlyArray<PortfolioRun>): PortfolioRun => {
  const first = cell[0]!
  if (cell.length === 1) return first
  const winner = majority(cell.map(countedWinner), "inconclusive")
  const representative = cell.find((run) => countedWinner(run) === winner) ?? first
  const dimensions = Object.fromEntries(
    DIMENSIONS.map(({ id }) => [id, majority(cell.map((run) => run.dimensions[id]), "not_counted")])
  ) as { [D in DimensionId]: Outcome }
  const evaluation = cell.every((run) => run.evaluation_usd === undefined) ? undefined : sumOrNull(cell.map((run) => run.evaluation_usd))
  const { evaluation_usd: _evaluation, ...rest } = representative
  return {
    ...rest,
    winner,
    dimensions,
    flipped_dimensions: cell.reduce((sum, run) => sum + run.flipped_dimensions, 0),
    possible_leak: cell.some((run) => run.possible_leak),
    codex: { elapsed_ms: meanOrNull(cell.map((run) => run.codex.elapsed_ms)), cost_usd: sumOrNull(cell.map((run) => run.codex.cost_usd)) },
    ...(evaluation === undefined ? {} : { evaluation_usd: evaluation }),
    repeats: { run_ids: cell.map((run) => run.run_id), winners: cell.map(countedWinner) }
  }
}

/** Every cell combined: what the statistics count. */
export const combineRepeats = (runs: ReadonlyArray<PortfolioRun>): ReadonlyArray<PortfolioRun> => cellsOf(runs).map(combineCell)

export const RepeatAgreement = Schema.Struct({
  /** Cells replayed more than once (the only ones agreement is measured on). */
  cells: Schema.Number,
  /** Cells whose repeats all gave the same winner, by their first run. */
  all_agree: Schema.Struct({ count: Schema.Number, run_ids: Schema.Array(Schema.String) }),
  /** all_agree ÷ cells. */
  all_agree_share: Schema.Number,
  /** The mean over cells of the share of pairs of repeats that gave the same winner. */
  mean_pairwise: Schema.Number
})
export type RepeatAgreement = typeof RepeatAgreement.Type

/** The share of pairs among some answers that are the same answer. */
export const pairwiseAgreement = (answers: ReadonlyArray<string>) => {
  let pairs = 0
  let agreeing = 0
  for (let i = 0; i < answers.length; i++) {
    for (let j = i + 1; j < answers.length; j++) {
      pairs++
      if (answers[i] === answers[j]) agreeing++
    }
  }
  return pairs === 0 ? 1 : agreeing / pairs
}

/** How often the repeats of a cell agree on the overall winner; `undefined` when no cell was repeated. */
export const repeatAgreement = (combined: ReadonlyArray<PortfolioRun>): RepeatAgreement | undefined => {
  const repeated = combined.filter((run) => (run.repeats?.winners.length ?? 0) > 1)
  if (repeated.length === 0) return undefined
  const agree = repeated.filter((run) => new Set(run.repeats!.winners).size === 1)
  return {
    cells: repeated.length,
    all_agree: { count: agree.length, run_ids: agree.map((run) => run.run_id) },
    all_agree_share: agree.length / repeated.length,
    mean_pairwise: repeated.reduce((sum, run) => sum + pairwiseAgreement(run.repeats!.winners), 0) / repeated.length
  }
}

const percent = (share: number) => `${Math.round(share * 100)}%`

/** The agreement in a sentence, for the CLI and portfolio.html. */
export const repeatAgreementText = (agreement: RepeatAgreement) =>
  `repeats agree on the winner in ${agreement.all_agree.count} of ${agreement.cells} repeated (thread, model) cell(s) (${
    percent(agreement.all_agree_share)
  }); mean pairwise agreement ${percent(agreement.mean_pairwise)}`
