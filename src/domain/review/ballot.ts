import { Either, JSONSchema, ParseResult, Schema } from "effect"
import { type CheckId, type ChecksOf, DIMENSIONS, type DimensionId, checksOf } from "./dimensions.js"

/** `1` passed, `0` failed, `null` not applicable to this task. */
export const CheckResult = Schema.NullOr(Schema.Literal(0, 1))
export type CheckResult = typeof CheckResult.Type

/** Evidence first (file and line, or the part of the final response), then the verdict. */
export const CheckAnswer = Schema.Struct({
  evidence: Schema.String,
  result: CheckResult
})
export type CheckAnswer = typeof CheckAnswer.Type

export const DimensionWinnerLetter = Schema.Literal("A", "B", "tie", "not_applicable")
export type DimensionWinnerLetter = typeof DimensionWinnerLetter.Type

const checkIdsOf = <D extends DimensionId>(dimension: D) =>
  checksOf(dimension).map((check) => check.id)

const candidateAnswers = <D extends DimensionId>(dimension: D) => {
  const checks = Object.fromEntries(checkIdsOf(dimension).map((id) => [id, CheckAnswer])) as {
    readonly [K in ChecksOf<D>]: typeof CheckAnswer
  }
  return Schema.Struct({ checks: Schema.Struct(checks), score: Schema.NullOr(Schema.Number) })
}

const dimensionBallot = <D extends DimensionId>(dimension: D) => {
  const candidate = candidateAnswers(dimension)
  return Schema.Struct({
    candidates: Schema.Struct({ A: candidate, B: candidate }),
    /** The pairwise comparison, written before the winner; it only breaks ties between equal scores. */
    comparison: Schema.String,
    /** One or two sentences on why this dimension goes to its winner, naming the candidates `Candidate A` and `Candidate B`. */
    reason: Schema.String,
    winner: DimensionWinnerLetter
  })
}

/** The reviewer's ballot (docs/verdicts.md): the six dimensions, each with its checks per candidate. */
export const Ballot = Schema.Struct({
  dimensions: Schema.Struct({
    reliability: dimensionBallot("reliability"),
    code_quality: dimensionBallot("code_quality"),
    request_fulfillment: dimensionBallot("request_fulfillment"),
    change_scope: dimensionBallot("change_scope"),
    safe_operations: dimensionBallot("safe_operations"),
    accurate_reporting: dimensionBallot("accurate_reporting")
  })
})
export type Ballot = typeof Ballot.Type

/** A structural view of one dimension of a ballot, indexable by any check id. */
export interface CandidateAnswersView {
  readonly checks: { readonly [check: string]: CheckAnswer | undefined }
  readonly score: number | null
}
export interface DimensionBallotView {
  readonly candidates: { readonly A: CandidateAnswersView; readonly B: CandidateAnswersView }
  readonly comparison?: string
  readonly reason?: string
  readonly winner: DimensionWinnerLetter
}
export interface BallotView {
  readonly dimensions: { readonly [D in DimensionId]?: DimensionBallotView }
}

const withoutDraftKeyword = (schema: JSONSchema.JsonSchema7Root): Record<string, unknown> => {
  const { $schema: _draft, ...rest } = schema
  return rest
}

/**
 * The strict JSON-schema form of the ballot for `codex exec --output-schema`: every object has
 * `additionalProperties: false` and lists every property as required.
 */
export const BALLOT_JSON_SCHEMA: Record<string, unknown> = withoutDraftKeyword(JSONSchema.make(Ballot))

const MAX_BALLOT_ERROR_CHARS = 2000

const truncate = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text)

/** Parses a reviewer's final response into a ballot, or explains why it is not one. */
export const parseBallot = (text: string): Either.Either<Ballot, string> => {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return Either.left("The reviewer's answer is not valid JSON.")
  }
  return Schema.decodeUnknownEither(Ballot, { errors: "all", onExcessProperty: "error" })(value).pipe(
    Either.mapLeft((error) =>
      truncate(`The ballot does not match the schema: ${ParseResult.TreeFormatter.formatErrorSync(error)}`, MAX_BALLOT_ERROR_CHARS)
    )
  )
}

/** passed / applicable, or `null` when no check applies. */
export const scoreOf = (answers: CandidateAnswersView, checks: ReadonlyArray<CheckId>): number | null => {
  const results = checks.map((check) => answers.checks[check]?.result ?? null).filter((result) => result !== null)
  if (results.length === 0) return null
  return results.filter((result) => result === 1).length / results.length
}

const tally = (answers: CandidateAnswersView, checks: ReadonlyArray<CheckId>) => {
  const results = checks.map((check) => answers.checks[check]?.result ?? null).filter((result) => result !== null)
  return { passed: results.filter((result) => result === 1).length, applicable: results.length }
}

/**
 * The winner of one dimension in one ballot. The pointwise checks decide (exact comparison of
 * passed/applicable); the reviewer's pairwise preference only breaks a tie between equal scores.
 */
export const decideDimension = (dimension: DimensionBallotView, checks: ReadonlyArray<CheckId>): DimensionWinnerLetter => {
  const a = tally(dimension.candidates.A, checks)
  const b = tally(dimension.candidates.B, checks)
  if (a.applicable === 0 && b.applicable === 0) return "not_applicable"
  const preference = dimension.winner === "not_applicable" ? "tie" : dimension.winner
  if (a.applicable === 0 || b.applicable === 0) return preference
  const difference = a.passed * b.applicable - b.passed * a.applicable
  if (difference > 0) return "A"
  if (difference < 0) return "B"
  return preference
}

/** The ballot with scores recomputed from its checks and each winner decided by `decideDimension`. */
export const canonicalBallot = (ballot: Ballot): Ballot => {
  const canonicalDimension = <D extends DimensionId>(id: D) => {
    const dimension = ballot.dimensions[id]
    const checks = checksOf(id).map((check) => check.id)
    return {
      ...dimension,
      candidates: {
        A: { ...dimension.candidates.A, score: scoreOf(dimension.candidates.A, checks) },
        B: { ...dimension.candidates.B, score: scoreOf(dimension.candidates.B, checks) }
      },
      winner: decideDimension(dimension, checks)
    }
  }
  return {
    dimensions: {
      reliability: canonicalDimension("reliability"),
      code_quality: canonicalDimension("code_quality"),
      request_fulfillment: canonicalDimension("request_fulfillment"),
      change_scope: canonicalDimension("change_scope"),
      safe_operations: canonicalDimension("safe_operations"),
      accurate_reporting: canonicalDimension("accurate_reporting")
    }
  }
}

/** The rubric as text for the reviewer prompt. */
export const rubricText = (): string =>
  DIMENSIONS.map((dimension) =>
    [`- ${dimension.id} (${dimension.label}):`, ...dimension.checks.map((check) => `    - ${check.id}: ${check.label}`)].join("\n")
  ).join("\n")
