import { Effect, Schema } from "effect"
import { CHECK_CHANGE_LABELS, CHECK_STATUS_LABELS, type CheckRow, ChecksComparison, type SideCheck } from "../domain/checks/outcomes.js"
import { ReplayReport } from "../domain/contracts/index.js"
import { visible } from "../domain/report/visible.js"
import { POSSIBLE_LEAK, reportIntegrity } from "../domain/report/integrity.js"
import { FileStore } from "../services/FileStore.js"
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
  /** What to weigh before acting on the verdict, as the report says it (not like-for-like, self-review, orders that disagreed); absent when none. */
  readonly caveats?: ReadonlyArray<string>
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
    ...caveatsOf(report),
    ...judgesOf(state, report)
  }
}

/** Every dimension a tie because the two orders disagreed on it: a tie by disagreement is no verdict. */
export const ordersDisagreed = (report: Json | undefined) => {
  const evaluation = report?.evaluation
  if (report?.winner !== "tie" || evaluation === null || typeof evaluation !== "object") return false
  const comparable: unknown = evaluation.comparable_dimensions
  const dimensions = (evaluation.dimensions ?? {}) as Json
  return Array.isArray(comparable) && comparable.length > 0 &&
    comparable.every((id) => dimensions[String(id)]?.order_dependent === true)
}

/** The caveats the report states, in the words the page and the report use. */
const caveatsOf = (report: Json | undefined): Pick<Verdict, "caveats"> => {
  if (report === undefined) return {}
  const caveats: Array<string> = []
  const comparability = report.comparability
  if (comparability?.like_for_like === false) {
    const concerns = Array.isArray(comparability.concerns) ? comparability.concerns.filter((item: unknown) => typeof item === "string") : []
    caveats.push(`not like-for-like${concerns.length === 0 ? "" : `: ${concerns.join(" ")}`}`)
  }
  // The comparability's concerns already name a self-review when they hold one.
  const named = caveats.some((caveat) => /self-review/i.test(caveat))
  if (report.about_review?.self_review === true && !named) {
    const reviewer = typeof report.about_review.reviewer_model === "string" ? report.about_review.reviewer_model : "the replayed model"
    caveats.push(`self-review: ${reviewer} judged its own replay against Claude's result`)
  }
  if (ordersDisagreed(report)) caveats.push("inconclusive: the two review orders disagreed on every dimension")
  return caveats.length === 0 ? {} : { caveats: caveats.map((caveat) => visible(caveat)) }
}

/** The orders without a validated ballot, from the run's summary (or its report). */
const missingOf = (state: Json, report: Json | undefined): Pick<Verdict, "missing_orders"> => {
  const reviews: unknown = state.report_summary?.evaluation?.reviews ?? report?.evaluation?.reviews
  if (!Array.isArray(reviews)) return {}
  const missing = reviews.filter((review: Json) => review?.status !== "completed").map((review: Json) => String(review?.order))
  return missing.length === 0 ? {} : { missing_orders: missing }
}

const ORDER_NAMES: Record<string, string> = { AB: "A/B", BA: "B/A" }

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

const WINNERS: Record<string, string> = {
  codex: "Codex wins",
  claude: "Claude wins",
  tie: "Tie",
  inconclusive: "Inconclusive (no order-balanced verdict)",
  disagreed: "Inconclusive (the two orders disagreed)"
}

export const formatDuration = (ms: number | null) => {
  if (ms === null || ms < 0) return "unknown"
  const seconds = Math.round(ms / 1000)
  if (seconds < 60) return `${seconds} s`
  const minutes = Math.floor(seconds / 60)
  if (minutes < 60) return `${minutes} min ${String(seconds % 60).padStart(2, "0")} s`
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, "0")} min`
}

const formatUsd = (usd: number | null) =>
  usd === null ? "unknown" : `$${usd >= 1 ? usd.toFixed(2) : usd >= 0.01 ? usd.toFixed(3) : usd.toFixed(4)}`

/** `m:ss` for a counter. */
export const clock = (ms: number) => {
  const seconds = Math.max(0, Math.floor(ms / 1000))
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`
}

/** The verdict in three lines (four with a possible leak): who won and by how many dimensions, then time and cost on both sides (the checks: `checksLines`). */
export const verdictLines = (verdict: Verdict) => {
  // An inconclusive run has no dimension won or lost: its ties would read as a verdict.
  const tally = verdict.dimensions === null || verdict.winner === "inconclusive"
    ? ""
    : ` — ${verdict.dimensions.won} dimension(s) won, ${verdict.dimensions.tied} tied, ${verdict.dimensions.lost} lost`
  const similarity = verdict.integrity?.similarity
  const disagreed = (verdict.caveats ?? []).some((caveat) => caveat.startsWith("inconclusive: the two review orders disagreed"))
  return [
    `Verdict: ${verdict.winner === null ? "no verdict" : WINNERS[disagreed ? "disagreed" : verdict.winner] ?? verdict.winner}${disagreed ? "" : tally}${verdict.judges_split === true ? " (split)" : ""}`,
    ...judgesLines(verdict),
    ...(verdict.missing_orders === undefined
      ? []
      : [`Ballots: no validated ballot for the ${verdict.missing_orders.map((order) => ORDER_NAMES[order] ?? order).join(" and ")} order${verdict.missing_orders.length === 1 ? "" : "s"}${verdict.missing_orders.length === 2 ? ": there is no verdict" : ""}.`]),
    ...(verdict.integrity?.matches_claude === true
      ? [`Warning: Codex's patch ${POSSIBLE_LEAK}${typeof similarity === "number" ? ` (${Math.floor(similarity * 100)}% of the changed lines are Claude's)` : ""}; the verdict is not counted.`]
      : []),
    ...(verdict.caveats ?? []).map((caveat) => `Caveat:  ${caveat}`),
    `Time:    Codex ${formatDuration(verdict.codex.elapsed_ms)} · Claude ${formatDuration(verdict.claude.elapsed_ms)}`,
    `Cost:    Codex ${formatUsd(verdict.codex.cost_usd)} · Claude ${formatUsd(verdict.claude.cost_usd)}`
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
    return `failed${atTime(state.completed_at ?? state.updated_at)}${error === "" ? "" : `: ${error}`} — no report`
  }
  if (state.status === "running") return "still running — no report yet"
  return `${String(state.status)} — no report`
}
