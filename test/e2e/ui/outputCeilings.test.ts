/**
 * Output past its ceilings on the Results page (docs/controller.md, "Ceilings on agent output"): the real
 * daemon replays the packaged hello-cli sample with the fake Codex CLI leaving a sparse gigabyte, 5.7 MB of
 * text and a 300 KiB answer; the page (Debian's Chromium through playwright-core) says above the patch and
 * the answer what was cut, lists the binary file by its size, and counts the cuts in the comparability panel.
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
  await requireChromium("the output-ceiling UI test")
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "codex-replay-ui-ceilings-")))
  await fs.mkdir(path.join(root, "claude", "projects"), { recursive: true })
  daemon = await startDaemon({ root })
  const launched = await launchChromium(consoleErrors)
  browser = launched.browser
  page = await launched.context.newPage()
}, 30_000)

afterAll(async () => {
  await browser?.close()
  await daemon?.stop()
  await killAllDaemons()
  if (root !== undefined) await fs.rm(root, { recursive: true, force: true })
})

describe("output past its ceilings on the Results page", () => {
  it("notes each cut above the patch and the answer, lists the binary file by size, and counts the cuts as concerns", async () => {
    await page.goto(daemon.launchUrl(), { waitUntil: "load" })
    await expect.poll(() => page.locator("#controller-status").textContent(), { timeout: 15_000 }).toMatch(/^Ready/)
    await chooseSamples(page)
    await page.locator(`.thread-item[data-thread-id="${SAMPLE}"]`).click()
    await page.locator("#cfg-request").waitFor()
    await page.fill("#cfg-request", "Create greet.py that prints a greeting.\nfake-scenario: large_output")
    await page.check("#cfg-confirm-empty")
    await page.check("#cfg-confirm-files")
    await expect.poll(() => page.locator("#prepare").isEnabled(), { timeout: 15_000 }).toBe(true)
    await page.click("#prepare")
    await page.locator("#approval-prompt").waitFor()
    await page.click("#approve-start")
    await skipToVerdict(page, 120_000)

    const patchNotes = await page.locator("#codex-patch-notes li").allTextContents()
    expect(patchNotes[0]).toMatch(/^Codex's diff of "large\.txt" was truncated: 1\.0 MB of 3\.\d MB shown\.$/)
    expect(patchNotes[1]).toMatch(/^Codex's patch was truncated: [12]\.\d MB of 5\.\d MB shown\.$/)
    expect(patchNotes).toContain("large.bin: Binary file, 1,073,741,824 bytes, not shown")
    expect(await page.locator("#codex-final_response-notes li").allTextContents()).toEqual([
      "Codex's final response was truncated: 256 KB of 300 KB shown."
    ])
    expect(await page.locator("#claude-patch-notes").count()).toBe(0)
    const concerns = await page.locator("#comparability-summary li").allTextContents()
    expect(concerns).toContain("Codex's final response was truncated: 256 KB of 300 KB shown.")
    expect(concerns.filter((concern) => concern.startsWith("Codex's patch was truncated"))).toHaveLength(1)
    expect(await page.locator("#comparability-facts").innerText()).toMatch(/Output cut at a ceiling\s+Codex's diff of "large\.txt" was truncated/)
    await page.screenshot({ path: path.join(ARTIFACTS, "controller-output-ceilings.png"), fullPage: false })
    expect(consoleErrors).toEqual([])
  }, 180_000)
})
