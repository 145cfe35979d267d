/**
 * A replay whose Codex patch is Claude's, end to end: the real daemon replays the packaged
 * hello-cli sample with the fake Codex CLI writing exactly Claude's greet.py; the page (Debian's
 * Chromium through playwright-core), `codex-replay report` and `codex-replay runs` all flag it.
 */
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runCli } from "../../cli/support.js"
import { installEnv } from "../../rpc/support.js"
import { ARTIFACTS, chooseSamples, launchChromium, requireChromium, skipToVerdict } from "../../support/browser.js"
import { type Daemon, killAllDaemons, startDaemon } from "../../support/daemon.js"

const SAMPLE = "sample-hello-cli"
/** What Claude wrote in the sample (samples/hello-cli/thread.jsonl). */
const CLAUDE_GREET = "import sys\n\n\ndef main(argv):\n    name = argv[0] if argv else \"World\"\n    print(f\"Hello, {name}!\")\n\n\nif __name__ == \"__main__\":\n    main(sys.argv[1:])\n"

let root: string
let daemon: Daemon
let browser: Browser
let page: Page
const consoleErrors: Array<string> = []

beforeAll(async () => {
  await requireChromium("the possible-leak UI test")
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "codex-replay-ui-leak-")))
  await fs.mkdir(path.join(root, "claude", "projects"), { recursive: true })
  daemon = await startDaemon({ root, env: { FAKE_CODEX_WRITE_FILE: "greet.py", FAKE_CODEX_WRITE_CONTENT: CLAUDE_GREET } })
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

describe("a Codex result that is Claude's", () => {
  let runId: string

  it("is flagged on the Results page under the verdict and in the Runs view; a portfolio of it counts it apart", async () => {
    await page.goto(daemon.launchUrl(), { waitUntil: "load" })
    await expect.poll(() => page.locator("#controller-status").textContent(), { timeout: 15_000 }).toMatch(/^Ready/)
    await chooseSamples(page)
    await page.locator(`.thread-item[data-thread-id="${SAMPLE}"]`).click()
    await page.locator("#cfg-request").waitFor()
    await page.check("#cfg-confirm-empty")
    await page.check("#cfg-confirm-files")
    await expect.poll(() => page.locator("#prepare").isEnabled(), { timeout: 15_000 }).toBe(true)
    await page.click("#prepare")
    await page.locator("#approval-prompt").waitFor()
    await page.click("#approve-start")
    runId = (await page.locator("article.run").getAttribute("data-run-id"))!
    await skipToVerdict(page, 40_000)
    const callout = page.locator("#possible-leak")
    expect(await callout.locator("strong").textContent()).toBe("matches Claude's result: possible leak")
    expect(await callout.locator("p").textContent()).toBe(
      "Codex's patch matches Claude's result: possible leak: it holds 6 of Claude's 6 changed lines (100% of the larger patch), so the verdict is not counted."
    )
    await page.screenshot({ path: path.join(ARTIFACTS, "controller-possible-leak.png"), fullPage: true })

    // The Runs view marks it, and a portfolio of it counts it apart.
    await page.click("#tab-runs")
    const row = page.locator(`#runs-rows tr[data-run-id="${runId}"]`)
    await expect.poll(() => row.innerText(), { timeout: 15_000 }).toContain("matches Claude's result: possible leak")
    await page.check(`tr[data-run-id="${runId}"] input.compare-run`)
    await page.click("#portfolio-compare")
    await page.locator("#portfolio-summary").waitFor()
    expect(await page.locator("#portfolio-models li").allTextContents()).toEqual([
      "gpt-5.6-sol: Even: Codex won 0, tied 0 and lost 0 of 0 runs; no decisive verdict to test. possible leaks: 1 (Codex's patch matches Claude's result; not counted in any figure)."
    ])
    expect(consoleErrors).toEqual([])
  }, 90_000)

  it("is flagged by codex-replay report and codex-replay runs", async () => {
    expect(runId).toMatch(/^run-/)
    const env = { ...installEnv(root), CODEX_REPLAY_RUN_ROOT: daemon.runRoot }
    const report = await runCli(["report", runId], env, { timeoutMillis: 90_000 })
    expect(report.code).toBe(0)
    expect(report.stdout.split("\n")[2]).toBe(
      "Warning: Codex's patch matches Claude's result: possible leak (100% of the changed lines are Claude's); the verdict is not counted."
    )
    const json = JSON.parse((await runCli(["report", runId, "--json"], env, { timeoutMillis: 90_000 })).stdout)
    expect(json.verdict.integrity).toEqual({ matches_claude: true, similarity: 1 })
    const runs = await runCli(["runs"], { ...env, COLUMNS: "400" }, { timeoutMillis: 90_000 })
    // The run's row names its thread by title (the packaged sample's) and carries the leak's words.
    const row = runs.stdout.split("\n")[3]!
    expect(row).toMatch(new RegExp(`│ ${runId} │ Sample: `))
    expect(row).toContain("  [matches Claude's result: possible leak]")
  }, 200_000)
})
