/**
 * The portfolio made from the runs selected in the Runs view: its threads × models grid with the
 * portfolio's statistics above it, each model's figures in the words of `portfolio.html` (the portfolio's own
 * renderers), and its self-contained page and CSV as downloads.
 */
import { Either, Schema } from "effect"
import type { Grid, PortfolioResult } from "../domain/contracts/index.js"
import { agreementText } from "../domain/portfolio/agreement.js"
import { checksFigureLines } from "../domain/portfolio/checksFigures.js"
import { evaluationTotalsText, judgesSplitText, oncePerThreadText, portfolioHeadline, totalsText } from "../domain/portfolio/html.js"
import { type Portfolio, PortfolioFile } from "../domain/portfolio/portfolio.js"
import { repeatAgreementText } from "../domain/portfolio/repeats.js"
import { formatUsd } from "../domain/report/format.js"
import { callTool, messageOf } from "./client.js"
import { byId, h } from "./dom.js"
import { downloadFromController } from "./download.js"
import { gridElement } from "./gridView.js"
import { renderPortfolioActions } from "./runsList.js"

const decodePortfolio = Schema.decodeUnknownEither(PortfolioFile)
const plural = (count: number, one: string) => `${count} ${one}${count === 1 ? "" : "s"}`
/** The checks figures of one model in one line, in `checksFigureLines`' words. */
const checksLine = (model: string, lines: ReadonlyArray<string>) => `${model}: ${lines.map((line) => line.replace(/\.$/, "")).join("; ")}.`

/** Each model's lines, as `portfolio.html` words them. */
const modelLines = (portfolio: Portfolio) => [
  h("ul", { id: "portfolio-models", "aria-label": "Each model against Claude" },
    portfolio.models.map((model) => h("li", { text: `${model.model}: ${portfolioHeadline(model)}${model.second_judge === undefined ? "" : ` Judges split: ${judgesSplitText(model.second_judge)}.`}` }))),
  h("ul", { id: "portfolio-checks", "aria-label": "Checks beside the judge" },
    portfolio.models.flatMap((model) => model.checks === undefined ? [] : [h("li", { text: checksLine(model.model, checksFigureLines(model.checks, model.runs.length)) })])),
  h("ul", { id: "portfolio-agreement", "aria-label": "You and the judge" },
    portfolio.models.flatMap((model) => [
      ...(model.user_agreement === undefined ? [] : [h("li", { text: `${model.model}: ${agreementText(model.user_agreement)}.` })]),
      ...(model.repeat_agreement === undefined ? [] : [h("li", { text: `${model.model}: ${repeatAgreementText(model.repeat_agreement)}.` })])
    ]))
]

/** What every run together cost: Codex's implementations, Claude once per thread, the evaluation apart. */
const costLine = (portfolio: Portfolio) => {
  const cost = portfolio.cost_usd
  if (cost === undefined) return null
  const runs = portfolio.run_ids.length
  return h("p", { id: "portfolio-cost", text: `All runs: Codex implementations ${totalsText(cost.codex, formatUsd, runs)} · Claude ${oncePerThreadText(cost.claude)} · evaluation (what it cost to know) ${evaluationTotalsText(cost.evaluation, runs)}` })
}

const downloads = (portfolioId: string) =>
  h("div", { className: "actions" },
    h("button", { type: "button", className: "primary", id: "portfolio-download-html", text: "Download the portfolio page", onClick: () =>
      void downloadFromController({ portfolio_id: portfolioId, format: "html" }, `codex-replay-${portfolioId}.html`) }), " ",
    h("button", { type: "button", className: "secondary", id: "portfolio-download-csv", text: "Download the grid as CSV", onClick: () =>
      void downloadFromController({ portfolio_id: portfolioId, format: "csv" }, `codex-replay-${portfolioId}.csv`) }), " ",
    h("a", { id: "portfolio-open", href: `/portfolios/${portfolioId}`, target: "_blank", rel: "noopener", text: "Open the portfolio page" }))

export function renderPortfolio(result: PortfolioResult, openRun: (runId: string) => void): ReadonlyArray<Node> {
  const decoded = decodePortfolio(result.portfolio)
  const portfolio = Either.isRight(decoded) ? decoded.right : null
  const grid: Grid | undefined = result.grid
  const count = result.portfolio.run_ids.length
  return [
    h("p", { id: "portfolio-summary", text: `Portfolio of ${plural(count, "run")}: ${result.portfolio_id}. Its page holds every run's report, so its links work wherever it is saved.` }),
    downloads(result.portfolio_id),
    grid === undefined ? null : gridElement(grid, "portfolio-grid", openRun),
    ...(portfolio === null ? [h("p", { className: "reason", text: "This page cannot read the portfolio's figures; its downloaded page has them." })] : [...modelLines(portfolio), costLine(portfolio)])
  ].filter((node): node is HTMLElement => node !== null)
}

/** Compares the selected runs: a portfolio written under the run root, shown here. */
export async function comparePortfolio(runIds: ReadonlyArray<string>, openRun: (runId: string) => void) {
  const status = byId("portfolio-status")
  const compare = byId("portfolio-compare")
  if (compare instanceof HTMLButtonElement) compare.disabled = true
  status.replaceChildren(h("p", { className: "muted", text: `Counting ${plural(runIds.length, "run")}…` }))
  try {
    const result = await callTool("make_portfolio", { run_ids: runIds })
    status.replaceChildren(...renderPortfolio(result, openRun))
  } catch (error) {
    status.replaceChildren(h("p", { className: "callout callout-bad", id: "portfolio-error", text: `Could not compare: ${messageOf(error)}` }))
  } finally {
    renderPortfolioActions()
  }
}
