import { Either } from "effect"
import type { TokenBuckets } from "../report/tokens.js"
import type { Evaluation, OverallWinner } from "./evaluation.js"

/** The only second judge this product supports: Claude, through Claude Code (docs/verdicts.md). */
export const SECOND_JUDGE = "claude"

/** A second judge as asked: `claude` (Claude Code's default model) or `claude:MODEL`. */
export interface SecondJudgeSpec {
  readonly judge: typeof SECOND_JUDGE
  /** `null`: the model Claude Code chooses by default. */
  readonly model: string | null
}

/** A Claude model name or alias as Claude Code takes it: `sonnet`, `claude-opus-4-1`, `claude-sonnet-4-5[1m]`. */
const CLAUDE_MODEL = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}(\[[a-z0-9]{1,10}\])?$/

const quoted = (value: string) => JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value)

/** `claude` or `claude:MODEL`; anything else is one sentence saying what is accepted. */
export const parseSecondJudge = (value: string): Either.Either<SecondJudgeSpec, string> => {
  const text = value.trim()
  const colon = text.indexOf(":")
  const judge = colon < 0 ? text : text.slice(0, colon)
  if (judge !== SECOND_JUDGE) {
    return Either.left(`Unknown second judge ${quoted(value)}: the only second judge is claude (or claude:MODEL, such as claude:sonnet).`)
  }
  if (colon < 0) return Either.right({ judge: SECOND_JUDGE, model: null })
  const model = text.slice(colon + 1)
  return CLAUDE_MODEL.test(model)
    ? Either.right({ judge: SECOND_JUDGE, model })
    : Either.left(`The second judge's model ${quoted(model)} is not a Claude model name: give claude or claude:MODEL, such as claude:sonnet.`)
}

/** The spec as the configuration, the CLI and the report spell it. */
export const secondJudgeText = (spec: SecondJudgeSpec): string => (spec.model === null ? SECOND_JUDGE : `${SECOND_JUDGE}:${spec.model}`)

/** One model call the second judge made, for the run's cost ledger. */
export interface JudgeCall {
  readonly purpose: "second_judge"
  /** `second_judge:claude:ab`, `second_judge:claude:ba:asked-again`… */
  readonly label: string
  /** The model Claude Code reported, or the one asked for. */
  readonly model: string | null
  readonly tokens: TokenBuckets
  /** What Claude Code reported the call cost (`total_cost_usd`); `null` when it reported nothing. */
  readonly cost_usd: number | null
}

/** `split`: both judges reached a verdict and the overall winners differ. */
export type JudgesAgreement = "agreed" | "split" | "incomplete"

/**
 * `completed`: both orders gave a ballot; `incomplete`: one or both orders have none (failed, or twice
 * not a ballot); `unavailable`: Claude Code could not be run at all (`reason` says why).
 */
export type SecondJudgeStatus = "completed" | "incomplete" | "unavailable"

export interface SecondJudgeResult {
  readonly judge: typeof SECOND_JUDGE
  readonly model: string | null
  readonly status: SecondJudgeStatus
  readonly reason: string | null
  /** The second judge's own order-balanced evaluation of the same candidates, under the same mapping. */
  readonly evaluation: Evaluation | null
  readonly winner: OverallWinner
  /** Agreement of this judge's overall winner with the first judge's. */
  readonly agreement: JudgesAgreement
  readonly calls: ReadonlyArray<JudgeCall>
  /** Sum of the calls' reported costs, in dollars. */
  readonly cost_usd: number
}

/** Whether two overall verdicts agree; an inconclusive one leaves the agreement incomplete. */
export const judgesAgreement = (first: OverallWinner, second: OverallWinner): JudgesAgreement =>
  first === "inconclusive" || second === "inconclusive" ? "incomplete" : first === second ? "agreed" : "split"

/**
 * A judge's overall verdict as it counts for agreement: a tie because its two orders disagreed on every
 * compared dimension is no verdict (inconclusive), like a missing ballot.
 */
export const verdictOf = (evaluation: {
  readonly winner: OverallWinner
  readonly comparable_dimensions: ReadonlyArray<string>
  readonly dimensions: { readonly [id: string]: { readonly order_dependent: boolean } | undefined }
}): OverallWinner =>
  evaluation.winner === "tie" && evaluation.comparable_dimensions.length > 0 &&
    evaluation.comparable_dimensions.every((id) => evaluation.dimensions[id]?.order_dependent === true)
    ? "inconclusive"
    : evaluation.winner

/** The evaluation's second judge, when one was asked for and recorded. */
export const secondJudgeResultOf = (evaluation: unknown): SecondJudgeResult | null => {
  if (typeof evaluation !== "object" || evaluation === null || !("second_judge" in evaluation)) return null
  const judge = (evaluation as { readonly second_judge?: unknown }).second_judge
  return typeof judge === "object" && judge !== null && "agreement" in judge ? judge as SecondJudgeResult : null
}

/** Whether the run's two judges disagree on the overall winner. */
export const judgesSplit = (evaluation: unknown): boolean => secondJudgeResultOf(evaluation)?.agreement === "split"

const WINNER_WORDS: Readonly<Record<OverallWinner, string>> = {
  codex: "Codex",
  claude: "Claude",
  tie: "a tie",
  inconclusive: "no verdict"
}

/** One sentence on the second judge for the report, the page and the CLI. */
export const secondJudgeSentence = (judge: SecondJudgeResult): string => {
  const who = `Second judge (Claude${judge.model === null ? "" : `, ${judge.model}`})`
  if (judge.status === "unavailable") return `${who}: did not run — ${judge.reason ?? "Claude Code could not be started"}.`
  const verdict = `${who}: ${WINNER_WORDS[judge.winner]}`
  const missing = judge.evaluation?.missing_orders ?? []
  const gap = missing.length === 0 ? "" : ` (no ballot for the ${missing.join(" and ")} order${missing.length === 1 ? "" : "s"})`
  const agreement = judge.agreement === "split"
    ? "split: the two judges disagree on the overall winner"
    : judge.agreement === "agreed"
    ? "the two judges agree"
    : "agreement unknown"
  return `${verdict}${gap}; ${agreement}.`
}
