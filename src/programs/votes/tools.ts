/** The blind vote's tools: `vote_status`, `blind_candidates`, `submit_vote` and `reveal_run` (docs/verdicts.md). */
import { defineTool } from "../controller/tool.js"
import { blindCandidates, revealRun, submitVote, voteStatus } from "./votes.js"

export const blindCandidatesTool = defineTool(
  "blind_candidates",
  (payload) => blindCandidates(payload.run_id),
  () => "The two candidates, without their authors, in a fresh order."
)

export const submitVoteTool = defineTool(
  "submit_vote",
  submitVote,
  (result) => `Your vote on run ${result.run_id} is recorded.`
)

export const revealRunTool = defineTool(
  "reveal_run",
  (payload) => revealRun(payload.run_id),
  (result) => (result.first_reveal ? `Run ${result.run_id} is now revealed.` : `Run ${result.run_id} was revealed at ${result.revealed_at}.`)
)

export const voteStatusTool = defineTool(
  "vote_status",
  (payload) => voteStatus(payload.run_id),
  (result) => result.reason ?? `Run ${result.run_id} can be judged blind.`
)
