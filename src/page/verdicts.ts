/**
 * A verdict in words wherever the page shows one (Results, the Runs list, the batch view): the caveats'
 * words (src/domain/report/caveats.ts) and the evaluation table's (evaluationTable.ts), never a copy.
 */
import type { ReplayReport } from "../domain/contracts/index.js"
import {
  type Caveat,
  caveatLabels as sharedCaveatLabels,
  caveatsBesideVerdict,
  caveatsOfReport,
  tallyCounts as sharedTallyCounts,
  verdictLine
} from "../domain/report/caveats.js"
import { winnerText as evaluationWinnerText } from "../domain/report/evaluationTable.js"
import { verdictHeadline } from "../domain/report/report.js"
import { visible } from "../domain/report/visible.js"

type Caveats = ReadonlyArray<Caveat> | null | undefined

/** A winner in the evaluation table's words (`Codex replay`, `Historical Claude`, `Tie`, …). */
export const winnerText = (winner: string | null | undefined) => evaluationWinnerText(winner)

/** A verdict on one line (the Runs list, the recent runs, every model beside Claude): `verdictLine`, as the grid and the portfolio say it. */
export const runVerdictText = (winner: string | null, caveats: Caveats) => verdictLine(winner, caveats ?? [])

/** A report's verdict on one line, its caveats recorded or (an older report) derived. */
export const reportVerdictLine = (report: ReplayReport) => verdictLine(report.winner ?? null, caveatsOfReport(report))

/** The verdict's headline on Results: report.html's own (`verdictHeadline`). */
export const reportVerdictText = (report: ReplayReport) => verdictHeadline(report.winner ?? null, caveatsOfReport(report))

/** The labels of the caveats left to name beside the verdict's words. */
export const caveatLabels = (caveats: Caveats) => sharedCaveatLabels(caveatsBesideVerdict(caveats ?? []))

/** A possible leak has its own badge and words wherever a verdict is shown. */
export const notLeak = (caveats: Caveats) => (caveats ?? []).filter((caveat) => caveat.kind !== "possible_leak")

export const tallyCounts = (winner: string | null, caveats: Caveats) => sharedTallyCounts(winner, caveats ?? [])

/** A command or a sentence as it is, with control, bidirectional and zero-width characters written as escapes. */
export const visibleText = (text: unknown) => visible(String(text))
