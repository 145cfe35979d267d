/**
 * The page refuses an unaccepted empty beginning when Claude changed existing files, and its Results
 * step shows both costs and the comparability panel (README, "Comparability"). Real daemon, fake Codex CLI, a real
 * transcript (fixture) and Debian's Chromium through playwright-core.
 */
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ARTIFACTS, launchChromium, requireChromium, skipToVerdict } from "../../support/browser.js"
import { type Daemon, killAllDaemons, startDaemon } from "../../support/daemon.js"
import { CLAUDE_HOME } from "../../support/fixtures.js"

/** Claude modified CLAUDE.md of /path/to/Demo, which does not exist on this machine. */
const DEMO_THREAD = "5c0375b4-57a5-4f26-b12d-d022ee4e51b7"

let root: string
let daemon: Daemon
let browser: Browser
let page: Page
const consoleErrors: Array<string> = []

beforeAll(async () => {
  await requireChromium("the comparability UI test")
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "codex-replay-ui-compare-")))
  const projects = path.join(root, "claude", "projects", "-path-to-Demo")
  await fs.mkdir(projects, { recursive: true })
  await fs.copyFile(path.join(CLAUDE_HOME, "projects", "-path-to-Demo", `${DEMO_THREAD}.jsonl`), path.join(projects, `${DEMO_THREAD}.jsonl`))
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

describe("comparability in the browser controller", () => {
  it("needs an explicit acceptance of the empty beginning, then shows both costs and the comparability panel", async () => {
    await page.goto(daemon.launchUrl())
    await page.locator(`.thread-item[data-thread-id="${DEMO_THREAD}"]`).click()
    await page.locator("#cfg-request").waitFor()
    expect(await page.locator("#cfg-beginning").inputValue()).toBe("non_git")
    expect(await page.locator("#empty-beginning-warning").textContent()).toBe(
      "Claude modified 1 file(s) that existed before the session; Codex would start without them. Choose a Git repository, or accept the empty beginning explicitly."
    )
    expect(await page.locator("label:has(#cfg-confirm-empty)").innerText()).toContain("the comparison is not like-for-like")
    await page.check("#cfg-confirm-files")
    await expect.poll(() => page.locator("#start-reason").textContent(), { timeout: 15_000 }).toBe(
      "Cannot start yet: Accept the empty beginning explicitly: Claude modified 1 file(s) that existed before the session, so the comparison would not be like-for-like."
    )
    expect(await page.locator("#prepare").isDisabled()).toBe(true)

    await page.check("#cfg-confirm-empty")
    await expect.poll(() => page.locator("#prepare").isEnabled(), { timeout: 15_000 }).toBe(true)
    await page.click("#prepare")
    await page.locator("#approval-prompt").waitFor()
    // Before the approval: the reviewer prepare chose, one that implements none of the replays.
    expect(await page.locator("#approval-reviewer").innerText()).toBe("Reviewer: gpt-5.6-terra — implements none of the replays")
    await page.click("#approve-start")
    await skipToVerdict(page, 40_000)

    const summary = page.locator("#comparability-summary")
    expect(await summary.locator("strong").textContent()).toBe("Not like-for-like")
    const concerns = await summary.locator("li").allTextContents()
    expect(concerns[0]).toBe("The replay started from an empty directory, while Claude changed 1 file that already existed (CLAUDE.md).")
    expect(concerns.some((concern) => concern.startsWith("Self-review"))).toBe(false)
    const facts = await page.locator("#comparability-facts").innerText()
    expect(facts).toContain("Empty directory while Claude changed existing files")
    expect(facts).toContain("gpt-5.6-terra (not the implementing model)")
    // Under the verdict, its caveats in the words of the report and the CLI.
    const caveat = page.locator('#verdict-caveats li[data-kind="not_like_for_like"]')
    expect(await caveat.innerText()).toMatch(/^not like-for-like: The replay started from an empty directory, while Claude changed 1 file/)
    expect(await page.locator('#verdict-caveats li[data-kind="self_review"]').count()).toBe(0)
    // The fake reviewer prefers the first candidate in both orders: a tie by disagreement, still labelled.
    expect(await page.locator("#verdict").textContent()).toBe("Inconclusive (the two orders disagreed)")
    expect(await page.locator("#not-like-for-like").textContent()).toBe("not like-for-like")

    // Codex's cost is a figure beside Claude's, with what it means.
    const costs = await page.locator(".cost-row td").allTextContents()
    expect(costs[0]).toMatch(/^\$\d+\.\d+/)
    expect(costs[1]).toMatch(/^(\$\d+\.\d+|Not available: )/)
    expect(await page.locator("#cost-note").textContent()).toContain("A ChatGPT-plan user is not billed per token for Codex")
    await page.screenshot({ path: path.join(ARTIFACTS, "controller-comparability.png"), fullPage: true })
    expect(consoleErrors).toEqual([])
  }, 90_000)
})
