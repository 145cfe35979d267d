/**
 * The user's blind vote (docs/verdicts.md, "Your own blind vote"), pure: which recorded candidate is shown
 * first, the candidates as the voter sees them, and a choice mapped back to its author.
 */
import type { BlindCandidatesResult, StoredCandidate, StoredVote, SubmitVotePayload, VoteChoice, VotedWinner } from "../contracts/votes.js"
import { DIMENSIONS, type DimensionId } from "./dimensions.js"
import type { CandidateMapping, Position } from "./evaluation.js"

export const VOTE_FILE = "vote.json"
export const REVEAL_FILE = "revealed.json"

const FILE_OF: Record<Position, "candidate-a.json" | "candidate-b.json"> = { A: "candidate-a.json", B: "candidate-b.json" }
const other = (position: Position): Position => (position === "A" ? "B" : "A")

/** The author behind a choice: `first` is the candidate of the letter shown first, `second` the other. */
export const mapChoice = (choice: VoteChoice, shownFirst: Position, mapping: CandidateMapping): VotedWinner =>
  choice === "tie" ? "tie" : mapping[choice === "first" ? shownFirst : other(shownFirst)]

/** The vote as stored: every choice mapped back to its author, and which file was shown first. */
export const storedVote = (
  payload: SubmitVotePayload,
  shownFirst: Position,
  mapping: CandidateMapping,
  votedAt: string
): StoredVote => ({
  schema_version: 1,
  run_id: payload.run_id,
  voted_at: votedAt,
  overall: mapChoice(payload.overall, shownFirst, mapping),
  dimensions: Object.fromEntries(
    DIMENSIONS.map(({ id }) => [id, mapChoice(payload.dimensions[id], shownFirst, mapping)])
  ) as { [D in DimensionId]: VotedWinner },
  shown_first: FILE_OF[shownFirst]
})

const blind = (label: "first" | "second", candidate: StoredCandidate) => ({
  label,
  patch: candidate.patch,
  final_response: candidate.final_response,
  changed_files: candidate.changed_files,
  checks: candidate.checks ?? []
})

/** The two recorded candidates, the one of `shownFirst` first, under the labels `first` and `second` only. */
export const blindPresentation = (
  runId: string,
  token: string,
  candidates: Record<Position, StoredCandidate>,
  shownFirst: Position
): BlindCandidatesResult => ({
  run_id: runId,
  ballot_token: token,
  task: candidates[shownFirst].task,
  candidates: [blind("first", candidates[shownFirst]), blind("second", candidates[other(shownFirst)])],
  dimensions: DIMENSIONS.map(({ id, label }) => ({ id, label }))
})

/** A vote's overall choice in a sentence, for the CLI. */
export const voteSentence = (vote: Pick<StoredVote, "overall">) =>
  vote.overall === "codex" ? "Codex replay wins" : vote.overall === "claude" ? "Historical Claude wins" : "Tie"
