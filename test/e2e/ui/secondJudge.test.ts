/**
 * Claude as a second judge from the page: Configure offers it only when Claude Code is found (and says
 * why not otherwise); a run with it shows the second judge's verdict and "split" when the judges disagree,
 * and the portfolio counts the split. Real daemon, fake Codex CLI, fake claude through the Agent SDK,
 * Debian's Chromium through playwright-core.
 */
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ARTIFACTS, chooseSamples, launchChromium, requireChromium, skipToVerdict } from "../../support/browser.js"
import { type Daemon, killAllDaemons, startDaemon } from "../../support/daemon.js"

const SAMPLE = "sample-hello-cli"
const FAKE_CLAUDE = path.resolve(import.meta.dirname, "../../fake-claude/claude")

let root: string
let browser: Browser
let page: Page
const consoleErrors: Array<string> = []

beforeAll(async () => {
  await requireChromium("the second judge UI test")
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "codex-replay-ui-judge-")))
  await fs.mkdir(path.join(root, "claude", "projects"), { recursive: true })
  const launched = await launchChromium(consoleErrors)
  browser = launched.browser
  page = await launched.context.newPage()
}, 30_000)

afterAll(async () => {
  await browser?.close()
  await killAllDaemons()
  if (root !== undefined) await fs.rm(root, { recursive: true, force: true })
})

const openSample = async (daemon: Daemon) => {
  await page.goto(daemon.launchUrl(), { waitUntil: "load" })
  await expect.poll(() => page.locator("#controller-status").textContent(), { timeout: 15_000 }).toMatch(/^Ready/)
  await chooseSamples(page)
  await page.locator(`.thread-item[data-thread-id="${SAMPLE}"]`).click()
  await page.locator("#cfg-request").waitFor()
}

describe("the second judge in the browser controller", () => {
  it("is disabled, with the reason, when Claude Code is not found", async () => {
    const missing = path.join(root, "no-claude", "claude")
    const daemon = await startDaemon({ root, env: { CODEX_REPLAY_CLAUDE_PATH: missing } })
    try {
      await openSample(daemon)
      expect(await page.locator("#cfg-second-judge").isDisabled()).toBe(true)
      expect(await page.locator("#second-judge-hint").textContent()).toBe(
        `Not available: CODEX_REPLAY_CLAUDE_PATH does not name an executable file (${missing}).`
      )
    } finally {
      await daemon.stop()
    }
  }, 60_000)

  it("runs when ticked: the verdict says split and shows Claude's verdict and cost; the portfolio counts the split", async () => {
    const claude = path.join(root, "bin", "claude")
    await fs.mkdir(path.dirname(claude), { recursive: true })
    await fs.copyFile(FAKE_CLAUDE, claude)
    await fs.chmod(claude, 0o755)
    // The fake claude favours the candidate whose patch adds the fake codex's file; the fake Codex
    // reviewer favours Claude's (it alone defines main) in both orders: the judges split.
    await fs.writeFile(path.join(root, "claude", ".fake-claude.json"), JSON.stringify({ prefer: "FAKE_CODEX_OUTPUT" }))
    const daemon = await startDaemon({ root, env: { CODEX_REPLAY_CLAUDE_PATH: claude, FAKE_CODEX_REVIEW_PREFER: "def main" } })
    try {
      await openSample(daemon)
      expect(await page.locator("#cfg-second-judge").isEnabled()).toBe(true)
      await page.check("#cfg-second-judge")
      await page.fill("#cfg-second-judge-model", "claude-test")
      await page.check("#cfg-confirm-empty")
      await page.check("#cfg-confirm-files")
      await expect.poll(() => page.locator("#config-json").textContent(), { timeout: 15_000 }).toContain("\"second_judge\": \"claude:claude-test\"")
      await expect.poll(() => page.locator("#prepare").isEnabled(), { timeout: 15_000 }).toBe(true)
      await page.click("#prepare")
      await page.locator("#approval-prompt").waitFor()
      await page.click("#approve-start")
      const runId = (await page.locator("article.run").getAttribute("data-run-id"))!
      await skipToVerdict(page, 60_000)
      // The verdict says Split (once: no badge repeats it); each judge's verdict is in the second judge's section.
      expect(await page.locator("#verdict").textContent()).toBe("Split")
      expect(await page.locator("#judges-split").count()).toBe(0)
      expect(await page.locator("#first-judge-verdict").textContent()).toMatch(/^First judge \(Codex, [\w.-]+\): Claude\.$/)
      // The report's own sentence (src/domain/report/secondJudgeHtml.ts), as report.html says it.
      expect(await page.locator("#second-judge-verdict").textContent()).toBe(
        "Second judge (Claude, claude-test): Codex; split: the two judges disagree on the overall winner."
      )
      expect(await page.locator("#second-judge-cost").textContent()).toBe("2 calls to Claude, $0.025 as Claude Code reported it.")
      await page.screenshot({ path: path.join(ARTIFACTS, "controller-second-judge.png"), fullPage: true })

      await page.click("#tab-runs")
      await page.locator(`tr[data-run-id="${runId}"] input.compare-run`).waitFor({ timeout: 15_000 })
      expect(await page.locator(`#runs-rows tr[data-run-id="${runId}"]`).innerText()).toContain("Split")
      await page.check(`tr[data-run-id="${runId}"] input.compare-run`)
      await page.click("#portfolio-compare")
      await page.locator("#portfolio-summary").waitFor()
      expect((await page.locator("#portfolio-models li").allTextContents())[0]).toContain("Judges split: 1 run of 1 judged by Claude too.")
      expect(consoleErrors).toEqual([])
    } finally {
      await daemon.stop()
    }
  }, 120_000)
})
