/**
 * The portfolio verdict from the Runs view, in Chromium: tick completed runs, "Compare selected",
 * the download, then portfolio.html itself from the run root — no request but its own file, every
 * figure and run link followed, and axe-core on both pages (no violation of impact moderate or higher).
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import type { Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ARTIFACTS, axeViolations, errorCollectingContext, requireChromium, sharedChromium, shootWidths } from "../../support/browser.js"
import { GRID_CSV_HEADER } from "../../../src/domain/portfolio/gridCsv.js"
import { approveAndStart, awaitTerminal, type Daemon, killAllDaemons, MODELS, nonGitConfig, scratch, startDaemon } from "../../runs/support.js"

let root: string
let daemon: Daemon
let browser: Browser
let completed: Array<string> = []
let failed: string
const consoleErrors: Array<string> = []

beforeAll(async () => {
  await requireChromium("the portfolio UI test")
  root = scratch()
  daemon = await startDaemon({ root })
  const started = await approveAndStart(daemon, nonGitConfig({ model: undefined, models: [MODELS[0], MODELS[1]] }))
  completed = started.runs.map((run: { run_id: string }) => run.run_id)
  for (const runId of completed) expect((await awaitTerminal(daemon, runId)).status).toBe("completed")
  const crashing = await approveAndStart(daemon, nonGitConfig({ request: "Create greet.py.\nfake-scenario: crash" }))
  failed = crashing.run_id
  expect((await awaitTerminal(daemon, failed)).status).not.toBe("completed")
  browser = await sharedChromium()
  await fs.mkdir(ARTIFACTS, { recursive: true })
}, 180_000)

afterAll(async () => {
  await browser?.close()
  await daemon?.stop()
  await killAllDaemons()
  if (root !== undefined) await fs.rm(root, { recursive: true, force: true })
})

describe("the portfolio verdict in the browser", () => {
  let portfolioFile: string

  it("ticks completed runs in the Runs view, compares them and downloads portfolio.html", async () => {
    // The page's CSP forbids inline scripts; bypassing it lets the test inject axe-core.
    const context = await errorCollectingContext(browser, consoleErrors, { acceptDownloads: true })
    const page = await context.newPage()
    await page.goto(daemon.launchUrl(), { waitUntil: "load" })
    await page.locator("#controller-status", { hasText: "Ready" }).waitFor()
    await page.click("#tab-runs")
    const rows = page.locator("#runs-rows tr")
    await expect.poll(() => rows.count()).toBe(3)
    // Only a completed run can be ticked.
    expect(await page.locator(`tr[data-run-id="${failed}"] input.compare-run`).count()).toBe(0)
    expect(await page.locator("input.compare-run").count()).toBe(2)
    expect(await page.locator("#portfolio-compare").isDisabled()).toBe(true)

    for (const runId of completed) await page.check(`tr[data-run-id="${runId}"] input.compare-run`)
    expect(await page.locator("#portfolio-compare").textContent()).toBe("Compare 2 selected runs")
    // The selection outlives a filter that hides a ticked run.
    await page.fill("#runs-query", MODELS[1])
    await expect.poll(() => rows.count()).toBe(1)
    await page.fill("#runs-query", "")
    await expect.poll(() => rows.count()).toBe(3)
    expect(await page.locator("input.compare-run:checked").count()).toBe(2)
    expect(await axeViolations(page)).toEqual([])

    // The Runs list names each run's thread by its title, with its tokens.
    const listed = await daemon.call("list_runs", {})
    const titled = listed.runs.find((run: { run_id: string }) => run.run_id === completed[0])
    expect(typeof titled.thread_title).toBe("string")
    expect(await page.locator(`tr[data-run-id="${completed[0]}"] .run-thread-title`).textContent()).toBe(titled.thread_title)
    expect(await page.locator(`tr[data-run-id="${completed[0]}"] td.num`).textContent()).toMatch(/^\S+ in · \S+ out$/)

    // Comparing shows the portfolio here: the grid with its statistics, each model's figures, and its downloads.
    await page.click("#portfolio-compare")
    await page.locator("#portfolio-summary").waitFor()
    const summary = (await page.locator("#portfolio-summary").textContent())!
    const portfolioId = /^Portfolio of 2 runs: (portfolio-\d{8}T\d{6}Z-[0-9a-f]{10})\./.exec(summary)?.[1]
    expect(portfolioId).toBeDefined()
    const lines = await page.locator("#portfolio-models li").allTextContents()
    expect(lines).toHaveLength(2)
    for (const line of lines) expect(line).toMatch(/^gpt-[\w.-]+: (Codex leads|Claude leads|Even): Codex won \d, tied \d and lost \d of 1 run/)
    expect(await page.locator("#portfolio-status").textContent()).not.toContain(daemon.runRoot)
    const cells = page.locator("#portfolio-grid table.grid-table .grid-run > a")
    expect(await cells.count()).toBe(2)
    const hrefs = await cells.evaluateAll((links) => links.map((link) => link.getAttribute("href")))
    expect([...hrefs].sort()).toEqual(completed.map((id) => `/runs/${id}`).sort())
    expect(await page.locator("#portfolio-grid .grid-statistics li").count()).toBe(2)
    portfolioFile = path.join(daemon.runRoot, "portfolios", portfolioId!, "portfolio.html")
    const downloading = page.waitForEvent("download")
    await page.click("#portfolio-download-html")
    const download = await downloading
    expect(download.suggestedFilename()).toBe(`codex-replay-${portfolioId}.html`)
    const saved = path.join(root, "downloaded.html")
    await download.saveAs(saved)
    expect(await fs.readFile(saved, "utf8")).toBe(await fs.readFile(portfolioFile, "utf8"))
    const csvDownloading = page.waitForEvent("download")
    await page.click("#portfolio-download-csv")
    const csvDownload = await csvDownloading
    expect(csvDownload.suggestedFilename()).toBe(`codex-replay-${portfolioId}.csv`)
    const csvFile = path.join(root, "downloaded.csv")
    await csvDownload.saveAs(csvFile)
    const csv = (await fs.readFile(csvFile, "utf8")).trimEnd().split("\r\n")
    expect(csv[0]).toBe(GRID_CSV_HEADER.join(","))
    expect(csv).toHaveLength(3)
    // The portfolio's own address shows its saved page in place, with its grid, behind the page's cookie.
    expect(await page.locator("#portfolio-open").getAttribute("href")).toBe(`/portfolios/${portfolioId}`)
    const shown = await page.context().newPage()
    await shown.goto(`http://127.0.0.1:${daemon.port}/portfolios/${portfolioId}`)
    expect(await shown.locator("h1").first().textContent()).toBe("Portfolio verdict")
    expect(await shown.locator("table.grid-table .grid-run > a").count()).toBe(2)
    await shown.close()
    expect(await axeViolations(page)).toEqual([])
    await page.screenshot({ path: path.join(ARTIFACTS, "portfolio-1-runs-view.png"), fullPage: true })
    await shootWidths(page, "portfolio-4-panel")
    // A cell opens that run's Results in the page, at the run's address.
    const firstCell = (await cells.first().getAttribute("href"))!
    await cells.first().click()
    await expect.poll(() => page.locator("#step-results").isVisible()).toBe(true)
    expect(new URL(page.url()).pathname).toBe(firstCell)
    await page.goBack()
    await expect.poll(() => page.locator("#step-runs").isVisible()).toBe(true)

    // A run whose report went missing is refused in one sentence, shown on the page.
    await fs.rm(path.join(daemon.runRoot, completed[1]!, "report.json"))
    await page.click("#portfolio-compare")
    await page.locator("#portfolio-error").waitFor()
    expect(await page.locator("#portfolio-error").textContent()).toBe(`Could not compare: The report of run ${completed[1]} cannot be read.`)
    await page.click("#portfolio-clear")
    expect(await page.locator("input.compare-run:checked").count()).toBe(0)
    expect(await page.locator("#portfolio-compare").isDisabled()).toBe(true)
    expect(consoleErrors).toEqual([])
    await context.close()
  }, 120_000)

  it("portfolio.html requests nothing, its figures lead to the runs they count and those to their reports", async () => {
    const url = pathToFileURL(portfolioFile).href
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1280, height: 900 } })
    const requests: Array<string> = []
    context.on("request", (request) => void requests.push(request.url()))
    const page = await context.newPage()
    await page.goto(url, { waitUntil: "load" })
    expect(requests).toEqual([url])
    expect(await page.locator("h1").textContent()).toBe("Portfolio verdict")
    expect(await page.locator("svg.portfolio-chart").count()).toBe(4)
    // At a phone's width the page never scrolls sideways: its wide tables scroll in their own regions, the
    // charts' text stays 11 px or more, each filter's radio button sits on its label's line, and the figures'
    // values take the width under their names.
    await page.setViewportSize({ width: 390, height: 900 })
    const narrow = await page.evaluate(() => {
      const box = (element: Element) => element.getBoundingClientRect()
      const runs = document.querySelector(".portfolio-runs")!.parentElement!
      return {
        page: document.documentElement.scrollWidth,
        window: window.innerWidth,
        runsScroll: runs.matches(".scroll-x[tabindex='0']") && runs.scrollWidth > runs.clientWidth,
        chartText: Math.min(...[...document.querySelectorAll<SVGSVGElement>("svg.portfolio-chart")].map((chart) =>
          chart.getScreenCTM()!.a * parseFloat(getComputedStyle(chart.querySelector("text")!).fontSize)
        )),
        filtersApart: [...document.querySelectorAll(".grid-filters input")].filter((input) =>
          Math.abs(box(input).top + box(input).height / 2 - box(input.nextElementSibling!).top - box(input.nextElementSibling!).height / 2) > 8
        ).length,
        figureValue: box(document.querySelector(".figures dd")!).width
      }
    })
    expect(narrow.page).toBeLessThanOrEqual(narrow.window)
    expect(narrow.runsScroll).toBe(true)
    expect(narrow.chartText).toBeGreaterThanOrEqual(11)
    expect(narrow.filtersApart).toBe(0)
    expect(narrow.figureValue).toBeGreaterThan(300)
    // On a wide window the grid and the tables take its width, with room between the statistics and the figures.
    await page.setViewportSize({ width: 1920, height: 900 })
    const wide = await page.evaluate(() => {
      const box = (selector: string) => document.querySelector(selector)!.getBoundingClientRect()
      return { grid: box(".grid-table").width, table: box(".portfolio-table").width, gap: box(".figures").top - box(".portfolio-table").bottom }
    })
    expect(wide.grid).toBeGreaterThan(1700)
    expect(wide.table).toBeGreaterThan(1700)
    expect(wide.gap).toBeGreaterThanOrEqual(16)
    await page.setViewportSize({ width: 1280, height: 900 })

    await page.screenshot({ path: path.join(ARTIFACTS, "portfolio-2-page.png"), fullPage: true })
    // The portfolio itself: the runs' reports it holds below it are report.html's own screenshots.
    await shootWidths(page, "portfolio-2-page", { above: "section:has(> #reports-heading)" })

    // The first figure that counts a run: its list names the run and links to its report.
    const figure = page.locator("table.portfolio-table a").first()
    const target = (await figure.getAttribute("href"))!
    await figure.click()
    expect(page.url()).toBe(`${url}${target}`)
    const runLink = page.locator(`${target} + dd a`).first()
    const runId = (await runLink.textContent())!
    expect(completed).toContain(runId)
    // The run's report is inside the portfolio itself: the link stays in the file.
    await runLink.click()
    expect(page.url()).toBe(`${url}#report-${runId}`)
    expect(await page.locator(`#report-${runId} h3`).first().textContent()).toBe("Replay report")
    expect(await page.locator(`#report-${runId}-evaluation-heading`).textContent()).toBe("Evaluation")

    // The grid: a row per thread, a cell per model, each linking to its run's embedded report; CSS-only filters.
    const cells = page.locator("table.grid-table .grid-run > a")
    expect(await cells.count()).toBe(completed.length)
    for (const href of await cells.evaluateAll((links) => links.map((link) => link.getAttribute("href")))) {
      expect(completed.map((id) => `#report-${id}`)).toContain(href)
    }
    // Beside each, the run's address in the controller that wrote the portfolio.
    const addresses = await page.locator("table.grid-table .grid-note a").evaluateAll((links) => links.map((link) => link.getAttribute("href")))
    expect(addresses.sort()).toEqual(completed.map((id) => `http://127.0.0.1:${daemon.port}/runs/${id}`).sort())
    const visibleRows = () => page.locator("table.grid-table tbody tr:visible").count()
    expect(await visibleRows()).toBe(1)
    const losses = await page.locator("table.grid-table tbody tr.row-loss").count()
    await page.check("#grid-filter-loss")
    expect(await visibleRows()).toBe(losses)
    await page.check("#grid-filter-all")
    expect(await visibleRows()).toBe(1)
    await page.screenshot({ path: path.join(ARTIFACTS, "portfolio-3-grid.png"), fullPage: false })
    await context.close()

    const axeContext = await browser.newContext({ bypassCSP: true })
    const axePage = await axeContext.newPage()
    await axePage.goto(url, { waitUntil: "load" })
    expect(await axeViolations(axePage)).toEqual([])
    await axeContext.close()
  }, 60_000)
})
