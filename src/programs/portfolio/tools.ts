/** The portfolio tool: `make_portfolio`. */
import { Effect } from "effect"
import type { PortfolioResult } from "../../domain/contracts/index.js"
import { defineTool } from "../controller/tool.js"
import { makePortfolio, portfolioText } from "./portfolio.js"

/** `make_portfolio {run_ids, include_html?}`: writes the portfolio and answers it with its paths. */
export const makePortfolioTool = defineTool(
  "make_portfolio",
  ({ include_html, run_ids }) =>
    Effect.map(makePortfolio(run_ids), (written): PortfolioResult => ({
      portfolio_id: written.portfolio.portfolio_id,
      portfolio: written.portfolio,
      portfolio_json: written.portfolio_json,
      portfolio_html: written.portfolio_html,
      portfolio_csv: written.portfolio_csv,
      grid: written.grid,
      ...(include_html === true ? { html: written.html, html_file_name: `codex-replay-${written.portfolio.portfolio_id}.html` } : {})
    })),
  (result) => portfolioText(result.portfolio)
)
