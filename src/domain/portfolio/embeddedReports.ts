/**
 * A portfolio carries its runs' reports inside itself (docs/decisions/0009-self-contained-portfolio.md), so
 * that `portfolio.html` and its links work wherever the file is saved. Each report's `<main>` is embedded as
 * one section: its ids prefixed by the run (no two reports' ids collide, and every in-file link still finds
 * its target), its headings two levels down (below the portfolio's "Reports" heading), and its sections
 * unnamed, so that the portfolio's landmarks stay unique. The report is the project's own rendering, in
 * which every text is escaped: a `"` in it is never an attribute's end.
 */
import { escapeHtml } from "../report/format.js"

/** The id of a run's embedded report: what every link to that run's report points at (`#report-<run id>`). */
export const embeddedReportId = (runId: string) => `report-${runId}`

/** The in-file link to a run's embedded report. */
export const embeddedReportLink = (runId: string) => `#${encodeURIComponent(embeddedReportId(runId))}`

/** The inside of a report's `<main>`, or null when the text is not one of the project's reports. */
const mainOf = (reportHtml: string) => {
  const start = reportHtml.indexOf("<main>")
  const end = reportHtml.lastIndexOf("</main>")
  return start === -1 || end < start ? null : reportHtml.slice(start + "<main>".length, end)
}

const shiftHeadings = (html: string) =>
  html.replace(/<(\/?)h([1-4])([ >])/g, (_match, slash: string, level: string, after: string) => `<${slash}h${Number(level) + 2}${after}`)

/** One run's report as a section of the portfolio; a run whose `report.html` was not read gets a sentence instead. */
export const embedReport = (runId: string, reportHtml: string | null, controllerAddress: string | null): string => {
  const prefix = `${embeddedReportId(runId)}-`
  const main = reportHtml === null ? null : mainOf(reportHtml)
  const open = controllerAddress === null
    ? ""
    : `<p class="hint">In the controller: <a href="${escapeHtml(controllerAddress)}">${escapeHtml(controllerAddress)}</a></p>`
  const body = main === null
    ? `<p class="empty">The report of run <code>${escapeHtml(runId)}</code> could not be read when this portfolio was written.</p>`
    : shiftHeadings(main)
      .replace(/ aria-labelledby="[^"]*"/g, "")
      .replace(/<section([^>]*?) aria-label="[^"]*"/g, "<section$1")
      .replace(/ id="([^"]*)"/g, (_match, id: string) => ` id="${prefix}${id}"`)
      .replace(/ href="#([^"]*)"/g, (_match, id: string) => ` href="#${prefix}${id}"`)
      .replace(/ for="([^"]*)"/g, (_match, id: string) => ` for="${prefix}${id}"`)
  return `<section class="embedded-report" id="${escapeHtml(embeddedReportId(runId))}" aria-label="${escapeHtml(`Report of run ${runId}`)}">${open}${body}<p class="hint"><a href="#grid-heading">Back to the grid</a></p></section>`
}

/** Every run's report, in the portfolio's order, under one heading. */
export const embeddedReportsSection = (sections: ReadonlyArray<string>) =>
  sections.length === 0
    ? ""
    : `<section aria-labelledby="reports-heading"><h2 id="reports-heading">The runs' reports</h2><p class="hint">Each run's whole report, as its own report.html shows it.</p>${sections.join("")}</section>`
