/**
 * The user's own blind vote (docs/verdicts.md, "Your own blind vote"): the anonymised candidates as the
 * reviewer saw them, under neutral labels in a fresh order, and the vote cast on them. Schema only.
 */
import { Schema } from "effect"
import { DIMENSIONS, type DimensionId } from "../review/dimensions.js"
import { sentence } from "../toolResult.js"
import { RUN_ID_PATTERN } from "../ids.js"

/** What the user says of one dimension or overall: the candidate shown first, the one shown second, or a tie. */
export const VoteChoice = Schema.Literal("first", "second", "tie")
export type VoteChoice = typeof VoteChoice.Type

/** A choice once mapped back to its authors on the server. */
export const VotedWinner = Schema.Literal("codex", "claude", "tie")
export type VotedWinner = typeof VotedWinner.Type

const runId = Schema.String.annotations(sentence("run_id is required.")).pipe(
  Schema.filter((value) => RUN_ID_PATTERN.test(value), sentence("The run ID is invalid."))
)

const choice = (field: string) => VoteChoice.annotations(sentence(`${field} must be first, second or tie.`))

const perDimension = <S extends Schema.Schema.Any>(value: (id: DimensionId) => S) =>
  Schema.Struct(Object.fromEntries(DIMENSIONS.map(({ id }) => [id, value(id)])) as { [D in DimensionId]: S })

/** `blind_candidates` and `reveal_run`: a run id. */
export const VoteRunPayload = Schema.Struct({ run_id: runId }).annotations(sentence("run_id is required."))

/** `submit_vote`: the ballot token `blind_candidates` gave, and a choice per rubric dimension and overall. */
export const SubmitVotePayload = Schema.Struct({
  run_id: runId,
  ballot_token: Schema.String.annotations(sentence("ballot_token is required: ask for the blind candidates first.")),
  dimensions: perDimension((id) => choice(`dimensions.${id}`)).annotations({
    parseOptions: { onExcessProperty: "error" },
    ...sentence("dimensions must give first, second or tie for each of the six rubric dimensions, and nothing else.")
  }),
  overall: choice("overall")
}).annotations({ parseOptions: { onExcessProperty: "error" }, ...sentence("A vote needs run_id, ballot_token, dimensions and overall, and nothing else.") })
export type SubmitVotePayload = typeof SubmitVotePayload.Type

const ChangedFile = Schema.Struct({
  path: Schema.String,
  additions: Schema.Number,
  deletions: Schema.Number,
  binary: Schema.optional(Schema.Boolean),
  bytes: Schema.optional(Schema.Number)
})

/** `reviews/candidate-a.json` / `candidate-b.json` as the review recorded them. */
export const StoredCandidate = Schema.Struct({
  task: Schema.String,
  patch: Schema.String,
  final_response: Schema.String,
  changed_files: Schema.Array(ChangedFile),
  checks: Schema.optional(Schema.Array(Schema.Record({ key: Schema.String, value: Schema.Unknown })))
})
export type StoredCandidate = typeof StoredCandidate.Type

/** One candidate as the voter sees it: the reviewer's file without the task, under a neutral label. */
export const BlindCandidate = Schema.Struct({
  label: Schema.Literal("first", "second"),
  patch: Schema.String,
  final_response: Schema.String,
  changed_files: Schema.Array(ChangedFile),
  checks: Schema.Array(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
})

/** `blind_candidates`. */
export const BlindCandidatesResult = Schema.Struct({
  run_id: Schema.String,
  /** Names this presentation's order on the server; the order itself never leaves it. */
  ballot_token: Schema.String,
  task: Schema.String,
  candidates: Schema.Tuple(BlindCandidate, BlindCandidate),
  dimensions: Schema.Array(Schema.Struct({ id: Schema.String, label: Schema.String }))
})
export type BlindCandidatesResult = typeof BlindCandidatesResult.Type

/** `vote.json` in the run directory: the user's vote, mapped back to the authors. */
export const StoredVote = Schema.Struct({
  schema_version: Schema.Literal(1),
  run_id: Schema.String,
  voted_at: Schema.String,
  overall: VotedWinner,
  dimensions: perDimension(() => VotedWinner),
  /** Which recorded candidate file was shown first (`candidate-a.json` or `candidate-b.json`). */
  shown_first: Schema.Literal("candidate-a.json", "candidate-b.json")
})
export type StoredVote = typeof StoredVote.Type

/** `submit_vote`. */
export const SubmitVoteResult = Schema.Struct({ run_id: Schema.String, vote: StoredVote, vote_file: Schema.String })
export type SubmitVoteResult = typeof SubmitVoteResult.Type

/** `revealed.json` in the run directory: when the page first showed who is who. */
export const RevealMark = Schema.Struct({ run_id: Schema.String, revealed_at: Schema.String })
export type RevealMark = typeof RevealMark.Type

/** `reveal_run`: when the run was first revealed, whether this call did it, and the user's vote if any. */
export const RevealResult = Schema.Struct({
  run_id: Schema.String,
  revealed_at: Schema.String,
  first_reveal: Schema.Boolean,
  vote: Schema.NullOr(StoredVote)
})
export type RevealResult = typeof RevealResult.Type

/** `vote_status`: whether the run can still be judged blind, and if not why, in one sentence. */
export const VoteStatus = Schema.Struct({
  run_id: Schema.String,
  blind: Schema.Boolean,
  reason: Schema.NullOr(Schema.String),
  vote: Schema.NullOr(StoredVote),
  revealed_at: Schema.NullOr(Schema.String)
})
export type VoteStatus = typeof VoteStatus.Type
