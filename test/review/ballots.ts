import type { Ballot, CheckResult, DimensionWinnerLetter } from "../../src/domain/review/ballot.js"
import { BALLOT_JSON_SCHEMA } from "../../src/domain/review/ballot.js"
import { DIMENSIONS, type DimensionId } from "../../src/domain/review/dimensions.js"
import type { Position } from "../../src/domain/review/evaluation.js"

export const NARRATIVE = "SENSITIVE REVIEWER NARRATIVE"

/** The short reason every dimension of these ballots gives: shown in the report with the letters revealed. */
export const REASON = `Candidate A handles <errors> & candidate B's patch does not; A check of Plan B found a gap.`

export type Fill = (dimension: DimensionId, check: string, position: Position) => CheckResult

/** A schema-valid ballot whose checks come from `fill`, with a narrative in every evidence field. */
export const makeBallot = (
  fill: Fill,
  preference: (dimension: DimensionId) => DimensionWinnerLetter = () => "tie"
): Ballot => {
  const dimension = (id: DimensionId) => {
    const spec = DIMENSIONS.find((entry) => entry.id === id)!
    const candidate = (position: Position) => ({
      checks: Object.fromEntries(
        spec.checks.map((check) => [check.id, { evidence: `${NARRATIVE} ${position}`, result: fill(id, check.id, position) }])
      ),
      score: 0.123
    })
    return { candidates: { A: candidate("A"), B: candidate("B") }, comparison: NARRATIVE, reason: REASON, winner: preference(id) }
  }
  return { dimensions: Object.fromEntries(DIMENSIONS.map((entry) => [entry.id, dimension(entry.id)])) } as unknown as Ballot
}

/** Every check passes for `winner` and fails for the other letter. */
export const ballotFavouring = (winner: Position): Ballot =>
  makeBallot((_dimension, _check, position) => (position === winner ? 1 : 0))

export const ballotSchemaText = () => JSON.stringify(BALLOT_JSON_SCHEMA)
