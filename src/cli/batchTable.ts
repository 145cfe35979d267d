/** The end of `codex-replay batch`: one row per replay of the batch, its thread by title, its tokens and costs, and the totals. */
import type { BatchSummary } from "../domain/batch.js"
import { caveatLabels, caveatsBesideVerdict, verdictWords } from "../domain/report/caveats.js"
import { visible } from "../domain/report/visible.js"
import { REPLAY_COLUMNS, spendCells, type SpendCells, spendTotals, type TableSpec } from "./table.js"

type Item = BatchSummary["items"][number]

/** A replay's verdict with its caveats' labels and, under it, its checks' sentence (control characters escaped). */
export const batchVerdictCell = (item: Item) => {
  if (item.status !== "completed") return item.error === null || item.error === undefined ? "" : visible(item.error.split("\n")[0] ?? "")
  const labels = caveatLabels(caveatsBesideVerdict(item.caveats ?? []))
  const checks = typeof item.checks === "string" ? `\n${visible(item.checks)}` : ""
  return `${verdictWords(item.winner, item.caveats ?? [])}${labels === "" ? "" : ` [${labels}]`}${checks}`
}

/** A replay's tokens (of all its calls), Codex's cost and its evaluation's cost, as the batch recorded them once it ended. */
const spendOf = (item: Item): SpendCells => ({
  input: item.tokens?.input,
  output: item.tokens?.output,
  codex: item.codex_usd,
  evaluation: item.evaluation_usd
})

/**
 * The batch's replays as a table: run, thread (its title when known), model, status, verdict, the tokens of
 * its calls, Codex's cost and the evaluation's cost as `runs` shows them; a totals row of counts and sums.
 */
export const batchTable = (summary: Pick<BatchSummary, "items">, titles: ReadonlyMap<string, string>): TableSpec => {
  const { items } = summary
  const completed = items.filter((item) => item.status === "completed")
  const count = (winner: string) => completed.filter((item) => item.winner === winner).length
  const threads = new Set(items.map((item) => item.thread_id)).size
  return {
    columns: REPLAY_COLUMNS,
    rows: items.map((item) => [
      item.run_id ?? "-",
      titles.get(item.thread_id) ?? item.thread_id,
      item.model,
      item.status,
      batchVerdictCell(item),
      ...spendCells(spendOf(item))
    ]),
    totals: [
      "Total",
      `${threads} thread(s)`,
      "",
      `${completed.length} of ${items.length} completed`,
      `Codex wins ${count("codex")} · Claude wins ${count("claude")} · neither ${completed.length - count("codex") - count("claude")}`,
      ...spendTotals(items.map(spendOf))
    ]
  }
}
