import { type SecondJudgeResult, secondJudgeResultOf, secondJudgeSentence, verdictOf } from "../review/secondJudge.js"
import { renderEvaluationTable } from "./evaluationTable.js"
import { escapeHtml, formatUsd } from "./format.js"

/** "split" beside a verdict that does not already say so, when the two judges disagree on the overall winner. */
export const judgesSplitBadge = (evaluation: unknown, headline: string): string =>
  secondJudgeResultOf(evaluation)?.agreement === "split" && !/^split/i.test(headline)
    ? ` <span class="judges-split" id="judges-split" title="The two judges disagree on the overall winner">(split)</span>`
    : ""

const FIRST_JUDGE_WORDS: Record<string, string> = { codex: "Codex", claude: "Claude", tie: "a tie", inconclusive: "no verdict" }

/** The first (Codex) judge's overall verdict, said beside the second's: each judge's result, then their agreement. */
export const firstJudgeSentence = (evaluation: unknown, reviewer: string | null): string => {
  const first = typeof evaluation === "object" && evaluation !== null && "winner" in evaluation ? String(evaluation.winner) : "inconclusive"
  const verdict = typeof evaluation === "object" && evaluation !== null && "comparable_dimensions" in evaluation && "dimensions" in evaluation
    ? verdictOf(evaluation as Parameters<typeof verdictOf>[0])
    : first
  const words = verdict === "inconclusive" && first === "tie" ? "no verdict (its two orders disagreed)" : FIRST_JUDGE_WORDS[verdict] ?? verdict
  return `First judge (Codex${reviewer === null ? "" : `, ${reviewer}`}): ${words}.`
}

const costLine = (judge: SecondJudgeResult) =>
  judge.calls.length === 0
    ? ""
    : `<p class="hint" id="second-judge-cost">${judge.calls.length} call${judge.calls.length === 1 ? "" : "s"} to Claude, ${escapeHtml(formatUsd(judge.cost_usd))} as Claude Code reported it.</p>`

/** The second judge's verdict, its agreement with the first, its own table and its cost; nothing without one. */
export const secondJudgeSection = (evaluation: unknown, reviewer: string | null): string => {
  const judge = secondJudgeResultOf(evaluation)
  if (judge === null) return ""
  const table = judge.evaluation === null ? "" : renderEvaluationTable(judge.evaluation)
  return `<section class="second-judge" aria-labelledby="second-judge-heading"><h2 id="second-judge-heading">Second judge (Claude)</h2><p class="first-judge-verdict" id="first-judge-verdict">${
    escapeHtml(firstJudgeSentence(evaluation, reviewer))
  }</p><p class="second-judge-verdict" id="second-judge-verdict">${escapeHtml(secondJudgeSentence(judge))}</p>${costLine(judge)}${table}</section>`
}
