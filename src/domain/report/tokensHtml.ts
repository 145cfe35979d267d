/** The report's "Token breakdown" section, also shown on the page's Results: bars and a table per token label. */
import type { Author } from "../review/evaluation.js"
import { escapeHtml, formatInteger } from "./format.js"
import { AUTHOR_LABELS } from "./report.js"
import { TOKEN_ROWS, type TokenBuckets, tokenValue } from "./tokens.js"

const SIDES: ReadonlyArray<Author> = ["codex", "claude"]

const tokenLabel = (label: string, description: string) =>
  `<span class="token-label" tabindex="0" title="${escapeHtml(description)}">${escapeHtml(label)}<span class="token-tooltip" role="tooltip">${escapeHtml(description)}</span></span>`

const tokenCell = (tokens: TokenBuckets | null, row: (typeof TOKEN_ROWS)[number]) =>
  `<td class="number">${tokens === null ? "Not available" : formatInteger(tokenValue(tokens, row.id))}</td>`

const tokenTable = (codex: TokenBuckets | null, claude: TokenBuckets | null) => {
  const rows = TOKEN_ROWS.map((row) =>
    `<tr><th scope="row">${tokenLabel(row.label, row.description)}</th>${tokenCell(codex, row)}${tokenCell(claude, row)}</tr>`
  ).join("")
  return `<table class="tokens"><thead><tr><th scope="col">Tokens</th><th scope="col">${AUTHOR_LABELS.codex}</th><th scope="col">${AUTHOR_LABELS.claude}</th></tr></thead><tbody>${rows}</tbody></table>`
}

const CHART = { width: 640, labelWidth: 190, barHeight: 14, gap: 4, groupGap: 14, top: 28 } as const

/** Grouped horizontal bars, one group per token label, one bar per side, scaled to the largest value. */
const tokenChart = (sides: Readonly<Record<Author, TokenBuckets | null>>) => {
  const values = TOKEN_ROWS.flatMap((row) => SIDES.map((side) => {
    const tokens = sides[side]
    return tokens === null ? 0 : tokenValue(tokens, row.id)
  }))
  const maximum = Math.max(1, ...values)
  const plotWidth = CHART.width - CHART.labelWidth - 90
  const groupHeight = SIDES.length * (CHART.barHeight + CHART.gap) + CHART.groupGap
  const height = CHART.top + TOKEN_ROWS.length * groupHeight
  const legend = SIDES.map((side, index) =>
    `<rect x="${CHART.labelWidth + index * 160}" y="4" width="12" height="12" class="bar-${side}"/><text x="${CHART.labelWidth + index * 160 + 18}" y="14">${AUTHOR_LABELS[side]}</text>`
  ).join("")
  const groups = TOKEN_ROWS.map((row, rowIndex) => {
    const y0 = CHART.top + rowIndex * groupHeight
    const bars = SIDES.map((side, sideIndex) => {
      const tokens = sides[side]
      const value = tokens === null ? 0 : tokenValue(tokens, row.id)
      const width = Math.round((value / maximum) * plotWidth)
      const y = y0 + sideIndex * (CHART.barHeight + CHART.gap)
      const text = tokens === null ? "n/a" : formatInteger(value)
      return `<g><title>${escapeHtml(`${AUTHOR_LABELS[side]}: ${text} (${row.label})`)}</title><rect x="${CHART.labelWidth}" y="${y}" width="${Math.max(width, 1)}" height="${CHART.barHeight}" class="bar-${side}"/><text x="${CHART.labelWidth + width + 6}" y="${y + CHART.barHeight - 3}" class="bar-value">${text}</text></g>`
    }).join("")
    return `<g><title>${escapeHtml(`${row.label}: ${row.description}`)}</title><text x="0" y="${y0 + CHART.barHeight + 2}" class="bar-label">${escapeHtml(row.label)}</text>${bars}</g>`
  }).join("")
  return `<svg class="token-chart" role="img" aria-label="Token breakdown per candidate" viewBox="0 0 ${CHART.width} ${height}" width="100%" preserveAspectRatio="xMinYMin meet" xmlns="http://www.w3.org/2000/svg">${legend}${groups}</svg>`
}

/** The "Token breakdown" section: grouped bars and the table of both sides' tokens (`null`: not available). */
export const tokensSection = (codex: TokenBuckets | null, claude: TokenBuckets | null) =>
  `<section aria-labelledby="tokens-heading"><h2 id="tokens-heading">Token breakdown</h2>${tokenChart({ codex, claude })}${tokenTable(codex, claude)}</section>`

