/**
 * The Configure step's chunk picker: "Whole thread" or a chunk of a thread's human prompts, shown with
 * each prompt's time and files, driving range_start/range_end; the draft survives a reload and the
 * started run is the chunk. Real daemon, fake Codex CLI, a synthetic three-chunk transcript in a git
 * repository made here (test/runs/chunkThread.ts), Debian's Chromium with axe-core.
 */
import * as path from "node:path"
import * as fs from "node:fs/promises"
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { BACKGROUND_HEADING, CHUNK_TASK_HEADING } from "../../../src/domain/history/chunks.js"
import { ARTIFACTS, axeViolations, errorCollectingContext, requireChromium, sharedChromium, skipToVerdict } from "../../support/browser.js"
import { CHUNK_PROMPTS, makeChunkProject, writeChunkThread } from "../../runs/chunkThread.js"
import { awaitTerminal, type Daemon, killAllDaemons, scratch, startDaemon } from "../../runs/support.js"

const THREAD = "9e3f2a74-5c6d-4e7f-8a91-2c3d4e5f6071"

let daemon: Daemon
let browser: Browser
let page: Page
let ids: Array<string>
let project: { directory: string; initial: string }
const consoleErrors: Array<string> = []

beforeAll(async () => {
  await requireChromium("the chunk picker UI test")
  const root = scratch("codex-replay-ui-chunks-")
  project = makeChunkProject(root, "project")
  ids = writeChunkThread(path.join(root, "claude"), THREAD, project.directory)
  daemon = await startDaemon({ root })
  browser = await sharedChromium()
  page = await (await errorCollectingContext(browser, consoleErrors)).newPage()
  await fs.mkdir(ARTIFACTS, { recursive: true })
}, 30_000)

afterAll(async () => {
  await browser?.close()
  await daemon?.stop()
  expect(await killAllDaemons()).toBe(0)
})

describe("the chunk picker of the Configure step", () => {
  it("offers the whole thread or a chunk, keeps the chosen chunk across a reload, and replays that chunk", async () => {
    await page.goto(daemon.launchUrl())
    await page.locator(`.thread-item[data-thread-id="${THREAD}"]`).click()
    await page.locator("#cfg-request").waitFor()
    expect(await page.locator("#cfg-scope-whole").isChecked()).toBe(true)
    expect(await page.locator("#cfg-range-start").count()).toBe(0)

    await page.check("#cfg-scope-chunk")
    await page.locator("#cfg-range-start").waitFor()
    // Each split point: its number, time and first prompt; the list adds the files it touched.
    await expect.poll(() => page.locator("#cfg-range-start option").count(), { timeout: 15_000 }).toBe(3)
    const options = await page.locator("#cfg-range-start option").allTextContents()
    options.forEach((text, index) => expect(text).toMatch(new RegExp(`^${index + 1}\\. .+ — ${CHUNK_PROMPTS[index]!.replace(/[.()]/g, "\\$&")}$`)))
    // Polled: a list the view draws again meanwhile (a loaded machine) reads as detached text, without its lines.
    await expect.poll(() => page.locator("#split-points li").allInnerTexts()).toEqual([
      expect.stringMatching(/^this chunk .*Create lib\.py.*\n+Files: lib\.py, notes\.txt$/s),
      expect.stringMatching(/^later .*Add a function two\(\).*\n+Files: lib\.py, two\.txt$/s),
      expect.stringMatching(/^later .*Create three\.txt\.\n+Files: three\.txt$/s)
    ])

    // The second chunk: prompt 2 through prompt 2.
    await page.selectOption("#cfg-range-start", ids[1]!)
    await expect.poll(() => page.locator("#cfg-request").inputValue(), { timeout: 15_000 }).toContain(BACKGROUND_HEADING)
    await page.selectOption("#cfg-range-end", ids[1]!)
    await expect.poll(() => page.locator("#split-points li .badge").allTextContents(), { timeout: 15_000 }).toEqual(["background", "this chunk", "later"])
    const request = await page.locator("#cfg-request").inputValue()
    expect(request).toContain(`${CHUNK_TASK_HEADING}\n${CHUNK_PROMPTS[1]}`)
    expect(request).not.toContain(CHUNK_PROMPTS[2])
    expect(await page.locator("#chunk-carried").textContent()).toContain("lib.py, notes.txt")
    // The historical output shown is the whole thread's; the page says which part the comparison counts.
    expect(await page.locator("#historical-scope").textContent()).toContain("only Claude's work inside the chosen chunk")
    expect(await page.locator("#cfg-baseline").inputValue()).toBe(project.initial)
    expect(await axeViolations(page)).toEqual([])
    await page.screenshot({ path: path.join(ARTIFACTS, "controller-chunk-picker.png"), fullPage: true })

    // The draft survives a reload: the same chunk, the same request.
    await page.reload()
    await page.locator("#cfg-range-start").waitFor()
    expect(await page.locator("#cfg-scope-chunk").isChecked()).toBe(true)
    expect(await page.locator("#cfg-range-start").inputValue()).toBe(ids[1])
    expect(await page.locator("#cfg-range-end").inputValue()).toBe(ids[1])
    expect(await page.locator("#cfg-request").inputValue()).toBe(request)
    const exact = JSON.parse((await page.locator("#config-json").textContent())!)
    expect([exact.range_start, exact.range_end]).toEqual([ids[1], ids[1]])
    expect(await page.locator("#config-summary").innerText()).toContain("Chunk: prompts 2–2 of 3")

    await page.check("#cfg-confirm-repo")
    await page.fill("#cfg-ending-commit", project.initial)
    await expect.poll(() => page.locator("#prepare").isEnabled(), { timeout: 15_000 }).toBe(true)
    await page.click("#prepare")
    await page.locator("#approval-prompt").waitFor()
    await page.click("#approve-start")
    await skipToVerdict(page, 40_000)
    const { runs } = await daemon.call("list_runs", {})
    const run = await awaitTerminal(daemon, runs[0].run_id)
    expect(run).toMatchObject({ status: "completed", range_start: ids[1], range_end: ids[1] })
    expect(run.chunk.carried_forward_files).toEqual(["lib.py", "notes.txt"])

    // Back to the whole thread: the thread's request again, and no range is sent.
    await page.click("#tab-configure")
    await page.check("#cfg-scope-whole")
    await expect.poll(() => page.locator("#cfg-range-start").count(), { timeout: 15_000 }).toBe(0)
    expect(await page.locator("#cfg-request").inputValue()).not.toContain(BACKGROUND_HEADING)
    const whole = JSON.parse((await page.locator("#config-json").textContent())!)
    expect(whole.range_start).toBeUndefined()
    expect(await page.locator("#config-summary").innerText()).toContain("Whole thread")
    expect(await page.locator("#historical-scope").count()).toBe(0)
    expect(consoleErrors).toEqual([])
  }, 120_000)
})

describe("a chunk chosen while the whole thread's prompt is being synthesized", () => {
  it("keeps the chunk's prompt when the slower synthesis of the whole thread's answers", async () => {
    const root = scratch("codex-replay-ui-chunks-slow-")
    const slowProject = makeChunkProject(root, "project")
    const slowIds = writeChunkThread(path.join(root, "claude"), THREAD, slowProject.directory)
    // Every event of every Codex call waits: the synthesis takes seconds.
    const slow = await startDaemon({ root, env: { FAKE_CODEX_DELAY_MS: "1500" } })
    const slowPage = await (await errorCollectingContext(browser, consoleErrors)).newPage()
    try {
      await slowPage.goto(slow.launchUrl())
      await slowPage.locator(`.thread-item[data-thread-id="${THREAD}"]`).click()
      await slowPage.click("#synthesize")
      await expect.poll(() => slowPage.locator("#request-method").textContent()).toContain("Reconstructing")
      await slowPage.check("#cfg-scope-chunk")
      await slowPage.locator("#cfg-range-start").waitFor()
      await slowPage.selectOption("#cfg-range-start", slowIds[1]!)
      await expect.poll(() => slowPage.locator("#cfg-request").inputValue(), { timeout: 15_000 }).toContain(BACKGROUND_HEADING)
      // The synthesis answers after the chunk was chosen; its prompt is the whole thread's, not the chunk's.
      await expect.poll(() => slowPage.locator("#request-method").textContent(), { timeout: 60_000 }).not.toContain("Reconstructing")
      expect(await slowPage.locator("#cfg-request").inputValue()).toContain(`${CHUNK_TASK_HEADING}\n${CHUNK_PROMPTS[1]}`)
      expect(JSON.parse((await slowPage.locator("#config-json").textContent())!).range_start).toBe(slowIds[1])
    } finally {
      await slowPage.close()
      await slow.stop()
    }
  }, 120_000)
})
