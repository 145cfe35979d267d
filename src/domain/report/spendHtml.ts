import { type Spend, spendLineText } from "../spend.js"
import { escapeHtml, formatInteger } from "./format.js"
import { totalInput } from "./tokens.js"

const PURPOSE_NAMES: Record<string, string> = {
  implementation: "Implementation",
  review: "Review",
  review_asked_again: "Review asked again",
  reconstruction: "Request reconstruction",
  second_judge: "Second judge"
}

/**
 * "What it cost to know": every model call the run made, the implementation (compared with Claude
 * above) apart from the evaluation (what the verdict itself cost). Nothing for an older report.
 */
export const spendSection = (spend: Spend | undefined) => {
  if (spend === undefined) return ""
  const rows = spend.calls.map((call) =>
    `<tr><td>${escapeHtml(PURPOSE_NAMES[call.purpose] ?? call.purpose)}</td><td class="mono">${escapeHtml(call.label)}</td><td class="mono">${escapeHtml(call.model)}</td><td class="number">${
      formatInteger(totalInput(call.tokens))
    }</td><td class="number">${formatInteger(call.tokens.output)}</td><td class="number">${
      call.cost_usd === null ? escapeHtml(`not priced: ${call.unpriced_reason ?? "no price"}`) : escapeHtml(spendLineText({ usd: call.cost_usd, calls: 1, unpriced_calls: 0 }))
    }</td></tr>`
  ).join("")
  return `<section class="spend" aria-labelledby="spend-heading"><h2 id="spend-heading">What it cost to know</h2><p id="spend-summary">Codex implementation: ${
    escapeHtml(spendLineText(spend.implementation))
  } (compared with Claude above). Evaluation: ${escapeHtml(spendLineText(spend.evaluation))} in ${spend.evaluation.calls} call${spend.evaluation.calls === 1 ? "" : "s"} — the reviewer's orders and retries${
    spend.calls.some((call) => call.purpose === "reconstruction") ? " and the request's reconstruction" : ""
  }. Whole run: ${escapeHtml(spendLineText(spend.total))}.</p><table class="spend-calls"><thead><tr><th scope="col">Call</th><th scope="col">Label</th><th scope="col">Model</th><th scope="col">Input tokens</th><th scope="col">Output tokens</th><th scope="col">Cost</th></tr></thead><tbody>${rows}</tbody></table><p class="hint">API-equivalent prices of the same table as the Codex cost above.</p></section>`
}
