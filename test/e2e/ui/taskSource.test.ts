/**
 * The task prompt beside the user's messages it comes from, end to end: the real daemon (fake Codex CLI
 * answering an unrelated task, a copy of a real seven-prompt session) driven by Debian's Chromium through
 * playwright-core. Opening the thread calls no model; the button reconstructs once (asking again answers
 * from the cache); Configure shows the prompt beside the messages with the figure and the flag; the
 * approval repeats prepare_run's check.
 */
import * as fs from "node:fs/promises"
import { existsSync, readFileSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ARTIFACTS, axeViolations, errorCollectingContext, requireChromium, sharedChromium } from "../../support/browser.js"
import { type Daemon, killAllDaemons, startDaemon } from "../../support/daemon.js"
import { CLAUDE_HOME } from "../../support/fixtures.js"

const THREAD = "b3edadab-bca0-4054-9b41-f7ffa6941260"
/** A real five-prompt session (c45af7b1), never reconstructed before it is prepared. */
const WORKSPACE_THREAD = "c45af7b1-cb7c-4e51-93db-8cbb250a877a"
const UNRELATED = "Implement a REST API in Go with JWT authentication and a PostgreSQL database layer."

let root: string
let log: string
let daemon: Daemon
let browser: Browser
let page: Page
const consoleErrors: Array<string> = []
const execs = () => (existsSync(log) ? readFileSync(log, "utf8").trim().split("\n").filter(Boolean).length : 0)

beforeAll(async () => {
  await requireChromium("the task source UI test")
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "codex-replay-ui-task-")))
  log = path.join(root, "codex-exec.jsonl")
  for (const folder of ["-Users-user-project", "-workspace"]) {
    await fs.cp(path.join(CLAUDE_HOME, "projects", folder), path.join(root, "claude", "projects", folder), { recursive: true })
  }
  daemon = await startDaemon({ root, env: { FAKE_CODEX_LOG: log, FAKE_CODEX_FINAL_JSON: JSON.stringify({ request: UNRELATED }) } })
  browser = await sharedChromium()
  page = await (await errorCollectingContext(browser, consoleErrors)).newPage()
  await fs.mkdir(ARTIFACTS, { recursive: true })
}, 30_000)

afterAll(async () => {
  await browser?.close()
  await daemon?.stop()
  await killAllDaemons()
  if (root !== undefined) await fs.rm(root, { recursive: true, force: true })
})

describe("Configure: the task prompt beside the user's messages", () => {
  it("opens without a model call, reconstructs once when asked, and flags a prompt unrelated to the messages beside it", async () => {
    await page.goto(daemon.launchUrl(), { waitUntil: "load" })
    await expect.poll(() => page.locator("#controller-status").textContent(), { timeout: 15_000 }).toMatch(/^Ready/)
    await page.check("#source-imported")
    await page.locator(`.thread-item[data-thread-id="${THREAD}"]`).click()
    await page.locator("#cfg-request").waitFor()
    expect(await page.locator("#request-method").textContent()).toBe("Not reconstructed yet (your prompts, joined)")
    const messages = page.locator("#task-source > li")
    expect(await messages.count()).toBe(7)
    expect(await messages.nth(5).locator("pre.asked").textContent()).toBe("What can I help you with?")
    expect(await page.locator("#task-source").innerText()).not.toMatch(/test-file\.txt|Done!/)
    expect(execs()).toBe(0)

    await page.click("#synthesize")
    await expect.poll(() => page.locator("#request-method").textContent(), { timeout: 15_000 }).toBe("Synthesized by Codex (gpt-5.6-terra)")
    expect(await page.locator("#cfg-request").inputValue()).toBe(UNRELATED)
    const flag = page.locator("#task-overlap")
    expect(await flag.getAttribute("class")).toBe("reason task-flag")
    expect(await flag.textContent()).toMatch(/^Check this prompt: only 0% of its words are in your messages \(the threshold is 50%\)\. It may not be the task you asked for\. Words not in your messages: implement, rest, api/)
    // The prompt and its messages side by side.
    const [promptBox, sourceBox] = await Promise.all([page.locator("#cfg-request").boundingBox(), page.locator("#task-source").boundingBox()])
    expect(sourceBox!.x).toBeGreaterThan(promptBox!.x + promptBox!.width - 1)
    await page.screenshot({ path: path.join(ARTIFACTS, "controller-task-source.png"), fullPage: true })
    expect(await axeViolations(page)).toEqual([])
    expect(execs()).toBe(1)

    // Asking again answers from the cache; reopening the page calls nothing.
    await page.click("#synthesize")
    await expect.poll(() => page.locator("#synthesize").textContent(), { timeout: 15_000 }).toBe("Reconstruct again")
    await page.reload({ waitUntil: "load" })
    await page.locator("#cfg-request").waitFor()
    expect(await page.locator("#cfg-request").inputValue()).toBe(UNRELATED)
    expect(execs()).toBe(1)

    // Prepare repeats the check before approval.
    await page.check("#cfg-confirm-empty")
    if (await page.locator("#cfg-confirm-files").count()) await page.check("#cfg-confirm-files")
    await expect.poll(() => page.locator("#prepare").isEnabled(), { timeout: 15_000 }).toBe(true)
    await page.click("#prepare")
    await page.locator("#approval-task-check").waitFor()
    expect(await page.locator("#approval-task-check").textContent()).toBe(
      "The task prompt shares 0% of its words with your messages in the thread (below 50%): check that it is the task you asked for before approving."
    )
    expect(execs()).toBe(1)
    expect(consoleErrors).toEqual([])
  }, 60_000)

  it("Prepare reconstructs a task that never was, once, and checks it before approval", async () => {
    const before = execs()
    await page.locator("#tab-thread").click()
    await page.locator(`.thread-item[data-thread-id="${WORKSPACE_THREAD}"]`).click()
    await page.locator("#cfg-request").waitFor()
    await expect.poll(() => page.locator("#request-method").textContent()).toBe("Not reconstructed yet (your prompts, joined)")
    expect(await page.locator("#task-source > li").count()).toBe(5)
    expect(execs()).toBe(before)
    await page.check("#cfg-confirm-empty")
    if (await page.locator("#cfg-confirm-files").count()) await page.check("#cfg-confirm-files")
    await expect.poll(() => page.locator("#prepare").isEnabled(), { timeout: 15_000 }).toBe(true)
    await page.click("#prepare")
    await page.locator("#approval-task-check").waitFor({ timeout: 15_000 })
    expect(await page.locator("#request-method").textContent()).toBe("Synthesized by Codex (gpt-5.6-terra)")
    expect(await page.locator("#cfg-request").inputValue()).toBe(UNRELATED)
    expect(await page.locator("#approval-task-check").getAttribute("class")).toBe("reason")
    expect(await page.locator("#task-overlap").getAttribute("class")).toBe("reason task-flag")
    expect(execs()).toBe(before + 1)
    expect(consoleErrors).toEqual([])
  }, 60_000)
})
