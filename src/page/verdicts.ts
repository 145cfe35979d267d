/**
 * A verdict in words wherever the page shows one (Results, the Runs list, the batch view): the caveats'
 * words (src/domain/report/caveats.ts) and the evaluation table's (evaluationTable.ts), never a copy.
 */
import type { ReplayReport } from "../domain/contracts/index.js"
import {
  type Caveat,
  caveatFactsOfReport,
  caveatLabels as sharedCaveatLabels,
  caveatsBesideVerdict,
  tallyCounts as sharedTallyCounts,
  verdictWords
} from "../domain/report/caveats.js"
import { winnerText as evaluationWinnerText } from "../domain/report/evaluationTable.js"
import { AUTHOR_LABELS } from "../domain/report/report.js"
import { visible } from "../domain/report/visible.js"

type Caveats = ReadonlyArray<Caveat> | null | undefined

/** The one-line views' words of a winner. */
export const VERDICTS: Readonly<Record<string, string>> = { codex: "Codex wins", claude: "Claude wins", tie: "Tie", inconclusive: "Inconclusive" }

/** A winner in the evaluation table's words (`Codex replay`, `Historical Claude`, `Tie`, …). */
export const winnerText = (winner: string | null | undefined) => evaluationWinnerText(winner)

/** The headline of a winner: `Codex replay wins`, `Historical Claude wins`, `Tie` or `Inconclusive`. */
export const verdictText = (winner: string | null | undefined) =>
  winner === "codex" ? `${AUTHOR_LABELS.codex} wins` : winner === "claude" ? `${AUTHOR_LABELS.claude} wins` : winner === "tie" ? "Tie" : "Inconclusive"

/** A tie because the two review orders disagreed on every dimension is no verdict, and reads as such. */
export const ordersDisagreed = (report: ReplayReport) => caveatFactsOfReport(report).orders_disagreed === true

/** The words said instead of a winner (no verdict, orders that disagreed, judges that split), or null: the reports' words, capitalised. */
export const caveatsVerdict = (caveats: Caveats): string | null => {
  const all = caveats ?? []
  if (caveatsBesideVerdict(all).length === all.length) return null
  const words = verdictWords(null, all)
  return words.charAt(0).toUpperCase() + words.slice(1)
}

/** The verdict's headline on Results. */
export const reportVerdictText = (report: ReplayReport) =>
  caveatsVerdict(report.caveats) ?? (ordersDisagreed(report) ? "Inconclusive (the two orders disagreed)" : verdictText(report.winner))

/** The labels of the caveats left to name beside the verdict's words. */
export const caveatLabels = (caveats: Caveats) => sharedCaveatLabels(caveatsBesideVerdict(caveats ?? []))

/** A possible leak has its own badge and words wherever a verdict is shown. */
export const notLeak = (caveats: Caveats) => (caveats ?? []).filter((caveat) => caveat.kind !== "possible_leak")

export const tallyCounts = (winner: string | null, caveats: Caveats) => sharedTallyCounts(winner, caveats ?? [])

/** A command or a sentence as it is, with control, bidirectional and zero-width characters written as escapes. */
export const visibleText = (text: unknown) => visible(String(text))
