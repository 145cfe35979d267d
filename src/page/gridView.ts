/**
 * A batch or a portfolio as threads × models in the page: the same markup `portfolio.html` renders
 * (`renderGridHtml`), each cell linking to its run's address, which opens that run's Results here.
 */
import type { Grid } from "../domain/contracts/index.js"
import { renderGridHtml } from "../domain/portfolio/gridHtml.js"
import { fromReportHtml, h } from "./dom.js"

/** The grid in a `<div>`; a click on a run's link opens it in the page instead of loading the page again. */
export function gridElement(grid: Grid, idPrefix: string, openRun: (runId: string) => void): HTMLElement {
  const container = h("div", { className: "wide grid-host", id: `${idPrefix}-host` })
  container.append(fromReportHtml(renderGridHtml(grid, { idPrefix, runHref: (run) => run.address })))
  // The grid scrolls sideways on a narrow window: a focusable, named region, as every wide table of the page.
  for (const region of container.querySelectorAll<HTMLElement>(".grid-scroll")) {
    region.setAttribute("tabindex", "0")
    region.setAttribute("role", "region")
    region.setAttribute("aria-label", "Threads × models (scrolls sideways)")
  }
  container.addEventListener("click", (event) => {
    const link = event.target instanceof Element ? event.target.closest("a") : null
    const match = link === null ? null : /^\/runs\/([^/?#]+)$/.exec(link.getAttribute("href") ?? "")
    if (match === null || match[1] === undefined || event.metaKey || event.ctrlKey || event.shiftKey) return
    event.preventDefault()
    openRun(decodeURIComponent(match[1]))
  })
  return container
}
