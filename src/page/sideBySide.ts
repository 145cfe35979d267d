/**
 * Every model of one start beside Claude, on Results: one row per run of the start's thread, grouped per
 * model with its repeats, and Claude once. Only runs of the shown run's thread and start are listed.
 */
import { Option, Schema } from "effect"
import type { ReplayReport } from "../domain/contracts/index.js"
import { DIMENSIONS } from "../domain/review/dimensions.js"
import { secondJudgeResultOf } from "../domain/review/secondJudge.js"
import { formatUsd } from "../domain/report/format.js"
import { Spend, type SpendLine, spendLineText as sharedSpendLineText } from "../domain/spend.js"
import { callTool } from "./client.js"
import { h, scrollTable } from "./dom.js"
import { formatDuration, integer } from "./format.js"
import { pageHost, type RunView, section, read } from "./pageHost.js"
import { candidateOf, type CandidateView, costText } from "./resultsSections.js"
import { caveatLabels, notLeak, reportVerdictLine } from "./verdicts.js"

const DIMENSION_SHORT: Readonly<Record<string, string>> = { reliability: "Reliability", code_quality: "Code quality", request_fulfillment: "Request", change_scope: "Scope", safe_operations: "Safety", accurate_reporting: "Reporting" }
const EDGE: Readonly<Record<string, string>> = { codex: "better than Claude", claude: "worse than Claude", same: "same as Claude", mixed: "mixed" }

export async function loadReports(ids: ReadonlyArray<string>) {
  const { app } = pageHost()
  await Promise.all(ids.filter((id) => app.reports[id] === undefined).map(async (id) => {
    try {
      const result = await callTool("get_report", { run_id: id })
      if ("report" in result) app.reports[id] = result.report
    } catch {
      // shown as missing in the table
    }
  }))
}

/** A report candidate's tokens (ordinary input, cache read and write, output) in one figure. */
export function candidateTokens(candidate: CandidateView): number | null {
  const t = candidate.tokens
  return t ? t.ordinary_input + t.cache_read + t.cache_write + t.output : null
}

/** A sum of calls: "$0.120", "$0.120 + 1 call not priced", "not priced (2 calls)" or "nothing". */
export const spendLineText = (line: SpendLine | null | undefined) => (line ? sharedSpendLineText(line) : "nothing")

const decodeSpend = Schema.decodeUnknownOption(Spend)
const spendOf = (report: ReplayReport, line: "evaluation" | "implementation"): SpendLine | null =>
  Option.getOrNull(Option.map(decodeSpend(read(report, "spend")), (spend) => spend[line]))

type Row = readonly [string, ReplayReport]

/** Under the every-model table: the Codex runs summed, Claude's cost once (one thread), the evaluation apart. */
export function everyModelCostLine(reports: ReadonlyArray<Row>): HTMLElement | null {
  const first = reports[0]
  if (first === undefined) return null
  const sum = (values: ReadonlyArray<number>) => values.reduce((total, value) => total + value, 0)
  const codex = reports.flatMap(([, report]) => {
    const usd = candidateOf(report, "codex").cost?.usd
    return typeof usd === "number" ? [usd] : []
  })
  const evaluation = reports.flatMap(([, report]) => {
    const usd = spendOf(report, "evaluation")?.usd
    return typeof usd === "number" ? [usd] : []
  })
  return h("p", { className: "hint", id: "every-model-cost", text: `All ${reports.length} Codex implementations: ${formatUsd(sum(codex))}${codex.length < reports.length ? ` (${reports.length - codex.length} not priced)` : ""} · Claude, counted once for the thread: ${costText(candidateOf(first[1], "claude").cost)} · evaluation (what it cost to know): ${evaluation.length > 0 ? formatUsd(sum(evaluation)) : "not recorded"}` })
}

/** The runs shown beside `id`: the page's runs of the same thread and start (never another thread's). */
export function startSiblings(id: string, ids: ReadonlyArray<string>): Array<string> {
  const { app } = pageHost()
  const shown = app.runs[id]
  const thread = shown?.thread_id ?? app.reports[id]?.thread_id
  const start = shown?.prepare_token_hash
  return ids.filter((other) => {
    const run = app.runs[other]
    const otherThread = run?.thread_id ?? app.reports[other]?.thread_id
    if (other === id) return true
    if (thread === undefined || otherThread !== thread) return false
    return start === undefined || start === null || run?.prepare_token_hash === undefined || run.prepare_token_hash === start
  })
}

const repeatLabel = (run: RunView | undefined) => (run?.repeat === undefined ? "" : ` · repeat ${run.repeat.index} of ${run.repeat.of}`)

const dimensionCell = (report: ReplayReport, id: string) => {
  const dimensions = read(report.evaluation, "dimensions")
  const result = typeof dimensions === "object" && dimensions !== null ? Reflect.get(dimensions, id) : null
  const winner = typeof result === "object" && result !== null ? String(Reflect.get(result, "winner") ?? "") : ""
  return h("td", { className: `outcome outcome-${winner || "none"}`, text: winner === "codex" ? "won" : winner === "claude" ? "lost" : winner === "tie" ? "tie" : winner ? "N/A" : "—" })
}

/** Passed of those that ran (a check that could not run counts for neither side); Claude's is shared by the start's models. */
const tallyText = (report: ReplayReport, side: "codex" | "claude") => {
  const tally = report.checks?.tally[side]
  if (tally === undefined) return "—"
  return tally.ran === 0 ? "could not run" : `${tally.passed} of ${tally.ran}`
}

/** Where a run goes among its start's: by model, then by repeat. */
const modelOrder = (id: string) => {
  const { app } = pageHost()
  const run = app.runs[id]
  return `${candidateOf(app.reports[id] ?? {}, "codex").model ?? run?.model ?? id}\u0000${String(run?.repeat?.index ?? 0).padStart(2, "0")}`
}

/** A start's runs grouped per model, each model's repeats in order. */
export const byModel = (ids: ReadonlyArray<string>) => [...ids].sort((a, b) => modelOrder(a).localeCompare(modelOrder(b)))

export function sideBySideTable(ids: ReadonlyArray<string>, open: (id: string) => void): HTMLElement | null {
  const { app } = pageHost()
  const reports = ids.flatMap((id): Array<Row> => {
    const report = app.reports[id]
    return report === undefined ? [] : [[id, report]]
  }).sort(([a], [b]) => modelOrder(a).localeCompare(modelOrder(b)))
  const first = reports[0]
  if (first === undefined || reports.length < 2) return null
  const claude = candidateOf(first[1], "claude")
  const withChecks = reports.find(([, report]) => report.checks)
  const rows = reports.map(([id, report]) => {
    const codex = candidateOf(report, "codex")
    const edge = report.checks?.edge ? EDGE[report.checks.edge] : undefined
    const split = secondJudgeResultOf(report.evaluation)?.agreement === "split"
    const labels = caveatLabels(notLeak(report.caveats))
    const verdict = reportVerdictLine(report)
    return h("tr", { "data-run-id": id, "data-model": codex.model ?? "" },
      h("th", { scope: "row" }, h("span", { className: "mono", text: codex.model ?? id }), repeatLabel(app.runs[id]) ? h("span", { className: "muted repeat-label", text: repeatLabel(app.runs[id]) }) : null),
      h("td", {}, h("strong", { text: verdict }),
        labels ? [" ", h("span", { className: "muted caveat-labels", text: labels })] : null,
        read(report.integrity, "matches_claude") === true ? [" ", h("span", { className: "badge badge-warn", text: "possible leak" })] : null,
        split && verdict !== "Split" ? [" ", h("span", { className: "badge badge-warn", text: "split" })] : null),
      DIMENSIONS.map((d) => dimensionCell(report, d.id)),
      h("td", { className: "checks-cell" }, tallyText(report, "codex"), edge ? [h("br"), h("span", { className: "muted", text: edge })] : null),
      h("td", { className: "num", text: formatDuration(codex.elapsed_ms) }),
      h("td", { className: "num", text: integer(candidateTokens(codex)) }),
      h("td", { className: "num", text: costText(codex.cost) }),
      h("td", { className: "num evaluation-cost", text: spendLineText(spendOf(report, "evaluation")) }),
      h("td", {}, h("button", { type: "button", className: "secondary small", text: "Details", "aria-label": `Details of ${codex.model ?? id}${repeatLabel(app.runs[id])}`, onClick: () => open(id) })))
  })
  rows.push(h("tr", { className: "claude-row" },
    h("th", { scope: "row", text: `Historical Claude (${claude.model ?? "—"})` }), h("td", { text: "—" }), DIMENSIONS.map(() => h("td", { text: "—" })),
    h("td", { className: "checks-cell", text: withChecks ? tallyText(withChecks[1], "claude") : "—" }),
    h("td", { className: "num", text: formatDuration(claude.elapsed_ms) }), h("td", { className: "num", text: integer(candidateTokens(claude)) }),
    h("td", { className: "num", text: costText(claude.cost) }), h("td", { text: "—" }), h("td", { text: "—" })))
  return section("Every model beside Claude", scrollTable("Every model beside Claude", h("table", { className: "side-table" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col", text: "Model" }), h("th", { scope: "col", text: "Verdict" }),
      DIMENSIONS.map((d) => h("th", { scope: "col", text: DIMENSION_SHORT[d.id] ?? d.label })),
      h("th", { scope: "col", text: "Checks" }),
      h("th", { scope: "col", text: "Time" }), h("th", { scope: "col", text: "Tokens" }), h("th", { scope: "col", text: "Cost" }), h("th", { scope: "col", text: "Evaluation cost" }), h("th", { scope: "col", text: "Details" }))),
    h("tbody", {}, rows))),
  everyModelCostLine(reports),
  h("p", { className: "hint", text: "Dimensions from Codex's side: won, tie or lost against the historical Claude result, agreed in both review orders. Checks: passed of those that ran on that result (one that could not run counts for neither side). Repeats of a model are listed one under the other." }))
}
