import type { StoredVote } from "../domain/contracts/votes.js"
import { judgeCategory } from "../domain/portfolio/agreement.js"

const WINNERS = { codex: "Codex wins", claude: "Claude wins", tie: "Tie" } as const
const JUDGE_WINNERS = new Set(["codex", "claude", "tie", "inconclusive"])

/** The user's blind vote as `report --json` shows it: the stored vote, and whether the judge's overall winner is the same. */
export const voteView = (vote: StoredVote | null, judgeWinner: string | null) =>
  vote === null ? null : {
    ...vote,
    /** The judge's "inconclusive" counts as no winner, a tie; `null` without a verdict. */
    agrees_with_judge: judgeWinner !== null && JUDGE_WINNERS.has(judgeWinner)
      ? judgeCategory(judgeWinner as "codex" | "claude" | "tie" | "inconclusive") === vote.overall
      : null
  }
export type VoteView = NonNullable<ReturnType<typeof voteView>>

/** The user's vote in one line beside the judge's verdict, or no line without a vote. */
export const voteLines = (vote: VoteView | null): ReadonlyArray<string> => {
  if (vote === null) return []
  const choices = Object.values(vote.dimensions)
  const count = (winner: string) => choices.filter((choice) => choice === winner).length
  const agreement = vote.agrees_with_judge === null ? "" : vote.agrees_with_judge ? "; the judge agrees" : "; the judge does not agree"
  return [
    `You:     ${WINNERS[vote.overall]} (your blind vote) — ${count("codex")} dimension(s) for Codex, ${count("tie")} tied, ${count("claude")} for Claude${agreement}.`
  ]
}
