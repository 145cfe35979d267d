/**
 * Every view has an address, in Chromium: a thread's Configure (and a chunk of it), a completed run's
 * Results, an unfinished run's Run view, a batch, and the Runs list with its filters each open directly in
 * a fresh browser context holding only the page's cookie, stay after a reload, and the address follows the
 * user's steps so Back returns to the last view.
 */
import * as fs from "node:fs/promises"
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ARTIFACTS, axeViolations, errorCollectingContext, requireChromium, sharedChromium } from "../../support/browser.js"
import { batchHistory, batchThreadId } from "../../runs/batchSupport.js"
import { approveAndStart, awaitTerminal, type Daemon, eventually, killAllDaemons, MODELS, nonGitConfig, scratch, startDaemon } from "../../runs/support.js"

let browser: Browser
let daemon: Daemon
const roots: Array<string> = []
const consoleErrors: Array<string> = []

const configuration = (n: number) => ({
  thread_id: batchThreadId(n),
  request: `Batch task ${n}: create notes.md.`,
  beginning_kind: "non_git",
  ending_kind: "non_git",
  confirm_empty_beginning: true,
  models: [MODELS[0]],
  timeout_seconds: 600
})

let completedRun = ""
let cancelledRun = ""
let batchId = ""

beforeAll(async () => {
  await requireChromium("the addresses UI test")
  browser = await sharedChromium()
  await fs.mkdir(ARTIFACTS, { recursive: true })
  const root = scratch()
  roots.push(root)
  batchHistory(root, 2)
  daemon = await startDaemon({ root })
  const configurations = [configuration(1), configuration(2)]
  const prepared = await daemon.call("prepare_run", { configurations })
  const started = await daemon.call("start_run", { configurations, approved: true, prepare_token: prepared.prepare_token })
  batchId = started.batch_id
  await eventually(async () => ((await daemon.call("get_batch", { batch_id: batchId })).batch.status === "finished" ? true : undefined), 60_000, "the batch to finish")
  const single = await approveAndStart(daemon, nonGitConfig())
  completedRun = single.run_id
  await awaitTerminal(daemon, completedRun)
  const another = await approveAndStart(daemon, nonGitConfig())
  cancelledRun = another.run_id
  await daemon.call("cancel_run", { run_id: cancelledRun })
  await awaitTerminal(daemon, cancelledRun)
}, 120_000)

afterAll(async () => {
  await browser?.close()
  await daemon?.stop()
  await killAllDaemons()
  for (const root of roots) await fs.rm(root, { recursive: true, force: true })
})

/** A fresh context that holds the page's cookie and nothing else (no draft in its storage). */
const freshPage = async () => {
  const context = await errorCollectingContext(browser, consoleErrors)
  await context.addCookies([{
    name: `codex_replay_${daemon.port}`,
    value: daemon.apiToken(),
    url: `http://127.0.0.1:${daemon.port}`,
    httpOnly: true,
    sameSite: "Strict"
  }])
  const page = await context.newPage()
  return { context, page }
}

const origin = () => `http://127.0.0.1:${daemon.port}`

const visibleStep = (page: Page) =>
  page.evaluate(() => [...document.querySelectorAll("section.step")].filter((section) => !(section as HTMLElement).hidden).map((section) => section.id))

/** Opens `address` directly, checks the view, reloads, and checks the same view at the same address. */
const openTwice = async (address: string, check: (page: Page) => Promise<void>) => {
  const { context, page } = await freshPage()
  await page.goto(`${origin()}${address}`, { waitUntil: "load" })
  await page.locator("#controller-status", { hasText: "Ready" }).waitFor()
  await check(page)
  expect(page.url()).toBe(`${origin()}${address}`)
  await page.reload({ waitUntil: "load" })
  await page.locator("#controller-status", { hasText: "Ready" }).waitFor()
  await check(page)
  expect(page.url()).toBe(`${origin()}${address}`)
  return { context, page }
}

describe("the page's addresses", () => {
  it("a thread's address opens its Configure step in a fresh browser and after a reload", async () => {
    const thread = batchThreadId(1)
    const { context, page } = await openTwice(`/threads/${thread}`, async (page) => {
      await expect.poll(() => visibleStep(page)).toEqual(["step-configure"])
      await expect.poll(() => page.locator("#cfg-request").inputValue(), { timeout: 15_000 }).not.toBe("")
    })
    expect(await axeViolations(page)).toEqual([])
    await context.close()
  }, 60_000)

  it("a completed run's address opens its Results; an unfinished one's its Run view", async () => {
    const results = await openTwice(`/runs/${completedRun}`, async (page) => {
      await expect.poll(() => visibleStep(page), { timeout: 15_000 }).toEqual(["step-results"])
      // Still blind: the offer to judge it or reveal it, which only the Results step shows.
      await page.locator("#results-body button", { hasText: /reveal/i }).first().waitFor()
    })
    await results.context.close()
    const run = await openTwice(`/runs/${cancelledRun}`, async (page) => {
      await expect.poll(() => visibleStep(page), { timeout: 15_000 }).toEqual(["step-run"])
      await page.locator(`#run-body [data-run-id="${cancelledRun}"]`).waitFor()
    })
    await run.context.close()
  }, 60_000)

  it("a batch's address opens the batch view with its runs", async () => {
    const { context, page } = await openTwice(`/batches/${batchId}`, async (page) => {
      await expect.poll(() => visibleStep(page), { timeout: 15_000 }).toEqual(["step-run"])
      await page.locator("#batch-progress", { hasText: "Finished: 2 of 2 replays done" }).waitFor({ timeout: 15_000 })
      expect(await page.locator("#batch-table tbody tr").count()).toBe(2)
    })
    expect(await axeViolations(page)).toEqual([])
    await context.close()
  }, 60_000)

  it("the Runs list's address keeps its filters", async () => {
    const address = `/runs?query=${batchThreadId(2)}&status=completed`
    const { context } = await openTwice(address, async (page) => {
      await expect.poll(() => visibleStep(page)).toEqual(["step-runs"])
      expect(await page.locator("#runs-query").inputValue()).toBe(batchThreadId(2))
      expect(await page.locator("#runs-status").inputValue()).toBe("completed")
      await expect.poll(() => page.locator("#runs-rows tr[data-run-id]").count(), { timeout: 15_000 }).toBe(1)
    })
    await context.close()
  }, 60_000)

  it("the address follows the steps, and Back returns to the last view", async () => {
    const { context, page } = await freshPage()
    await page.goto(`${origin()}/`, { waitUntil: "load" })
    await page.locator("#controller-status", { hasText: "Ready" }).waitFor()
    const thread = batchThreadId(2)
    await page.locator(`.thread-item[data-thread-id="${thread}"]`).click()
    await expect.poll(() => new URL(page.url()).pathname).toBe(`/threads/${thread}`)
    await page.click("#tab-runs")
    await expect.poll(() => new URL(page.url()).pathname).toBe("/runs")
    await page.selectOption("#runs-winner", "tie")
    await expect.poll(() => new URL(page.url()).search).toBe("?winner=tie")
    await page.goBack()
    await expect.poll(() => new URL(page.url()).pathname).toBe(`/threads/${thread}`)
    await expect.poll(() => visibleStep(page)).toEqual(["step-configure"])
    await page.goBack()
    await expect.poll(() => new URL(page.url()).pathname).toBe("/")
    await expect.poll(() => visibleStep(page)).toEqual(["step-thread"])
    expect(consoleErrors).toEqual([])
    await context.close()
  }, 60_000)
})
