import { Effect, Schema } from "effect"
import { CHECK_CHANGE_LABELS, CHECK_STATUS_LABELS, type CheckRow, ChecksComparison, type SideCheck } from "../domain/checks/outcomes.js"
import { ReplayReport } from "../domain/contracts/index.js"
import {
  capitalised,
  type Caveat,
  caveatsOfReport,
  caveatsOfSummary,
  caveatText,
  replacesWinner,
  tallyCounts,
  verdictWords,
  WINNER_LINES
} from "../domain/report/caveats.js"
import { visible } from "../domain/report/visible.js"
import { failureAdvice } from "../domain/failureAdvice.js"
import { POSSIBLE_LEAK, reportIntegrity } from "../domain/report/integrity.js"
import { FileStore } from "../services/FileStore.js"
import { formatUsd as formatDollars, SpendLine, spendLineText } from "../domain/spend.js"
import { judgesLines, judgesOf, type SecondJudgeVerdict } from "./secondJudge.js"

/** One side of a comparison as the summary shows it. */
export interface SideFigures {
  readonly elapsed_ms: number | null
  readonly cost_usd: number | null
}

/** The verdict of a finished run, for a person and for `--json`. */
export interface Verdict {
  readonly winner: string | null
  readonly dimensions: { readonly won: number; readonly tied: number; readonly lost: number } | null
  readonly codex: SideFigures
  readonly claude: SideFigures
  /** Codex's patch against Claude's: whether it matches (a possible leak) and how closely; `null` without a report. */
  readonly integrity: { readonly matches_claude: boolean; readonly similarity: number | null } | null
  /** The checks side by side: the sentence and, from the report, one row per check; absent without checks. */
  readonly checks?: { readonly sentence: string; readonly rows: ReadonlyArray<CheckRow> }
  /** The review orders without a validated ballot (`AB`, `BA`); absent when both have one. */
  readonly missing_orders?: ReadonlyArray<string>
  /** What to weigh before acting on the verdict (`caveatsOf`: the same labels as the report, the page, `runs`, `batch` and the portfolio); empty when none. */
  readonly caveats: ReadonlyArray<Caveat>
  /** Every model call of the run, summed: the implementation, the evaluation (what it cost to know) and the whole; absent in older runs. */
  readonly spend?: { readonly implementation: SpendLine; readonly evaluation: SpendLine; readonly total: SpendLine }
  /** Whether the two judges disagree on the overall winner; absent without a second judge. */
  readonly judges_split?: boolean
  /** The second judge's verdict; absent when the run asked for none. */
  readonly second_judge?: SecondJudgeVerdict
}

type Json = Record<string, any>

const numberOrNull = (value: unknown) => (typeof value === "number" && Number.isFinite(value) ? value : null)

const sideOf = (candidate: Json | undefined): SideFigures => ({
  elapsed_ms: numberOrNull(candidate?.elapsed_ms),
  cost_usd: numberOrNull(candidate?.cost?.usd)
})

/** Reports are large only for huge patches; the summary needs a few of their fields. */
const MAX_REPORT_BYTES = 512 * 1024 * 1024

/** The report's JSON when it is readable, else `undefined`. */
export const readReportJson = (file: string | null): Effect.Effect<Json | undefined, never, FileStore> =>
  file === null
    ? Effect.succeed(undefined)
    : Effect.flatMap(FileStore, (files) => files.readDecoded(file, MAX_REPORT_BYTES, ReplayReport)).pipe(
      Effect.map((value): Json | undefined => value),
      Effect.orElseSucceed(() => undefined)
    )

/** Dimension outcomes from Codex's side, out of the run state's report summary. */
const tallyOf = (state: Json) => {
  const dimensions = Object.values((state.report_summary?.evaluation?.dimensions ?? {}) as Record<string, unknown>)
  if (dimensions.length === 0) return null
  return {
    won: dimensions.filter((winner) => winner === "codex").length,
    tied: dimensions.filter((winner) => winner !== "codex" && winner !== "claude").length,
    lost: dimensions.filter((winner) => winner === "claude").length
  }
}

/** The verdict of a completed run from its state and report, or null when it has none. */
export const verdictOf = (state: Json, report: Json | undefined): Verdict | null => {
  if (state.status !== "completed" && report === undefined) return null
  const candidates = (report?.candidates ?? {}) as Json
  return {
    winner: typeof state.report_summary?.winner === "string" ? state.report_summary.winner : typeof report?.winner === "string" ? report.winner : null,
    dimensions: tallyOf(state),
    codex: sideOf(candidates.codex),
    claude: sideOf(candidates.claude),
    integrity: integrityOf(state, report),
    ...checksOf(state, report),
    ...missingOf(state, report),
    caveats: report === undefined ? caveatsOfSummary(state.report_summary) : caveatsOfReport(report),
    ...spendOfRun(state, report),
    ...judgesOf(state, report)
  }
}

/** The run's ledger sums, from its summary (or its report). */
const spendOfRun = (state: Json, report: Json | undefined): Pick<Verdict, "spend"> => {
  const spend: unknown = state.report_summary?.spend ?? report?.spend ?? state.spend
  const lines = Schema.decodeUnknownOption(Schema.Struct({ implementation: SpendLine, evaluation: SpendLine, total: SpendLine }))(spend)
  return lines._tag === "Some" ? { spend: lines.value } : {}
}

/** " · evaluation $0.090 in 2 calls (what it cost to know)", or nothing for a run from before calls were counted. */
export const spendPart = (spend: Verdict["spend"]): string =>
  spend === undefined
    ? ""
    : ` · evaluation ${spendLineText(spend.evaluation)} in ${spend.evaluation.calls} call${spend.evaluation.calls === 1 ? "" : "s"} (what it cost to know)`

/** The orders without a validated ballot, from the run's summary (or its report). */
const missingOf = (state: Json, report: Json | undefined): Pick<Verdict, "missing_orders"> => {
  const reviews: unknown = state.report_summary?.evaluation?.reviews ?? report?.evaluation?.reviews
  if (!Array.isArray(reviews)) return {}
  const missing = reviews.filter((review: Json) => review?.status !== "completed").map((review: Json) => String(review?.order))
  return missing.length === 0 ? {} : { missing_orders: missing }
}

/** The report's checks, or for a run whose report is not at hand, the sentence its state recorded. */
const checksOf = (state: Json, report: Json | undefined): Pick<Verdict, "checks"> => {
  const checks: unknown = report?.checks
  if (Schema.is(ChecksComparison)(checks)) return { checks: { sentence: checks.sentence, rows: checks.rows } }
  const sentence: unknown = state.report_summary?.checks?.sentence
  return typeof sentence === "string" ? { checks: { sentence, rows: [] } } : {}
}

const sideText = (name: string, side: SideCheck) => {
  const details = [
    ...(side.exit_code === null ? [] : [`exit ${side.exit_code}`]),
    side.status === "could_not_run" ? "not counted" : CHECK_CHANGE_LABELS[side.change]
  ]
  return `${name} ${CHECK_STATUS_LABELS[side.status]} (${details.join(", ")}${side.reason === null ? "" : `: ${visible(side.reason)}`})`
}

/** The checks in lines: the sentence, then each check at the start, on Claude's result and on Codex's, control characters shown escaped. */
export const checksLines = (checks: Verdict["checks"]): ReadonlyArray<string> => checks === undefined ? [] : [
  `Checks:  ${visible(checks.sentence)}`,
  ...checks.rows.map((row) =>
    `  ${visible(row.command)}${row.directory === "." ? "" : ` (in ${visible(row.directory)})`}: start ${CHECK_STATUS_LABELS[row.start]} · ${
      sideText("Claude", row.claude)
    } · ${sideText("Codex", row.codex)}`
  )
]

/** The report's check, or for a run whose report is not at hand, what its state recorded of it. */
const integrityOf = (state: Json, report: Json | undefined): Verdict["integrity"] => {
  const integrity = reportIntegrity(report)
  if (integrity !== null) return { matches_claude: integrity.matches_claude, similarity: integrity.similarity }
  return typeof state.report_summary?.possible_leak === "boolean" ? { matches_claude: state.report_summary.possible_leak, similarity: null } : null
}

/** The verdict's headline words: the winner, unless a caveat says there is none (no verdict, orders that disagreed, judges split: `verdictWords`). */
const headline = (verdict: Verdict) => {
  if (replacesWinner(verdict.caveats)) {
    const words = verdictWords(verdict.winner, verdict.caveats)
    // No verdict or orders that disagreed say so first; judges that split as well are said after it.
    const split = words !== "split" && verdict.caveats.some((caveat) => caveat.kind === "split") ? " (split)" : ""
    return `${capitalised(words)}${split}`
  }
  return verdict.winner === null ? "no verdict" : WINNER_LINES[verdict.winner] ?? verdict.winner
}

export const formatDuration = (ms: number | null) => {
  if (ms === null || ms < 0) return "unknown"
  const seconds = Math.round(ms / 1000)
  if (seconds < 60) return `${seconds} s`
  const minutes = Math.floor(seconds / 60)
  if (minutes < 60) return `${minutes} min ${String(seconds % 60).padStart(2, "0")} s`
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, "0")} min`
}

const formatUsd = (usd: number | null) => (usd === null ? "unknown" : formatDollars(usd))

/** `m:ss` for a counter. */
export const clock = (ms: number) => {
  const seconds = Math.max(0, Math.floor(ms / 1000))
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`
}

/** The verdict in three lines, then a possible leak's warning and one line per other caveat: who won and by how many dimensions, then time and cost on both sides (the checks: `checksLines`). */
export const verdictLines = (verdict: Verdict) => {
  // No verdict, one order without a ballot or orders that disagreed: the ties would read as a verdict.
  const tally = verdict.dimensions === null || !tallyCounts(verdict.winner, verdict.caveats)
    ? ""
    : ` — ${verdict.dimensions.won} dimension(s) won, ${verdict.dimensions.tied} tied, ${verdict.dimensions.lost} lost`
  const similarity = verdict.integrity?.similarity
  return [
    `Verdict: ${headline(verdict)}${tally}`,
    ...judgesLines(verdict),
    ...(verdict.integrity?.matches_claude === true
      ? [`Warning: Codex's patch ${POSSIBLE_LEAK}${typeof similarity === "number" ? ` (${Math.floor(similarity * 100)}% of the changed lines are Claude's)` : ""}; the verdict is not counted.`]
      : []),
    // The warning above says a possible leak with its figure.
    ...verdict.caveats.filter((caveat) => caveat.kind !== "possible_leak").map((caveat) => `Caveat:  ${caveatText(caveat)}`),
    `Time:    Codex ${formatDuration(verdict.codex.elapsed_ms)} · Claude ${formatDuration(verdict.claude.elapsed_ms)}`,
    `Cost:    Codex ${formatUsd(verdict.codex.cost_usd)} · Claude ${formatUsd(verdict.claude.cost_usd)}${spendPart(verdict.spend)}`
  ]
}

const atTime = (iso: unknown) => {
  if (typeof iso !== "string") return ""
  const date = new Date(iso)
  return Number.isNaN(date.getTime()) ? "" : ` at ${date.toTimeString().slice(0, 5)}`
}

/** What a run without a report says about itself: cancelled, failed or still running. */
export const noReportSentence = (state: Json) => {
  const error = typeof state.error === "string" && state.error !== "" ? state.error.split("\n")[0] : ""
  if (state.status === "cancelled") {
    const by = state.cancellation_reason === "user_requested" || error === "Cancelled by user." ? " by the user" : ""
    return `cancelled${by}${atTime(state.completed_at ?? state.updated_at)} — no report`
  }
  if (state.status === "failed") {
    const advice = failureAdvice(state.failure_diagnostic, state.error)
    return `failed${atTime(state.completed_at ?? state.updated_at)}${error === "" ? "" : `: ${error}`} — no report${advice === null ? "" : `. ${advice.replace(/\.$/, "")}`}`
  }
  if (state.status === "running") return "still running — no report yet"
  return `${String(state.status)} — no report`
}
