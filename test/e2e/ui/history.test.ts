/**
 * Runs kept across controllers, in Chromium: the Runs view after a daemon restart, the side-by-side
 * Results of several models, rendered diffs and Markdown, a rerun with "Replay again", the cancel
 * confirmation, "Stop controller", and axe-core on every step (no violation of impact moderate or
 * higher). Screenshots go to test-artifacts/.
 */
import * as fs from "node:fs/promises"
import { createRequire } from "node:module"
import * as path from "node:path"
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ARTIFACTS, requireChromium, sharedChromium, shootWidths, skipToVerdict } from "../../support/browser.js"
import { CLAUDE_HOME } from "../../support/fixtures.js"
import { approveAndStart, awaitTerminal, type Daemon, killAllDaemons, MODELS, nonGitConfig, scratch, startDaemon } from "../../runs/support.js"

const AXE_SOURCE = createRequire(import.meta.url).resolve("axe-core/axe.min.js")

let root: string
let second: Daemon
let browser: Browser
let page: Page
const consoleErrors: Array<string> = []
let firstRuns: Array<string> = []

const shot = (name: string) => page.screenshot({ path: path.join(ARTIFACTS, name), fullPage: true })

/** axe-core on the page as it is: every violation of impact moderate, serious or critical, named. */
const axeViolations = async () => {
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(await fs.readFile(AXE_SOURCE, "utf8"))
  const violations = await page.evaluate(async () => {
    const result = await (window as any).axe.run(document, { resultTypes: ["violations"] })
    return result.violations.map((v: any) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n: any) => n.target.join(" ")).slice(0, 3) }))
  })
  return (violations as Array<{ id: string; impact: string; nodes: Array<string> }>).filter((v) => ["moderate", "serious", "critical"].includes(v.impact))
}

beforeAll(async () => {
  await requireChromium("the run history UI test")
  root = scratch()
  await fs.cp(CLAUDE_HOME, path.join(root, "claude"), { recursive: true })
  // Two models replay the sample under a first controller, which then stops.
  const first = await startDaemon({ root })
  try {
    const started = await approveAndStart(first, nonGitConfig({ model: undefined, models: [MODELS[0], MODELS[1]] }))
    firstRuns = started.runs.map((run: { run_id: string }) => run.run_id)
    for (const runId of firstRuns) expect((await awaitTerminal(first, runId)).status).toBe("completed")
  } finally {
    await first.stop()
  }
  second = await startDaemon({ root })
  browser = await sharedChromium()
  // The page's CSP forbids inline scripts; bypassing it lets the test inject axe-core.
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true })
  context.on("console", (message) => {
    if (message.type() === "error" && !/Failed to load resource|ERR_CONNECTION_REFUSED|Failed to fetch/.test(message.text())) consoleErrors.push(message.text())
  })
  context.on("weberror", (error) => void consoleErrors.push(String(error.error())))
  page = await context.newPage()
  await fs.mkdir(ARTIFACTS, { recursive: true })
}, 180_000)

afterAll(async () => {
  await browser?.close()
  await second?.stop()
  await killAllDaemons()
  if (root !== undefined) await fs.rm(root, { recursive: true, force: true })
})

describe("run history in the browser", () => {
  it("lists the runs of an earlier controller after a restart, filters them, and opens side-by-side Results with rendered diffs", async () => {
    await page.goto(second.launchUrl(), { waitUntil: "load" })
    await page.locator("#controller-status", { hasText: "Ready" }).waitFor()
    await page.locator(".thread-item").first().waitFor()
    expect(await axeViolations()).toEqual([])
    await shot("history-1-thread.png")

    await page.click("#tab-runs")
    const rows = page.locator("#runs-rows tr")
    await expect.poll(() => rows.count()).toBe(2)
    expect(await page.locator("#runs-summary").textContent()).toBe("Runs 1–2 of 2, newest first.")
    expect(await rows.first().textContent()).toContain("Earlier controller")
    expect(await axeViolations()).toEqual([])
    await shot("history-2-runs.png")
    await page.fill("#runs-query", MODELS[1])
    await expect.poll(() => rows.count()).toBe(1)
    expect(await rows.first().textContent()).toContain(MODELS[1])
    await page.selectOption("#runs-status", "failed")
    await expect.poll(() => page.locator("#runs-summary").textContent()).toMatch(/^No runs match/)
    await page.selectOption("#runs-status", "")
    await page.fill("#runs-query", "")
    await expect.poll(() => rows.count()).toBe(2)

    await rows.first().locator("button").click()
    await skipToVerdict(page, 20_000)
    const table = page.locator(".side-table")
    await table.waitFor()
    const tableRows = await table.locator("tbody tr").allInnerTexts()
    expect(tableRows).toHaveLength(3)
    expect(tableRows.join("\n")).toContain(MODELS[0])
    expect(tableRows.join("\n")).toContain(MODELS[1])
    expect(tableRows[2]).toContain("Historical Claude")
    // Diffs as diffs: a header per file, added lines marked, collapsible.
    expect(await page.locator(".diff-file > summary").count()).toBeGreaterThanOrEqual(2)
    expect(await page.locator(".diff-line.diff-added").count()).toBeGreaterThan(0)
    expect(await page.locator(".diff-file > summary", { hasText: "FAKE_CODEX_OUTPUT.md" }).count()).toBeGreaterThan(0)
    expect(await page.locator(".markdown").count()).toBe(2)
    expect(await axeViolations()).toEqual([])
    await shot("history-3-results-side-by-side.png")

    // At 390 px wide tables scroll inside a named, focusable region with a visible cue.
    await page.setViewportSize({ width: 390, height: 844 })
    await expect.poll(() => page.locator(".table-scroll.overflowing").count()).toBeGreaterThan(0)
    const region = page.locator(".table-scroll", { has: page.locator(".side-table") })
    expect(await region.getAttribute("tabindex")).toBe("0")
    expect(await region.getAttribute("aria-label")).toMatch(/scrolls sideways/)
    expect(await axeViolations()).toEqual([])
    await shot("history-4-results-390px.png")
    await page.setViewportSize({ width: 1280, height: 900 })
    expect(consoleErrors).toEqual([])
  }, 120_000)

  it("replays a thread again with the configuration pre-filled, confirms before cancelling, and refuses to stop a busy controller", async () => {
    await page.click("#tab-run")
    const cards = page.locator("article.run")
    await expect.poll(() => cards.count()).toBe(2)
    await cards.first().locator("button[data-replay-again]").click()
    await page.locator("#cfg-request").waitFor()
    expect(await page.locator("#step-configure").isVisible()).toBe(true)
    expect(await page.locator(`input[name="model"][value="${MODELS[0]}"]`).isChecked()).toBe(true)
    expect(await page.locator(`input[name="model"][value="${MODELS[1]}"]`).isChecked()).toBe(true)
    await page.uncheck(`input[name="model"][value="${MODELS[1]}"]`)
    await page.locator("#cfg-request").fill("Create greet.py that prints a greeting.\nfake-scenario: hang")
    for (const box of ["#cfg-confirm-empty", "#cfg-confirm-files"]) if (await page.locator(box).count()) await page.check(box)
    expect(await axeViolations()).toEqual([])
    await page.click("#prepare")
    await page.click("#approve-start")
    const run = page.locator("article.run")
    await expect.poll(() => run.count()).toBe(1)
    await expect.poll(() => run.locator(".phase-elapsed").count(), { timeout: 20_000 }).toBeGreaterThan(0)
    expect(await run.locator(".run-model").textContent()).toBe(MODELS[0])
    // Each phase's time is in the text column under its status, on one line (never in the dot's column, broken
    // mid-number). Polled: the view re-renders every second, and a phase just added may not be laid out yet.
    const misplaced = () => run.locator(".phase:has(.phase-elapsed)").evaluateAll((phases) => phases.flatMap((phase) => {
      const [label, time] = [".phase-label", ".phase-elapsed"].map((selector) => phase.querySelector(selector)!)
      const box = time!.getBoundingClientRect()
      const column = Math.abs(box.left - label!.getBoundingClientRect().left) < 1
      const oneLine = box.height < 1.8 * parseFloat(getComputedStyle(time!).fontSize)
      return column && oneLine ? [] : [{ text: time!.textContent, left: box.left, labelLeft: label!.getBoundingClientRect().left, height: box.height }]
    }))
    await expect.poll(misplaced).toEqual([])
    await shootWidths(page, "history-4b-run-in-progress")

    // Stopping the controller is refused while the rerun is active.
    await page.click("#stop-controller")
    await expect.poll(() => page.locator("#notice").textContent()).toContain("The controller was not stopped: A replay is still running")

    await run.locator("button[data-cancel]").click()
    const confirm = run.locator(".confirm")
    await confirm.waitFor()
    expect(await confirm.textContent()).toContain("Cancel this run? Codex stops and no report is written.")
    expect(await axeViolations()).toEqual([])
    await shot("history-5-cancel-confirmation.png")
    await confirm.locator("button", { hasText: "Keep running" }).click()
    expect(await run.locator(".status").textContent()).toBe("running")
    await run.locator("button[data-cancel]").click()
    await run.locator("button[data-confirm-cancel]").click()
    await expect.poll(() => run.locator(".status").textContent(), { timeout: 20_000 }).toBe("cancelled")
    expect(await run.locator("button[data-replay-again]").count()).toBe(1)
    expect(await axeViolations()).toEqual([])
    await shot("history-6-run-cancelled.png")

    await page.click("#tab-runs")
    await expect.poll(() => page.locator("#runs-summary").textContent()).toBe("Runs 1–3 of 3, newest first.")
    expect(await page.locator("#runs-rows tr").first().textContent()).toContain("cancelled")

    // Idle now: the controller stops, and the page says how to start it again.
    await page.click("#stop-controller")
    // A refusal is said in the notice: the failure names it.
    await expect.poll(async () => {
      const status = await page.locator("#controller-status").textContent()
      return status === "Controller stopped" ? status : `${status} (notice: ${await page.locator("#notice").textContent()})`
    }).toBe("Controller stopped")
    expect(await page.locator("#notice").textContent()).toContain("Start it again with “npm start” or “codex-replay open”")
    await second.exited
    await shot("history-7-controller-stopped.png")
    expect(consoleErrors).toEqual([])
  }, 120_000)
})
