import { type SecondJudgeResult, secondJudgeResultOf, secondJudgeSentence } from "../review/secondJudge.js"
import { renderEvaluationTable } from "./evaluationTable.js"
import { escapeHtml, formatUsd } from "./format.js"

/** "split" beside the verdict when the two judges disagree on the overall winner. */
export const judgesSplitBadge = (evaluation: unknown): string =>
  secondJudgeResultOf(evaluation)?.agreement === "split"
    ? ` <span class="judges-split" title="The two judges disagree on the overall winner">(split)</span>`
    : ""

const costLine = (judge: SecondJudgeResult) =>
  judge.calls.length === 0
    ? ""
    : `<p class="hint">${judge.calls.length} call${judge.calls.length === 1 ? "" : "s"} to Claude, ${escapeHtml(formatUsd(judge.cost_usd))} as Claude Code reported it.</p>`

/** The second judge's verdict, its agreement with the first, its own table and its cost; nothing without one. */
export const secondJudgeSection = (evaluation: unknown): string => {
  const judge = secondJudgeResultOf(evaluation)
  if (judge === null) return ""
  const table = judge.evaluation === null ? "" : renderEvaluationTable(judge.evaluation)
  return `<section class="second-judge" aria-labelledby="second-judge-heading"><h2 id="second-judge-heading">Second judge (Claude)</h2><p class="second-judge-verdict">${escapeHtml(secondJudgeSentence(judge))}</p>${costLine(judge)}${table}</section>`
}
