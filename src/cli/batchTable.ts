/** The end of `codex-replay batch`: one row per replay of the batch, its thread by title, and the counts. */
import type { BatchSummary } from "../domain/batch.js"
import { caveatLabels, caveatsBesideVerdict, verdictWords } from "../domain/report/caveats.js"
import { visible } from "../domain/report/visible.js"
import type { TableSpec } from "./table.js"

type Item = BatchSummary["items"][number]

/** A replay's verdict with its caveats' labels and, under it, its checks' sentence (control characters escaped). */
export const batchVerdictCell = (item: Item) => {
  if (item.status !== "completed") return item.error === null || item.error === undefined ? "" : visible(item.error.split("\n")[0] ?? "")
  const labels = caveatLabels(caveatsBesideVerdict(item.caveats ?? []))
  const checks = typeof item.checks === "string" ? `\n${visible(item.checks)}` : ""
  return `${verdictWords(item.winner, item.caveats ?? [])}${labels === "" ? "" : ` [${labels}]`}${checks}`
}

/** The batch's replays as a table: run, thread (its title when known), model, status and verdict; a totals row of counts. */
export const batchTable = (summary: Pick<BatchSummary, "items">, titles: ReadonlyMap<string, string>): TableSpec => {
  const completed = summary.items.filter((item) => item.status === "completed")
  const count = (winner: string) => completed.filter((item) => item.winner === winner).length
  const threads = new Set(summary.items.map((item) => item.thread_id)).size
  return {
    columns: [
      { header: "Run" },
      { header: "Thread", wraps: true },
      { header: "Model" },
      { header: "Status" },
      { header: "Verdict", wraps: true }
    ],
    rows: summary.items.map((item) => [
      item.run_id ?? "-",
      titles.get(item.thread_id) ?? item.thread_id,
      item.model,
      item.status,
      batchVerdictCell(item)
    ]),
    totals: [
      "Total",
      `${threads} thread(s)`,
      "",
      `${completed.length} of ${summary.items.length} completed`,
      `Codex wins ${count("codex")} · Claude wins ${count("claude")} · neither ${completed.length - count("codex") - count("claude")}`
    ]
  }
}
