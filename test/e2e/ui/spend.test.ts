/**
 * What a run costs in the browser controller: the estimate before approval, then the run's own ledger
 * ("what it cost to know") and, beside every model, Claude's cost counted once. Real daemon, fake
 * Codex CLI, a packaged sample and Debian's Chromium through playwright-core.
 */
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ARTIFACTS, chooseSamples, launchChromium, requireChromium, skipToVerdict } from "../../support/browser.js"
import { type Daemon, killAllDaemons, startDaemon } from "../../support/daemon.js"

const SAMPLE = "sample-hello-cli"

let root: string
let daemon: Daemon
let browser: Browser
let page: Page
const consoleErrors: Array<string> = []

beforeAll(async () => {
  await requireChromium("the cost UI test")
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "codex-replay-ui-spend-")))
  daemon = await startDaemon({ root })
  const launched = await launchChromium(consoleErrors, { acceptDownloads: true })
  browser = launched.browser
  page = await launched.context.newPage()
}, 30_000)

afterAll(async () => {
  await browser?.close()
  await daemon?.stop()
  await killAllDaemons()
  if (root !== undefined) await fs.rm(root, { recursive: true, force: true })
})

describe("cost in the browser controller", () => {
  it("shows the estimate before approval, then what the run cost to know and Claude's cost once beside every model", async () => {
    await page.goto(daemon.launchUrl(), { waitUntil: "load" })
    // The controller's state first: a thread chosen before it arrives is shown again from the start.
    await expect.poll(() => page.locator("#controller-status").textContent(), { timeout: 15_000 }).toMatch(/^Ready/)
    await chooseSamples(page)
    await page.locator(`.thread-item[data-thread-id="${SAMPLE}"]`).click()
    await page.locator("#cfg-request").waitFor()
    await page.check("#cfg-confirm-empty")
    await page.check("#cfg-confirm-files")
    await page.locator('input[name="model"]').nth(1).check()
    await expect.poll(() => page.locator("#prepare").isEnabled(), { timeout: 15_000 }).toBe(true)
    await page.click("#prepare")
    await page.locator("#approval-prompt").waitFor()
    // Before anything runs: the whole start's estimate, stated as one, with its basis.
    const estimate = await page.locator("#cost-estimate").textContent()
    expect(estimate).toMatch(/^Estimated cost: about \$\S+ for 2 runs \(Codex implementation \$\S+, evaluation \$\S+ for two review orders per run, at API-equivalent prices\)\. An estimate from /)
    expect(await page.locator("article.run").count()).toBe(0)
    await page.screenshot({ path: path.join(ARTIFACTS, "controller-cost-estimate.png"), fullPage: true })

    await page.click("#approve-start")
    await skipToVerdict(page, 60_000)
    await page.locator("#every-model-cost").waitFor({ timeout: 30_000 })
    const summary = await page.locator("#spend-summary").textContent()
    // The report's own sentence (src/domain/report/spendHtml.ts), as report.html says it.
    expect(summary).toMatch(/^Codex implementation: \$\S+ \(compared with Claude above\)\. Evaluation: \$\S+ in 2 calls — the reviewer's orders and retries\. Whole run: \$\S+\.$/)
    const labels = await page.locator(".spend-calls tbody tr td:nth-child(2)").allTextContents()
    expect(labels).toEqual(["implementation", "review:codex:ab", "review:codex:ba"])
    // Two models, one thread: Claude's cost is shown once, and every model's evaluation cost apart.
    const line = await page.locator("#every-model-cost").textContent()
    expect(line).toMatch(/^All 2 Codex implementations: \$\S+ · Claude, counted once for the thread: (\$\S+|Not available.*) · evaluation \(what it cost to know\): \$\S+$/)
    expect(await page.locator(".side-table .evaluation-cost").allTextContents()).toEqual([expect.stringMatching(/^\$/), expect.stringMatching(/^\$/)])
    expect(await page.locator(".side-table .claude-row").count()).toBe(1)
    await page.screenshot({ path: path.join(ARTIFACTS, "controller-cost-results.png"), fullPage: true })

    // The portfolio of the two runs, from the Runs view: Claude's cost once for the one thread.
    await page.click("#tab-runs")
    await expect.poll(() => page.locator("input.compare-run").count(), { timeout: 15_000 }).toBe(2)
    for (const box of await page.locator("input.compare-run").all()) await box.check()
    await page.click("#portfolio-compare")
    await page.locator("#portfolio-cost").waitFor()
    expect(await page.locator("#portfolio-cost").textContent()).toMatch(
      /^All runs: Codex implementations \$\S+ in all, median \$\S+ · Claude (\$\S+ in all|not known), counted once per thread \(1 thread\) · evaluation \(what it cost to know\) \$\S+ in all, median \$\S+$/
    )
    expect(consoleErrors).toEqual([])
  }, 120_000)
})
