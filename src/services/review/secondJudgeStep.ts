import { Effect, Either } from "effect"
import type { Evaluation } from "../../domain/review/evaluation.js"
import { type JudgeCall, parseSecondJudge, secondJudgeResultOf, secondJudgeSentence } from "../../domain/review/secondJudge.js"
import type { ClaudeJudge } from "./ClaudeJudge.js"

/** The run's evaluation with the second judge's added, when the run asked for one (it was validated at prepare). */
export const withSecondJudge = (
  judge: ClaudeJudge,
  runDirectory: string,
  asked: string | undefined,
  evaluation: Evaluation,
  runTag: string,
  onCall: (call: JudgeCall) => Effect.Effect<void>
) => {
  if (asked === undefined) return Effect.succeed(evaluation)
  const spec = parseSecondJudge(asked)
  return Either.isLeft(spec) ? Effect.succeed(evaluation) : judge.judgeRun({ runDirectory, spec: spec.right, evaluation, runTag, onCall })
}

/** What the run's `report_summary` says of the second judge: nothing when none was asked for. */
export const secondJudgeSummary = (evaluation: Evaluation) => {
  const second = secondJudgeResultOf(evaluation)
  if (second === null) return {}
  return {
    judges_split: second.agreement === "split",
    second_judge: {
      judge: second.judge,
      model: second.model,
      status: second.status,
      reason: second.reason,
      winner: second.winner,
      agreement: second.agreement,
      missing_orders: second.evaluation?.missing_orders ?? [],
      cost_usd: second.cost_usd,
      sentence: secondJudgeSentence(second)
    }
  }
}
