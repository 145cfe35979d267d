/**
 * The page's batch mode and batch view, in Chromium: threads chosen by checkbox, by search and as
 * "the N most expensive", one model set and reviewer for all, the blocked thread named and left out,
 * the batch's progress per thread and model with links to each run's Results, and cancelling the
 * whole batch; axe-core on the batch panel and the batch view.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import type { Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ARTIFACTS, axeViolations, errorCollectingContext, requireChromium, sharedChromium, shootWidths } from "../../support/browser.js"
import { BLOCKED_THREAD, batchHistory, batchThreadId } from "../../runs/batchSupport.js"
import { type Daemon, killAllDaemons, MODELS, scratch, startDaemon } from "../../runs/support.js"
import { CONTROLS } from "../../../src/domain/unblock.js"
import { GRID_CSV_HEADER } from "../../../src/domain/portfolio/gridCsv.js"

let browser: Browser
const roots: Array<string> = []
const consoleErrors: Array<string> = []

const daemonWithHistory = async (env: Record<string, string> = {}) => {
  const root = scratch()
  roots.push(root)
  batchHistory(root, 3, true)
  return startDaemon({ root, env })
}

const openPage = async (daemon: Daemon) => {
  const context = await errorCollectingContext(browser, consoleErrors, { acceptDownloads: true })
  const page = await context.newPage()
  await page.goto(daemon.launchUrl(), { waitUntil: "load" })
  await page.locator("#controller-status", { hasText: "Ready" }).waitFor()
  await expect.poll(() => page.locator("#thread-list li").count(), { timeout: 30_000 }).toBe(4)
  await page.check("#batch-mode")
  return { context, page }
}

beforeAll(async () => {
  await requireChromium("the batch UI test")
  browser = await sharedChromium()
  await fs.mkdir(ARTIFACTS, { recursive: true })
})

afterAll(async () => {
  await browser?.close()
  await killAllDaemons()
  for (const root of roots) await fs.rm(root, { recursive: true, force: true })
})

describe("batches in the browser", () => {
  it("selects threads, prepares and starts a batch, follows it per thread and model, and opens a run's Results", async () => {
    const daemon = await daemonWithHistory()
    try {
      const { context, page } = await openPage(daemon)
      expect(await page.locator("#batch-panel").isVisible()).toBe(true)
      expect(await page.locator("input.batch-thread").count()).toBe(4)
      expect(await page.locator("#batch-prepare").isDisabled()).toBe(true)

      // By search: the threads shown, all at once.
      await page.fill("#thread-search", "000000000002")
      await expect.poll(() => page.locator("input.batch-thread").count()).toBe(1)
      await page.click("#batch-select-shown")
      expect(await page.locator("#batch-count").textContent()).toBe("1 thread selected.")
      await page.fill("#thread-search", "")
      await expect.poll(() => page.locator("input.batch-thread").count()).toBe(4)
      // The N most expensive, then one taken out by its checkbox.
      await page.fill("#batch-pick-count", "4")
      await page.selectOption("#batch-pick-sort", "cost")
      await page.click("#batch-pick")
      await expect.poll(() => page.locator("#batch-count").textContent()).toBe("4 threads selected.")
      await page.uncheck(`label[data-thread-id="${batchThreadId(3)}"] input`)
      expect(await page.locator("#batch-count").textContent()).toBe("3 threads selected.")

      const title = await page.locator(`label[data-thread-id="${batchThreadId(1)}"] .thread-title`).textContent()
      const blockedTitle = await page.locator(`label[data-thread-id="${BLOCKED_THREAD}"] .thread-title`).textContent()
      // One model set and one reviewer for all.
      for (const box of await page.locator('#batch-panel-body input[id^="batch-model-"]').all()) await box.uncheck()
      await page.check(`#batch-panel-body input[value="${MODELS[0]}"]`)
      await page.check(`#batch-panel-body input[value="${MODELS[1]}"]`)
      // No reviewer named: preselected and shown, the first model Codex lists that is none of the batch's models.
      expect(await page.locator("#batch-reviewer").inputValue()).toBe("")
      expect(await page.locator("#batch-reviewer option:checked").textContent()).toBe(`${MODELS[2]} — neutral (implements none of the chosen models)`)
      await page.selectOption("#batch-reviewer", MODELS[3])
      expect(await axeViolations(page)).toEqual([])
      await page.click("#batch-prepare")
      await page.locator("#batch-approval-prompt").waitFor()
      expect(await page.locator("#batch-approval-reviewer").innerText()).toBe(`Reviewer: ${MODELS[3]} — implements none of the replays`)
      expect(await page.locator("#batch-approval-prompt").textContent()).toBe("Approve a batch of 4 Codex replay(s) of 2 thread(s), 4 at a time?")
      // The whole batch's cost, estimated before the approval.
      expect(await page.locator("#batch-cost-estimate").textContent()).toMatch(/^Estimated cost: about \$\S+ for 4 runs \(/)
      const blocked = await page.locator("#batch-blocked li").allTextContents()
      expect(blocked).toHaveLength(1)
      expect(blocked[0]).toContain(`${BLOCKED_THREAD}: Claude modified 1 file(s) that existed before the session (CLAUDE.md)`)
      await page.screenshot({ path: path.join(ARTIFACTS, "batch-1-approval.png"), fullPage: true })

      // Accepting empty beginnings for the batch: the blocked thread is ready, with its warning said before the approval.
      await page.click("#batch-edit")
      expect((await page.locator("label", { has: page.locator("#batch-accept-empty") }).textContent())?.trim()).toBe(CONTROLS.batchEmptyBeginnings)
      await page.check("#batch-accept-empty")
      await page.click("#batch-prepare")
      await page.locator("#batch-approval-prompt").waitFor()
      expect(await page.locator("#batch-approval-prompt").textContent()).toBe("Approve a batch of 6 Codex replay(s) of 3 thread(s), 4 at a time?")
      expect(await page.locator("#batch-blocked").count()).toBe(0)
      const warnings = await page.locator("#batch-warnings li").allTextContents()
      expect(warnings).toHaveLength(1)
      expect(warnings[0]).toContain(`${BLOCKED_THREAD}: Claude modified 1 file(s) that existed before the session (CLAUDE.md)`)
      expect(warnings[0]).toContain("not like-for-like")
      // Codex runs and is logged in: no preflight sentence, Start offered.
      expect(await page.locator("#batch-preflight").count()).toBe(0)
      expect(await page.locator("#batch-start").isDisabled()).toBe(false)
      await page.screenshot({ path: path.join(ARTIFACTS, "batch-1b-accept-empty.png"), fullPage: true })
      // Repeats: each (thread, model) twice is twice the runs.
      await page.click("#batch-edit")
      await page.fill("#batch-repeats", "2")
      await page.click("#batch-prepare")
      await expect.poll(() => page.locator("#batch-approval-prompt").textContent()).toBe("Approve a batch of 12 Codex replay(s) of 3 thread(s), 4 at a time?")
      await page.click("#batch-edit")
      await page.fill("#batch-repeats", "1")
      await page.uncheck("#batch-accept-empty")
      await page.click("#batch-prepare")
      await page.locator("#batch-blocked li").waitFor()

      await page.click("#batch-start")
      await page.locator("#step-run #batch-card").waitFor()
      const rows = page.locator("#batch-table tbody tr")
      expect(await rows.count()).toBe(4)
      await page.locator("#batch-progress", { hasText: "Finished: 4 of 4 replays done (4 completed" }).waitFor({ timeout: 60_000 })
      await page.locator("#batch-portfolio").waitFor()
      expect(await page.locator(`#batch-table tr[data-thread-id="${batchThreadId(1)}"]`).count()).toBe(2)
      expect(await page.locator(`#batch-table tr[data-model="${MODELS[1]}"]`).count()).toBe(2)
      // No replay is revealed yet: each row offers its Results in place of a verdict.
      expect(await page.locator("#batch-table .not-revealed").allTextContents()).toEqual(Array(4).fill("Not revealed yet — judge it or reveal it"))
      expect(await page.locator("#batch-table tbody").innerText()).not.toMatch(/wins|\btie\b|inconclusive|no verdict|checks:/i)
      expect(await page.locator("#batch-cost").textContent()).toMatch(/^Cost so far: Codex \$\d.*· Claude \$\d.* · reviewer gpt-5\.5$/)
      expect(await page.locator("#batch-cancel").count()).toBe(0)
      // No literal null on the card, and a finished row shows no phase (its last one would be stale).
      expect(await page.locator("#batch-card").innerText()).not.toMatch(/\bnull\b|\bundefined\b/)
      expect(await page.locator("#batch-table tbody tr td:nth-child(4)").allTextContents()).toEqual(Array(4).fill("—"))
      // The batch's runs are this controller's recent runs too.
      await expect.poll(() => page.locator("#recent-runs li .status-completed").count(), { timeout: 10_000 }).toBe(4)
      // Threads by their titles, each with its short id: the recent runs' and the one left out as blocked.
      expect(await page.locator("#recent-runs .run-thread-title").allTextContents()).toContain(title!.trim())
      expect(await page.locator("#recent-runs .thread-id").first().getAttribute("title")).toMatch(/^00000000-0000-4000-8000-00000000000[12]$/)
      expect(await page.locator("#batch-left-out").textContent()).toBe(`Left out as blocked: ${blockedTitle!.trim()} ${BLOCKED_THREAD.slice(0, 8)}`)
      expect(await axeViolations(page)).toEqual([])
      await page.screenshot({ path: path.join(ARTIFACTS, "batch-2-view.png"), fullPage: true })

      // The batch as a grid: a row per thread (its title), a column per model, each cell linking to its run.
      const batchAddress = new URL(page.url()).pathname
      expect(batchAddress).toMatch(/^\/batches\/batch-/)
      const grid = page.locator("#batch-grid table.grid-table")
      expect(await grid.locator("thead th").allTextContents()).toEqual(["Thread", MODELS[0], MODELS[1]])
      expect(await grid.locator("tbody tr").count()).toBe(2)
      expect(await grid.locator("tbody th").first().textContent()).toContain(title!.trim())
      const runIds = await page.locator("[data-batch-run]").evaluateAll((buttons) => buttons.map((button) => button.getAttribute("data-batch-run")))
      const hrefs = await grid.locator(".grid-run a").evaluateAll((links) => links.map((link) => link.getAttribute("href")))
      expect([...hrefs].sort()).toEqual(runIds.map((id) => `/runs/${id}`).sort())
      // Blind runs say so in the cell, in words and in its colour.
      expect(await grid.locator(".grid-run.tone-hidden").count()).toBe(4)
      // The filters: no loss is shown yet (every verdict hidden), so "With a loss" hides every row, "All" shows them again.
      const shownRows = () => grid.locator("tbody tr:visible").count()
      await page.check("#batch-grid-filter-loss")
      expect(await shownRows()).toBe(0)
      await page.check("#batch-grid-filter-all")
      expect(await shownRows()).toBe(2)
      // The grid as CSV: a line per run with its address.
      const csvDownload = page.waitForEvent("download")
      await page.click("#batch-csv")
      const csvFile = path.join(roots[roots.length - 1]!, "grid.csv")
      await (await csvDownload).saveAs(csvFile)
      const csv = (await fs.readFile(csvFile, "utf8")).trimEnd().split("\r\n")
      expect(csv[0]).toBe(GRID_CSV_HEADER.join(","))
      expect(csv).toHaveLength(5)
      for (const id of runIds) expect(csv.some((line) => line.includes(`,${id},`) && line.includes(`/runs/${id}`))).toBe(true)
      expect(csv.slice(1).every((line) => line.startsWith(`${batchThreadId(1)},`) || line.startsWith(`${batchThreadId(2)},`))).toBe(true)
      await shootWidths(page, "batch-3-grid")
      // A cell's link opens that run's Results in the page, at the run's address; Back returns to the batch.
      const cellRun = hrefs[0]!.slice("/runs/".length)
      await grid.locator(`a[href="/runs/${cellRun}"]`).click()
      await expect.poll(() => page.locator("#step-results").isVisible()).toBe(true)
      expect(new URL(page.url()).pathname).toBe(`/runs/${cellRun}`)
      await page.goBack()
      await expect.poll(() => new URL(page.url()).pathname).toBe(batchAddress)
      await expect.poll(() => page.locator("#batch-grid").isVisible()).toBe(true)

      const runId = (await page.locator("[data-batch-run]").first().getAttribute("data-batch-run"))!
      await page.click(`[data-batch-run="${runId}"]`)
      await page.locator("#step-results").waitFor()
      await expect.poll(() => page.locator("#step-results").isVisible()).toBe(true)
      expect(consoleErrors).toEqual([])
      await context.close()
    } finally {
      await daemon.stop()
    }
  }, 120_000)

  it("says before the approval that Codex is not logged in, and offers no start", async () => {
    const daemon = await daemonWithHistory({ FAKE_CODEX_LOGIN: "logged_out" })
    try {
      const { context, page } = await openPage(daemon)
      await page.fill("#batch-pick-count", "2")
      await page.click("#batch-pick")
      await expect.poll(() => page.locator("#batch-count").textContent()).toBe("2 threads selected.")
      await page.click("#batch-prepare")
      await page.locator("#batch-preflight").waitFor()
      expect(await page.locator("#batch-preflight").textContent()).toMatch(/codex login/)
      expect(await page.locator("#batch-approval-title").textContent()).toBe("The batch is blocked")
      const start = page.locator("#batch-start")
      expect((await start.count()) === 0 || (await start.isDisabled())).toBe(true)
      expect(await axeViolations(page)).toEqual([])
      await page.screenshot({ path: path.join(ARTIFACTS, "batch-4-preflight.png"), fullPage: true })
      expect(consoleErrors).toEqual([])
      await context.close()
    } finally {
      await daemon.stop()
    }
  }, 60_000)

  it("cancels the whole batch after a confirmation; a reload shows the batch again", async () => {
    const daemon = await daemonWithHistory({ FAKE_CODEX_SCENARIO: "hang" })
    try {
      const { context, page } = await openPage(daemon)
      await page.fill("#batch-pick-count", "3")
      await page.click("#batch-pick")
      await expect.poll(() => page.locator("#batch-count").textContent()).toBe("3 threads selected.")
      expect(await page.locator("#batch-reviewer option:checked").textContent()).toBe("gpt-5.6-terra — neutral (implements none of the chosen models)")
      await page.click("#batch-prepare")
      // Before the approval, the reviewer prepare chose by the same rule; the batch then runs with it.
      expect(await page.locator("#batch-approval-reviewer").innerText()).toBe("Reviewer: gpt-5.6-terra — implements none of the replays")
      await page.click("#batch-start")
      await expect.poll(() => page.locator("#batch-cost").textContent()).toMatch(/ · reviewer gpt-5\.6-terra$/)
      await page.locator("#batch-progress", { hasText: "running" }).waitFor()
      await expect.poll(async () => (await page.locator("#batch-progress").textContent())?.match(/(\d) running/)?.[1], { timeout: 30_000 }).toBe("3")
      await page.reload({ waitUntil: "load" })
      await page.locator("#controller-status", { hasText: "Ready" }).waitFor()
      await page.click("#tab-run")
      // Polls that change only the clocks keep the view's elements: the button is the same one a poll later.
      // A poll may also bring a replay's next phase (later on a loaded machine), which draws the view again:
      // the check is made over a poll that changed the clocks alone.
      const table = page.locator("#batch-table")
      let keptOverClockPoll = false
      for (let attempt = 0; attempt < 5 && !keptOverClockPoll; attempt++) {
        const rows = await table.textContent()
        const cancelButton = await page.locator("#batch-cancel").elementHandle()
        const elapsed = await page.locator("#batch-progress").textContent()
        if ((await table.textContent()) !== rows) continue
        await expect.poll(() => page.locator("#batch-progress").textContent(), { timeout: 15_000 }).not.toBe(elapsed)
        if ((await table.textContent()) !== rows) continue
        expect(await cancelButton!.evaluate((element) => element.isConnected)).toBe(true)
        keptOverClockPoll = true
      }
      expect(keptOverClockPoll).toBe(true)
      await page.click("#batch-cancel")
      expect(await page.locator("#batch-confirm-cancel").evaluate((element) => element === document.activeElement)).toBe(true)
      await page.click("#batch-confirm-cancel")
      await page.locator("#batch-progress", { hasText: "Cancelled: 3 of 3 replays done (0 completed, 0 failed, 3 cancelled)" }).waitFor({ timeout: 30_000 })
      expect(await page.locator("#batch-cancel").count()).toBe(0)
      expect(consoleErrors).toEqual([])
      await context.close()
    } finally {
      await daemon.stop()
    }
  }, 90_000)
})
