import { DIMENSION_IDS } from "../review/dimensions.js"
import { capitalised, caveatLabels, caveatsBesideVerdict, verdictLine } from "../report/caveats.js"
import { escapeHtml, formatElapsed, formatUsd } from "../report/format.js"
import { documentStart, inScrollRegions, REPORT_CSS } from "../report/styles.js"
import { agreementText } from "./agreement.js"
import { repeatAgreementText } from "./repeats.js"
import { percent, pValue } from "./format.js"
import { embeddedReportLink, embeddedReportsSection, embedReport } from "./embeddedReports.js"
import { portfolioGrid } from "./grid.js"
import { GRID_CSS, renderGridHtml } from "./gridHtml.js"
import { type CheckRate, checkRateText } from "./checksFigures.js"
import type { Counted, ModelPortfolio, Portfolio, PortfolioRun, Tally, Totals } from "./portfolio.js"
import { MAX_PROJECTED_THREADS } from "./statistics.js"

/** Where a run's report is: embedded in the portfolio itself, so the link works wherever the file is saved. */
export const runReportLink = (runId: string) => embeddedReportLink(runId)

/** What a portfolio page carries besides its figures: the grid's titles, the runs' reports and the controller's address. */
export interface PortfolioPageExtras {
  /** Thread titles by thread id, for the grid. */
  readonly titles?: ReadonlyMap<string, string> | undefined
  /** Each run's `report.html` (null: not read). */
  readonly reports?: ReadonlyMap<string, string | null> | undefined
  /** The controller's origin (`http://127.0.0.1:PORT`) when known: every run also links to its address there. */
  readonly controllerOrigin?: string | null | undefined
}

const PORTFOLIO_CSS = `
.figures{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:4px 16px;margin:20px 0 8px;max-width:110ch}.figures dt{font-weight:600}.figures dd{margin:0}
.run-sets{font-size:13px}.run-sets dt{font-weight:600;margin-top:6px}.run-sets dd{margin:0;overflow-wrap:anywhere}
.portfolio-charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,340px),460px));gap:8px 48px;margin:8px 0 12px}
.portfolio-chart{display:block}.portfolio-chart text{font:12px system-ui,sans-serif;fill:var(--ink)}.portfolio-chart .no-verdict{paint-order:stroke;stroke:#fff;stroke-width:4px}
.seg-win{fill:var(--codex)}.seg-loss{fill:var(--claude)}.seg-tie{fill:#8a96a3}.seg-none{fill:#d8dee4}
.interval{stroke:var(--ink);stroke-width:2}.half-line{stroke:var(--bad);stroke-dasharray:4 3}
.headline{font-size:17px}
@media (max-width:600px){.figures{grid-template-columns:minmax(0,1fr);gap:0}.figures dd{margin-bottom:8px}}
`

export { percent, pValue }

const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`

/**
 * The run lists every figure links to. Each list gets an id the first time a figure needs it, so a
 * figure is a link to `#<id>`, and the list's items link to the runs' reports.
 */
class RunSets {
  private readonly sets: Array<{ readonly id: string; readonly labels: Array<string>; readonly run_ids: ReadonlyArray<string> }> = []
  constructor(private readonly prefix: string) {}

  /** Figures that count the same runs share one list, which names them all. */
  link(text: string, counted: Counted, label: string): string {
    if (counted.count === 0) return escapeHtml(text)
    const key = counted.run_ids.join("\n")
    let set = this.sets.find((known) => known.run_ids.join("\n") === key)
    if (set === undefined) {
      set = { id: `${this.prefix}-set-${this.sets.length + 1}`, labels: [], run_ids: counted.run_ids }
      this.sets.push(set)
    }
    set.labels.push(label)
    return `<a href="#${set.id}">${escapeHtml(text)}</a>`
  }

  render(): string {
    if (this.sets.length === 0) return ""
    const items = this.sets.map((set) =>
      `<dt id="${set.id}">${escapeHtml(set.labels.join("; "))}</dt><dd>${
        set.run_ids.map((runId) => `<a href="${escapeHtml(runReportLink(runId))}">${escapeHtml(runId)}</a>`).join(", ")
      }</dd>`
    ).join("")
    return `<h3>The runs behind each figure</h3><dl class="run-sets">${items}</dl>`
  }
}

const ROW_HEIGHT = 22
/**
 * The charts' drawing units: 370 wide, so that their 12-unit text is still 11 px or more on a phone (a chart as
 * wide as the window) and 15 px at its widest (460 px, the two charts side by side on a wide window).
 */
const CHART = { width: 370, labelWidth: 120, barWidth: 165, top: 26 } as const
const LEGEND_STEP = 92

interface ChartRow {
  readonly label: string
  readonly tally: Tally
}

const chartRows = (model: ModelPortfolio): ReadonlyArray<ChartRow> => [
  { label: "Overall verdict", tally: model.overall },
  ...DIMENSION_IDS.map((id) => ({ label: model.dimensions[id].label, tally: model.dimensions[id] }))
]

const SEGMENTS = [
  { key: "wins", className: "seg-win", name: "Codex wins" },
  { key: "ties", className: "seg-tie", name: "Ties" },
  { key: "losses", className: "seg-loss", name: "Claude wins" },
  { key: "not_counted", className: "seg-none", name: "Not counted" }
] as const

/** One stacked bar per row: wins, ties, losses and the rest, as shares of the runs. */
const outcomeChart = (model: ModelPortfolio) => {
  const rows = chartRows(model)
  const total = Math.max(1, model.runs.length)
  const legend = SEGMENTS.map((segment, index) =>
    `<rect x="${index * LEGEND_STEP}" y="4" width="12" height="12" class="${segment.className}"/><text x="${index * LEGEND_STEP + 16}" y="14">${segment.name}</text>`
  ).join("")
  const bars = rows.map((row, rowIndex) => {
    const y = CHART.top + rowIndex * ROW_HEIGHT
    let x = CHART.labelWidth
    const segments = SEGMENTS.map((segment) => {
      const count = row.tally[segment.key].count
      const width = (count / total) * CHART.barWidth
      const rect = count === 0 ? "" : `<rect x="${x.toFixed(1)}" y="${y}" width="${width.toFixed(1)}" height="14" class="${segment.className}"><title>${escapeHtml(`${row.label}: ${segment.name} ${count}`)}</title></rect>`
      x += width
      return rect
    }).join("")
    const summary = `${row.tally.wins.count} / ${row.tally.ties.count} / ${row.tally.losses.count}`
    return `<text x="0" y="${y + 12}">${escapeHtml(row.label)}</text>${segments}<text x="${CHART.labelWidth + CHART.barWidth + 8}" y="${y + 12}">${summary}</text>`
  }).join("")
  const height = CHART.top + rows.length * ROW_HEIGHT
  return `<svg class="portfolio-chart" role="img" aria-label="${escapeHtml(`Wins, ties and losses of ${model.model} against Claude, overall and per dimension`)}" viewBox="0 0 ${CHART.width} ${height}" width="100%" preserveAspectRatio="xMinYMin meet" xmlns="http://www.w3.org/2000/svg">${legend}${bars}</svg>`
}

/** Each row's win rate as a dot with its 95% Wilson interval, against the 50% line of "no difference". */
const intervalChart = (model: ModelPortfolio) => {
  const rows = chartRows(model)
  const at = (share: number) => (CHART.labelWidth + share * CHART.barWidth).toFixed(1)
  const axis = [0, 0.25, 0.5, 0.75, 1].map((share) =>
    `<text x="${at(share)}" y="14" text-anchor="middle">${percent(share)}</text>`
  ).join("")
  const height = CHART.top + rows.length * ROW_HEIGHT
  const half = `<line x1="${at(0.5)}" y1="${CHART.top - 6}" x2="${at(0.5)}" y2="${height}" class="half-line"/>`
  const marks = rows.map((row, rowIndex) => {
    const y = CHART.top + rowIndex * ROW_HEIGHT + 7
    const { win_rate: rate, win_rate_interval: interval } = row.tally
    const label = `<text x="0" y="${y + 5}">${escapeHtml(row.label)}</text>`
    if (rate === null || interval === null) {
      return `${label}<text x="${at(0)}" y="${y + 5}" class="no-verdict">no decisive verdict</text>`
    }
    const title = `${row.label}: win rate ${percent(rate)}, 95% interval ${percent(interval.lower)}–${percent(interval.upper)}`
    return `${label}<g><title>${escapeHtml(title)}</title><line x1="${at(interval.lower)}" y1="${y}" x2="${at(interval.upper)}" y2="${y}" class="interval"/><circle cx="${at(rate)}" cy="${y}" r="5" class="seg-win"/></g>`
  }).join("")
  return `<svg class="portfolio-chart" role="img" aria-label="${escapeHtml(`Win rate of ${model.model} with 95% Wilson intervals, overall and per dimension; the dashed line is 50%`)}" viewBox="0 0 ${CHART.width} ${height}" width="100%" preserveAspectRatio="xMinYMin meet" xmlns="http://www.w3.org/2000/svg">${axis}${half}${marks}</svg>`
}

const tallyRow = (label: string, tally: Tally, sets: RunSets) => {
  const cell = (counted: Counted, what: string) => `<td class="number">${sets.link(String(counted.count), counted, `${label}: ${what}`)}</td>`
  const interval = tally.win_rate_interval === null ? "—" : `${percent(tally.win_rate_interval.lower)}–${percent(tally.win_rate_interval.upper)}`
  return `<tr><th scope="row">${escapeHtml(label)}</th>${cell(tally.wins, "Codex wins")}${cell(tally.ties, "ties")}${cell(tally.losses, "Claude wins")}${
    cell(tally.not_counted, "not counted")
  }<td class="number">${percent(tally.win_rate)}</td><td class="number">${interval}</td><td class="number">${pValue(tally.sign_test_p)}${tally.significant ? " (significant)" : ""}</td></tr>`
}

const tallyTable = (model: ModelPortfolio, sets: RunSets) => {
  const rows = chartRows(model).map((row) => tallyRow(row.label, row.tally, sets)).join("")
  return `<table class="portfolio-table"><caption class="hint">Codex (${escapeHtml(model.model)}) against Claude; win rate = wins ÷ (wins + losses)</caption><thead><tr><th scope="col">Verdict</th><th scope="col">Codex wins</th><th scope="col">Ties</th><th scope="col">Claude wins</th><th scope="col">Not counted</th><th scope="col">Win rate</th><th scope="col">95% Wilson interval</th><th scope="col">Sign test p</th></tr></thead><tbody>${rows}</tbody></table>`
}

/** "How many more threads" in words. */
export const projectionSentence = (model: ModelPortfolio) => {
  const { wins, losses } = model.overall
  const projection = model.overall.more_threads_for_significance
  if (wins.count === losses.count) return "Wins equal losses: there is no difference to confirm, however many threads."
  if (projection === null) return `Not within ${MAX_PROJECTED_THREADS.toLocaleString("en-US")} threads at these shares.`
  if (projection.more === 0) return "None: the difference is already significant at 5%."
  return `${plural(projection.more, "more thread")} (${projection.threads} in all) at the same shares of wins, ties and losses.`
}

/** Who leads, by how much, and whether the sign test calls it significant. */
export const portfolioHeadline = (model: ModelPortfolio) => {
  const { overall } = model
  const leader = overall.wins.count > overall.losses.count ? "Codex leads" : overall.wins.count < overall.losses.count ? "Claude leads" : "Even"
  const significance = overall.sign_test_p === null
    ? "no decisive verdict to test"
    : overall.significant
    ? `significant at 5% (p = ${pValue(overall.sign_test_p)})`
    : `not significant at 5% (p = ${pValue(overall.sign_test_p)})`
  const uncounted = overall.not_counted.count === 0 ? "" : ` (${overall.not_counted.count} without a verdict: not counted)`
  return `${leader}: Codex won ${overall.wins.count}, tied ${overall.ties.count} and lost ${overall.losses.count} of ${plural(model.runs.length, "run")}${uncounted}; ${significance}.${
    model.possible_leaks.count === 0 ? "" : ` ${possibleLeaksText(model)}.`
  }`
}

/** The runs counted apart because Codex's patch matches Claude's. */
export const possibleLeaksText = (model: ModelPortfolio) =>
  `possible leaks: ${model.possible_leaks.count} (Codex's patch matches Claude's result; not counted in any figure)`

export const totalsText = (totals: Totals, format: (value: number) => string, runs: number) =>
  totals.total === null
    ? "Not available"
    : `${format(totals.total)} in all, median ${format(totals.median!)}${totals.counted.count === runs ? "" : ` (known for ${totals.counted.count} of ${runs})`}`

/** Claude's cost, counted once per thread however many runs replayed it. */
export const oncePerThreadText = (totals: Totals) =>
  totals.total === null
    ? "Not available"
    : `${formatUsd(totals.total)} in all, counted once per thread (${totals.counted.count} thread${totals.counted.count === 1 ? "" : "s"})`

/** The evaluation's cost (what it cost to know); "Not recorded" for runs from before it was counted. */
export const evaluationTotalsText = (totals: Totals | undefined, runs: number) =>
  totals === undefined || totals.total === null ? "Not recorded" : totalsText(totals, formatUsd, runs)

/** Every run together: Codex's implementations beside Claude's sessions (once each), the evaluation apart. */
const portfolioCostSection = (portfolio: Portfolio) => {
  const cost = portfolio.cost_usd
  if (cost === undefined) return ""
  const runs = portfolio.run_ids.length
  return `<section aria-labelledby="portfolio-cost-heading"><h2 id="portfolio-cost-heading">What it cost</h2><dl class="figures" id="portfolio-cost"><dt>Codex implementations</dt><dd>${
    escapeHtml(totalsText(cost.codex, formatUsd, runs))
  }</dd><dt>Claude (once per thread)</dt><dd>${escapeHtml(oncePerThreadText(cost.claude))}</dd><dt>Evaluation (what it cost to know)</dt><dd>${
    escapeHtml(evaluationTotalsText(cost.evaluation, runs))
  }</dd></dl><p class="hint">A thread replayed with several models cost Claude once; the evaluation is every reviewer call (each order, each asked-again review, each failed attempt that reported tokens) and the request's reconstruction when a run made one.</p></section>`
}

const elapsed = (ms: number) => formatElapsed(ms)

const figures = (model: ModelPortfolio, sets: RunSets) => {
  const runs = model.runs.length
  const side = (label: string, totals: Totals, format: (value: number) => string) =>
    `<dt>${escapeHtml(label)}</dt><dd>${sets.link(totalsText(totals, format, runs), totals.counted, label)}</dd>`
  return `<dl class="figures"><dt>Possible leaks</dt><dd>${
    sets.link(possibleLeaksText(model), model.possible_leaks, "Possible leaks (not counted)")
  }</dd><dt>Order-dependent dimensions</dt><dd>${
    sets.link(`${plural(model.flipped_dimensions.count, "dimension")} flipped when the order was swapped, in ${plural(model.flipped_dimensions.runs.count, "run")}`, model.flipped_dimensions.runs, "Runs with a flipped dimension")
  }</dd><dt>Not like-for-like</dt><dd>${
    sets.link(`${plural(model.not_like_for_like.count, "verdict")} of ${runs}`, model.not_like_for_like, "Verdicts reached while not like-for-like")
  }</dd>${agreementFigure(model, sets)}${repeatAgreementFigure(model, sets)}<dt>Self-reviews</dt><dd>${
    sets.link(selfReviewsText(model), model.self_reviews ?? { count: 0, run_ids: [] }, "Self-reviews (the reviewer judged its own replay)")
  }</dd>${
    model.second_judge === undefined ? "" : `<dt>Judges split</dt><dd>${sets.link(judgesSplitText(model.second_judge), model.second_judge.split, "Runs where the two judges split")}</dd>`
  }<dt>More threads for 5% significance</dt><dd>${escapeHtml(projectionSentence(model))}</dd>${
    side("Codex time", model.time_ms.codex, elapsed)
  }${side("Claude time", model.time_ms.claude, elapsed)}${side("Codex cost", model.cost_usd.codex, formatUsd)}<dt>Claude cost (once per thread)</dt><dd>${
    sets.link(oncePerThreadText(model.cost_usd.claude), model.cost_usd.claude.counted, "Claude cost (once per thread)")
  }</dd><dt>Evaluation cost</dt><dd>${escapeHtml(evaluationTotalsText(model.cost_usd.evaluation, runs))}</dd></dl>`
}

/** How often the two judges split, over the runs Claude judged too. */
export const judgesSplitText = (secondJudge: NonNullable<ModelPortfolio["second_judge"]>) =>
  `${plural(secondJudge.split.count, "run")} of ${secondJudge.judged.count} judged by Claude too`

/** Judge–user agreement, when the user voted on any of the runs. */
const agreementFigure = (model: ModelPortfolio, sets: RunSets) => {
  const agreement = model.user_agreement
  if (agreement === undefined) return ""
  const text = agreementText(agreement)
  return `<dt>You and the judge</dt><dd>${sets.link(capitalised(text), { count: agreement.n, run_ids: agreement.run_ids }, "Runs you voted on")}</dd>`
}

/** How often the repeats of a (thread, model) cell agree, when some cell was replayed more than once. */
const repeatAgreementFigure = (model: ModelPortfolio, sets: RunSets) => {
  const agreement = model.repeat_agreement
  if (agreement === undefined) return ""
  const text = repeatAgreementText(agreement)
  return `<dt>Repeats agree</dt><dd>${sets.link(capitalised(text), agreement.all_agree, "Cells whose repeats agree")}</dd>`
}

/** The checks figures beside the judge's win rate; nothing for a portfolio written before checks. */
const checksTable = (model: ModelPortfolio, sets: RunSets) => {
  const checks = model.checks
  if (checks === undefined) return ""
  const row = (label: string, figure: CheckRate) =>
    `<tr><th scope="row">${escapeHtml(label)}</th><td>${sets.link(checkRateText(figure), figure.count, label)}</td></tr>`
  const judge = model.overall.win_rate_interval === null
    ? "no decisive verdict"
    : `${model.overall.wins.count} of ${model.overall.wins.count + model.overall.losses.count} (${percent(model.overall.win_rate)}, 95% Wilson interval ${
      percent(model.overall.win_rate_interval.lower)
    }–${percent(model.overall.win_rate_interval.upper)})`
  return `<h3>Checks beside the judge</h3><p class="hint">${
    sets.link(`Checks ran in ${checks.runs_with_checks.count} of ${plural(model.runs.length, "run")}`, checks.runs_with_checks, "Runs with checks")
  }; runs without checks are not counted in these figures, and a check that could not run is counted against neither side.</p><table class="portfolio-checks"><tbody><tr><th scope="row">Judge: Codex wins (of decisive verdicts)</th><td>${
    escapeHtml(judge)
  }</td></tr>${row("Codex keeps every check Claude's result passed", checks.keeps_claude_passes)}${row("Codex strictly better on checks", checks.better)}${
    row("Codex strictly worse on checks", checks.worse)
  }</tbody></table>`
}

/** Self-reviews counted apart: how many of the model's runs its own model judged. */
export const selfReviewsText = (model: ModelPortfolio) =>
  model.self_reviews === undefined
    ? "Not recorded"
    : `${plural(model.self_reviews.count, "run")} of ${model.runs.length} reviewed by ${model.model} itself`

/** A run's verdict in the words of every other view (`verdictWords`), and its other caveats' labels. */
const verdictCell = (run: PortfolioRun) => {
  const caveats = run.caveats ?? []
  const words = verdictLine(run.winner, caveats)
  const labels = caveatLabels(caveatsBesideVerdict(caveats))
  const repeats = run.repeats === undefined ? "" : ` <span class="repeats">(${run.repeats.winners.length} repeats: ${escapeHtml(run.repeats.winners.join(", "))})</span>`
  return `${escapeHtml(words)}${labels === "" ? "" : ` <span class="caveats">(${escapeHtml(labels)})</span>`}${repeats}`
}

const runRow = (run: PortfolioRun) => {
  const known = (value: number | null, format: (value: number) => string) => (value === null ? "—" : format(value))
  return `<tr><th scope="row"><a href="${escapeHtml(runReportLink(run.run_id))}"><code>${escapeHtml(run.run_id)}</code></a></th><td><code>${
    escapeHtml(run.thread_id ?? "—")
  }</code></td><td>${verdictCell(run)}</td><td>${run.like_for_like === null ? "Not recorded" : run.like_for_like ? "Yes" : "No"}</td><td class="number">${run.flipped_dimensions}</td><td class="number">${
    known(run.codex.elapsed_ms, elapsed)
  }</td><td class="number">${known(run.claude.elapsed_ms, elapsed)}</td><td class="number">${known(run.codex.cost_usd, formatUsd)}</td><td class="number">${known(run.claude.cost_usd, formatUsd)}</td></tr>`
}

const runsTable = (model: ModelPortfolio) =>
  `<h3>Runs</h3><table class="portfolio-runs"><thead><tr><th scope="col">Run (report)</th><th scope="col">Thread</th><th scope="col">Verdict (caveats)</th><th scope="col">Like-for-like</th><th scope="col">Flips</th><th scope="col">Codex time</th><th scope="col">Claude time</th><th scope="col">Codex cost</th><th scope="col">Claude cost</th></tr></thead><tbody>${
    model.runs.map(runRow).join("")
  }</tbody></table>`

const modelSection = (model: ModelPortfolio, index: number) => {
  const sets = new RunSets(`m${index + 1}`)
  const headingId = `model-${index + 1}-heading`
  const table = tallyTable(model, sets)
  const facts = figures(model, sets) + checksTable(model, sets)
  return `<section aria-labelledby="${headingId}"><h2 id="${headingId}">${escapeHtml(model.model)} against Claude</h2><p class="headline">${
    escapeHtml(portfolioHeadline(model))
  }</p><div class="portfolio-charts">${outcomeChart(model)}${intervalChart(model)}</div>${table}${facts}${runsTable(model)}${sets.render()}</section>`
}

const ABOUT = [
  "Each run is one thread replayed by one Codex model and judged blind in both orders; its verdict and each dimension's winner are read from the run's report. A dimension that flipped with the order counts as a tie there, and a run without a verdict (no validated ballot in both orders, two orders that disagreed on every dimension, or two judges that split) is not counted in the overall figures.",
  "The win rate is Codex's wins divided by its wins and losses (ties left out), with a 95% Wilson score interval. The p-value is the exact two-sided sign test of \"neither side is better\": each decisive verdict a fair coin, ties left out. Below 0.05 the difference is called significant.",
  "\"More threads for 5% significance\" is the smallest number of extra threads that, ending in the same shares of wins, ties and losses, would bring the sign test below 0.05. It is a projection, not a promise: the next threads may go differently.",
  "Limits: the runs are whatever was selected, not a random sample of your work; several runs of one thread are not independent (the repeats of one thread and model are combined into one observation first: the winner most of them gave, a tie among them counting as no verdict, costs summed); the reviewer is a Codex model (see each report's note on self-preference); the per-dimension rows are not corrected for testing six dimensions at once; and cost and time compare one replay with Claude's whole historical session."
]

/**
 * The self-contained `portfolio.html`: inline CSS and SVG, no script, no external request (the same
 * Content-Security-Policy as a report). Every figure links to the runs it counts, and every run to its report.
 */
export const renderPortfolioHtml = (portfolio: Portfolio, extras: PortfolioPageExtras = {}): string => {
  const origin = extras.controllerOrigin ?? null
  const addressOf = (runId: string) => (origin === null ? null : `${origin}/runs/${encodeURIComponent(runId)}`)
  const grid = renderGridHtml(portfolioGrid(portfolio, extras.titles ?? new Map()), {
    idPrefix: "grid",
    runHref: (run) => (run.run_id === null ? null : runReportLink(run.run_id)),
    controllerHref: (run) => (run.run_id === null ? null : addressOf(run.run_id))
  })
  const reports = portfolio.run_ids.map((runId) => embedReport(runId, extras.reports?.get(runId) ?? null, addressOf(runId)))
  return [
    documentStart(`Codex Replay portfolio: ${portfolio.portfolio_id}`, `${REPORT_CSS}${PORTFOLIO_CSS}${GRID_CSS}`),
    `<header><p class="product">Codex Replay</p><h1>Portfolio verdict</h1><dl class="identity"><dt>Portfolio</dt><dd><code>${
      escapeHtml(portfolio.portfolio_id)
    }</code></dd><dt>Generated</dt><dd>${escapeHtml(portfolio.generated_at)}</dd><dt>Runs</dt><dd>${portfolio.run_ids.length}</dd><dt>Models</dt><dd>${
      escapeHtml(portfolio.models.map((model) => model.model).join(", "))
    }</dd></dl></header>`,
    `<section aria-labelledby="grid-heading"><h2 id="grid-heading">Threads × models</h2>${grid}</section>`,
    // Every table but the grid's (in a region of its own) scrolls sideways in one; an older embedded report's too.
    inScrollRegions(portfolio.models.map(modelSection).join("\n")),
    portfolioCostSection(portfolio),
    `<section class="about" aria-labelledby="about-heading"><h2 id="about-heading">How to read these figures</h2>${
      ABOUT.map((paragraph) => `<p>${escapeHtml(paragraph)}</p>`).join("")
    }</section>`,
    inScrollRegions(embeddedReportsSection(reports)),
    "</main></body></html>\n"
  ].join("\n")
}
