import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { createRequire } from "node:module"
import { pathToFileURL } from "node:url"
import { type BrowserContext, chromium } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { renderReportHtml } from "../../../src/domain/report/html.js"
import { HOSTILE, sampleReport } from "../../report/fixtures.js"
import { ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, requireChromium, sharedChromium, shootWidths } from "../../support/browser.js"


let scratch: string
let context: BrowserContext
let reportUrl: string
const requests: Array<string> = []
const consoleErrors: Array<string> = []

beforeAll(async () => {
  await requireChromium("the report browser test")
  scratch = await fs.mkdtemp(path.join(os.tmpdir(), "codex-replay-browser-"))
  const reportFile = path.join(scratch, "report.html")
  await fs.writeFile(reportFile, renderReportHtml(sampleReport()))
  reportUrl = pathToFileURL(reportFile).href
  context = await chromium.launchPersistentContext(path.join(scratch, "profile"), {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    javaScriptEnabled: false,
    viewport: { width: 1280, height: 900 }
  })
  context.on("request", (request) => void requests.push(request.url()))
  context.on("console", (message) => {
    if (message.type() === "error") consoleErrors.push(message.text())
  })
  context.on("weberror", (error) => void consoleErrors.push(String(error.error())))
  await fs.mkdir(ARTIFACTS, { recursive: true })
}, 60_000)

afterAll(async () => {
  await context?.close()
  if (scratch !== undefined) await fs.rm(scratch, { recursive: true, force: true })
})

describe("report.html in headless Chromium", () => {
  it("loads with no network request and no console error; verdict and table are visible", async () => {
    const page = await context.newPage()
    await page.goto(reportUrl, { waitUntil: "load" })
    await expect.poll(() => page.evaluate(() => document.readyState)).toBe("complete")

    expect(requests).toEqual([reportUrl])
    expect(consoleErrors).toEqual([])

    const verdict = page.locator(".verdict-headline")
    expect(await verdict.isVisible()).toBe(true)
    expect(await verdict.textContent()).toBe("Historical Claude wins")
    const table = page.locator(".evaluation-table").first()
    expect(await table.isVisible()).toBe(true)
    expect(await table.locator("thead th").allTextContents()).toEqual(["Check", "Codex replay", "Historical Claude"])
    const verdictBox = await verdict.boundingBox()
    const tableBox = await table.boundingBox()
    expect(verdictBox!.y).toBeLessThan(tableBox!.y)

    // Candidate text is shown as text, never as markup.
    expect(await page.locator("script, img").count()).toBe(0)
    expect(await page.locator("pre.response").first().textContent()).toContain(HOSTILE)

    // Block-level diff lines still read (and copy) as one line each.
    const diffText = await page.locator("pre.diff").first().innerText()
    expect(diffText.split("\n").slice(0, 5)).toEqual(sampleReport().candidates.codex.patch.split("\n").slice(0, 5))
    // Each file is a section headed by its name, its lines in a block that scrolls on its own.
    expect(await page.locator(".diff-file .diff-file-name code").first().textContent()).toBe("src/app.ts")
    const scroller = await page.locator(".diff-file pre.diff").first().evaluate((pre) => [getComputedStyle(pre).overflowY, getComputedStyle(pre).maxHeight])
    expect(scroller).toEqual(["auto", "480px"])

    // At a phone's width the page never scrolls sideways: a table wider than the window scrolls in its own
    // focusable region, and the token chart keeps text of 11 px or more (scrolling in its region too).
    await page.setViewportSize({ width: 390, height: 900 })
    const narrow = await page.evaluate(() => {
      const chart = document.querySelector<SVGSVGElement>("svg.token-chart")!
      return {
        page: document.documentElement.scrollWidth,
        window: window.innerWidth,
        regions: [...document.querySelectorAll("table")].every((table) => table.parentElement!.matches(".scroll-x[tabindex='0']")),
        chartText: chart.getScreenCTM()!.a * parseFloat(getComputedStyle(chart.querySelector("text")!).fontSize)
      }
    })
    expect(narrow.page).toBeLessThanOrEqual(narrow.window)
    expect(narrow.regions).toBe(true)
    expect(narrow.chartText).toBeGreaterThanOrEqual(11)
    // On a wide window tables and diffs take its width; prose keeps a readable measure.
    await page.setViewportSize({ width: 1920, height: 900 })
    const wide = await page.evaluate(() => {
      const width = (selector: string) => document.querySelector(selector)!.getBoundingClientRect().width
      return { table: width(".evaluation-table"), diffs: width(".side-by-side"), prose: width(".verdict p:last-child") }
    })
    expect(wide.table).toBeGreaterThan(1700)
    expect(wide.diffs).toBeGreaterThan(1700)
    expect(wide.prose).toBeLessThan(900)

    await page.setViewportSize({ width: 1280, height: 900 })
    await page.screenshot({ path: path.join(ARTIFACTS, "report.png"), fullPage: true })
    await shootWidths(page, "report")
    await expect(fs.stat(path.join(ARTIFACTS, "report.png")).then((stat) => stat.size)).resolves.toBeGreaterThan(10_000)
    await page.close()
  }, 60_000)

  it("shows a token description as a tooltip on hover", async () => {
    const page = await context.newPage()
    await page.goto(reportUrl, { waitUntil: "load" })
    const label = page.locator(".token-label").first()
    const tooltip = label.locator(".token-tooltip")
    expect(await tooltip.isVisible()).toBe(false)
    await label.hover()
    expect(await tooltip.isVisible()).toBe(true)
    expect(await tooltip.textContent()).toBe("All input tokens processed: ordinary input, cache reads, and cache writes.")
    await page.close()
  }, 60_000)

  it("prints: one column, no tooltips, and a PDF of several pages", async () => {
    const page = await context.newPage()
    await page.goto(reportUrl, { waitUntil: "load" })
    await page.emulateMedia({ media: "print" })
    const columns = await page.locator(".side-by-side").first().evaluate((element) => getComputedStyle(element).gridTemplateColumns)
    expect(columns.trim().split(/\s+/)).toHaveLength(1)
    await page.screenshot({ path: path.join(ARTIFACTS, "report-print.png"), fullPage: true })
    const pdf = await page.pdf({ format: "A4", printBackground: true })
    await fs.writeFile(path.join(ARTIFACTS, "report.pdf"), pdf)
    expect(pdf.subarray(0, 4).toString()).toBe("%PDF")
    const pages = pdf.toString("latin1").match(/\/Type\s*\/Page(?!s)/g) ?? []
    expect(pages.length).toBeGreaterThan(1)
    expect(requests.every((url) => url === reportUrl)).toBe(true)
    expect(consoleErrors).toEqual([])
    await page.close()
  }, 60_000)
  it("has no accessibility violation of impact moderate or higher (axe-core)", async () => {
    // The report runs no script of its own; this page alone lets axe-core in.
    const browser = await sharedChromium()
    try {
      const page = await (await browser.newContext({ bypassCSP: true })).newPage()
      await page.goto(reportUrl, { waitUntil: "load" })
      await page.evaluate(await fs.readFile(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8"))
      const violations = await page.evaluate(async () => {
        const result = await (window as any).axe.run(document, { resultTypes: ["violations"] })
        return result.violations.map((v: any) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n: any) => n.target.join(" ")).slice(0, 3) }))
      }) as Array<{ id: string; impact: string; nodes: Array<string> }>
      expect(violations.filter((v) => ["moderate", "serious", "critical"].includes(v.impact))).toEqual([])
    } finally {
      await browser.close()
    }
  }, 60_000)
})
