import { Either } from "effect"
import { type ControllerError, invalidArgument } from "../domain/errors.js"
import { parseSecondJudge, type SecondJudgeResult, secondJudgeResultOf, secondJudgeSentence } from "../domain/review/secondJudge.js"

type Json = Record<string, any>

/** The second judge as the CLI's verdict carries it (`--json`), with the sentence the report and the page use. */
export interface SecondJudgeVerdict {
  readonly judge: string
  readonly model: string | null
  readonly status: string
  readonly winner: string
  readonly agreement: string
  readonly cost_usd: number
  readonly sentence: string
}

const fromResult = (judge: SecondJudgeResult): SecondJudgeVerdict => ({
  judge: judge.judge,
  model: judge.model,
  status: judge.status,
  winner: judge.winner,
  agreement: judge.agreement,
  cost_usd: judge.cost_usd,
  sentence: secondJudgeSentence(judge)
})

const fromSummary = (summary: Json): SecondJudgeVerdict | null =>
  typeof summary.winner === "string" && typeof summary.agreement === "string"
    ? {
      judge: String(summary.judge ?? "claude"),
      model: typeof summary.model === "string" ? summary.model : null,
      status: String(summary.status ?? "completed"),
      winner: summary.winner,
      agreement: summary.agreement,
      cost_usd: typeof summary.cost_usd === "number" ? summary.cost_usd : 0,
      sentence: typeof summary.sentence === "string" ? summary.sentence : `Second judge: ${summary.winner}.`
    }
    : null

/** The second judge and whether the judges split, from the report (or the run's summary); nothing when none was asked for. */
export const judgesOf = (state: Json, report: Json | undefined): { readonly judges_split?: boolean; readonly second_judge?: SecondJudgeVerdict } => {
  const recorded = secondJudgeResultOf(report?.evaluation)
  const judge = recorded === null
    ? (typeof state.report_summary?.second_judge === "object" && state.report_summary.second_judge !== null ? fromSummary(state.report_summary.second_judge) : null)
    : fromResult(recorded)
  return judge === null ? {} : { judges_split: judge.agreement === "split", second_judge: judge }
}

const FIRST_JUDGE_WORDS: Record<string, string> = { codex: "Codex", claude: "Claude", tie: "a tie", inconclusive: "no verdict" }

/**
 * The CLI's line on the judges: the first (Codex) judge's verdict, then the second judge's sentence (its
 * verdict and their agreement); nothing when no second judge was asked for.
 */
export const judgesLines = (verdict: {
  readonly winner: string | null
  readonly caveats: ReadonlyArray<{ readonly kind: string }>
  readonly second_judge?: SecondJudgeVerdict
}): ReadonlyArray<string> => {
  if (verdict.second_judge === undefined) return []
  const disagreed = verdict.caveats.some((caveat) => caveat.kind === "inconclusive")
  const first = verdict.winner === null ? "no verdict" : disagreed ? "no verdict (its two orders disagreed)" : FIRST_JUDGE_WORDS[verdict.winner] ?? verdict.winner
  return [`Judges:  Codex reviewer: ${first} · ${verdict.second_judge.sentence}`]
}

/** `--second-judge`: claude or claude:MODEL, checked before anything is contacted or written. */
export const checkSecondJudge = (value: string | undefined): Either.Either<void, ControllerError> =>
  value === undefined ? Either.void : Either.mapBoth(parseSecondJudge(value), { onLeft: invalidArgument, onRight: () => undefined })

/** The configuration with the second judge asked for on the command line. */
export const withSecondJudge = (value: string | undefined) => <C extends object>(configuration: C): C | (C & { readonly second_judge: string }) =>
  value === undefined ? configuration : { ...configuration, second_judge: value.trim() }

/** What the approval shows of the second judge `prepare_run` accepted. */
export const secondJudgeLine = (prepared: { readonly second_judge?: string | null | undefined }): ReadonlyArray<string> =>
  typeof prepared.second_judge === "string" ? [`Second judge: ${prepared.second_judge} (Claude Code, both orders; its cost is counted)`] : []
