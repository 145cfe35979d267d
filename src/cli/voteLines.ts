import type { StoredVote } from "../domain/contracts/votes.js"
import { type Caveat, WINNER_LINES as WINNERS } from "../domain/report/caveats.js"
import { judgeCategory } from "../domain/portfolio/agreement.js"

const JUDGE_WINNERS = new Set(["codex", "claude", "tie", "inconclusive"])

const isJudgeWinner = (winner: string | null): winner is "codex" | "claude" | "tie" | "inconclusive" => winner !== null && JUDGE_WINNERS.has(winner)

/**
 * The user's blind vote as `report --json` shows it: the stored vote, and whether the judge's overall winner is
 * the same; `null` when the judge reached no verdict (inconclusive, or a `no_verdict` caveat) or there is none.
 */
export const voteView = (vote: StoredVote | null, judgeWinner: string | null, caveats: ReadonlyArray<Caveat> = []) => {
  if (vote === null) return null
  const judge = isJudgeWinner(judgeWinner) ? judgeCategory(judgeWinner, caveats) : null
  return { ...vote, agrees_with_judge: judge === null ? null : judge === vote.overall }
}
export type VoteView = NonNullable<ReturnType<typeof voteView>>

/** The user's vote in one line beside the judge's verdict, or no line without a vote. */
export const voteLines = (vote: VoteView | null): ReadonlyArray<string> => {
  if (vote === null) return []
  const choices = Object.values(vote.dimensions)
  const count = (winner: string) => choices.filter((choice) => choice === winner).length
  const agreement = vote.agrees_with_judge === null
    ? "; the judge reached no verdict to agree with"
    : vote.agrees_with_judge
    ? "; the judge agrees"
    : "; the judge does not agree"
  return [
    `You:     ${WINNERS[vote.overall]} (your blind vote) — ${count("codex")} dimension(s) for Codex, ${count("tie")} tied, ${count("claude")} for Claude${agreement}.`
  ]
}
