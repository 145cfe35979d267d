/**
 * "Judge it yourself" in the browser: the real daemon replays the packaged hello-cli sample with the fake
 * Codex CLI; on the completed run the page offers a blind vote before it shows who is who, shows the two
 * candidates without their authors, takes a choice per dimension and overall, then reveals the verdict
 * with the user's vote beside the judge's. Reloaded, the page says a blind vote is no longer possible.
 * Debian's Chromium through playwright-core.
 */
import * as fs from "node:fs/promises"
import { existsSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type { Browser, Page, Route } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ARTIFACTS, axeViolations, chooseSamples, launchChromium, requireChromium, shootWidths } from "../../support/browser.js"
import { type Daemon, killAllDaemons, startDaemon } from "../../support/daemon.js"

const SAMPLE = "sample-hello-cli"
const DIMENSIONS = ["reliability", "code_quality", "request_fulfillment", "change_scope", "safe_operations", "accurate_reporting"]

let root: string
let daemon: Daemon
let browser: Browser
let page: Page
const consoleErrors: Array<string> = []
/** Every tool the page called, as "name run_id". */
const toolCalls: Array<string> = []
/** The run the first test votes on. */
let votedRun: string

beforeAll(async () => {
  await requireChromium("the blind vote UI test")
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "codex-replay-ui-vote-")))
  await fs.mkdir(path.join(root, "claude", "projects"), { recursive: true })
  // Codex's side writes a greeting of its own, so that nothing in either patch names an agent.
  daemon = await startDaemon({ root, env: { FAKE_CODEX_WRITE_FILE: "greet.py", FAKE_CODEX_WRITE_CONTENT: "print('Hello')\n" } })
  const launched = await launchChromium(consoleErrors)
  browser = launched.browser
  page = await launched.context.newPage()
  page.on("request", (request) => {
    if (!request.url().endsWith("/api/call")) return
    const body = JSON.parse(request.postData() ?? "{}") as { name?: string; arguments?: { run_id?: string } }
    toolCalls.push(`${body.name} ${body.arguments?.run_id ?? ""}`)
  })
}, 30_000)

afterAll(async () => {
  await browser?.close()
  await daemon?.stop()
  await killAllDaemons()
  if (root !== undefined) await fs.rm(root, { recursive: true, force: true })
})

describe("Judge it yourself", () => {
  it("offers a blind vote before the reveal, takes it, then shows the verdict with the vote beside the judge's", async () => {
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
    const runId = (await page.locator("article.run").getAttribute("data-run-id"))!
    votedRun = runId

    // The completed run opens on the offer, not the verdict; the report (which holds it) is not even fetched.
    await page.locator("#blind-offer").waitFor({ timeout: 40_000 })
    expect(await page.locator("#verdict").count()).toBe(0)
    expect(await page.locator("#skip-reveal").isVisible()).toBe(true)
    expect(toolCalls).toContain(`vote_status ${runId}`)
    expect(toolCalls).not.toContain(`get_report ${runId}`)

    // The Runs view does not show its verdict either: a way to judge it or reveal it instead.
    await page.click("#tab-runs")
    const row = page.locator(`tr[data-run-id="${runId}"]`)
    await row.waitFor({ timeout: 15_000 })
    expect(await row.locator(".not-revealed").textContent()).toBe("Not revealed yet — judge it or reveal it")
    expect(await row.innerText()).not.toMatch(/wins|\btie\b|won|lost|inconclusive|no verdict/i)
    await row.locator(`[data-judge-run="${runId}"]`).click()
    await page.locator("#blind-offer").waitFor({ timeout: 15_000 })
    expect(toolCalls).not.toContain(`get_report ${runId}`)
    await page.click("#judge-yourself")

    // The candidates side by side, without their authors.
    const ballot = page.locator("#blind-ballot")
    await ballot.waitFor()
    expect(await ballot.locator(".blind-candidate h4").allTextContents()).toEqual(["First candidate", "Second candidate"])
    expect(await ballot.locator(".diff-file > summary", { hasText: "greet.py" }).count()).toBe(2)
    expect(await ballot.locator(".blind-candidate .markdown").count()).toBe(2)
    expect(await ballot.innerText()).not.toMatch(/codex|claude|historical/i)
    expect(await axeViolations(page)).toEqual([])
    await page.screenshot({ path: path.join(ARTIFACTS, "controller-blind-vote.png"), fullPage: true })
    await shootWidths(page, "controller-blind-vote")

    // A vote without every choice is refused on the page; nothing is sent.
    await page.click("#submit-vote")
    expect(await page.locator("#vote-error").textContent()).toBe("Choose first, second or tie for every dimension and overall.")
    expect(await fs.stat(path.join(daemon.runRoot, runId, "vote.json")).catch(() => null)).toBeNull()

    for (const dimension of DIMENSIONS) await page.check(`input[name="vote-${dimension}"][value="tie"]`)
    await page.check(`input[name="vote-reliability"][value="first"]`)
    await page.check(`input[name="vote-overall"][value="first"]`)
    await page.click("#submit-vote")

    // The reveal, with the vote beside the judge's.
    await page.locator("#verdict").waitFor({ timeout: 15_000 })
    expect(toolCalls).toContain(`get_report ${runId}`)
    const stored = JSON.parse(await fs.readFile(path.join(daemon.runRoot, runId, "vote.json"), "utf8"))
    const authored = { codex: "Codex replay", claude: "Historical Claude", tie: "Tie" } as Record<string, string>
    const table = page.locator("#vote-table")
    const rows = await table.locator("tbody tr").allInnerTexts()
    expect(rows).toHaveLength(7)
    expect(rows[0]).toMatch(new RegExp(`^Reliability\\t.*\\t${authored[stored.dimensions.reliability]}$`))
    expect(rows[1]).toMatch(/^Code quality\t.*\tTie$/)
    expect(rows[6]).toContain(`\t${authored[stored.overall]}`)
    expect(stored.overall).toBe(stored.dimensions.reliability)
    expect(await page.locator("#vote-agreement").textContent()).toMatch(new RegExp(`^You voted ${authored[stored.overall]} overall; the judge: `))
    expect(await axeViolations(page)).toEqual([])
    await page.screenshot({ path: path.join(ARTIFACTS, "controller-blind-vote-reveal.png"), fullPage: true })

    // Opened again, the run shows its verdict and the vote; it offers no second vote.
    await page.reload({ waitUntil: "load" })
    await page.locator("#verdict").waitFor({ timeout: 15_000 })
    expect(await page.locator("#blind-offer").count()).toBe(0)
    expect(await page.locator("#vote-table").count()).toBe(1)
    expect(consoleErrors).toEqual([])
  }, 90_000)

  it("skips and reveals; the run then says a blind vote is no longer possible", async () => {
    await page.click("#tab-thread")
    await chooseSamples(page)
    await page.locator(`.thread-item[data-thread-id="${SAMPLE}"]`).click()
    await page.locator("#cfg-request").waitFor()
    await page.check("#cfg-confirm-empty")
    await page.check("#cfg-confirm-files")
    await expect.poll(() => page.locator("#prepare").isEnabled(), { timeout: 15_000 }).toBe(true)
    await page.click("#prepare")
    await page.locator("#approval-prompt").waitFor()
    await page.click("#approve-start")
    await page.locator("#blind-offer").waitFor({ timeout: 40_000 })
    const runId = (await page.locator("article.run").first().getAttribute("data-run-id"))!

    // Reloaded while the controller cannot answer whether the run is still blind: the error and Retry, never the
    // verdict, and nothing revealed on disk.
    const failStatus = (route: Route) =>
      (route.request().postData() ?? "").includes('"vote_status"')
        ? route.fulfill({ status: 200, contentType: "application/json", body: JSON.stringify({ isError: true, content: [{ type: "text", text: "The controller is busy." }] }) })
        : route.continue()
    await page.route("**/api/call", failStatus)
    await page.reload({ waitUntil: "load" })
    await page.locator("#blind-status-error").waitFor({ timeout: 15_000 })
    expect(await page.locator("#blind-status-error [role=alert]").textContent()).toBe(`Could not tell whether you can still judge run ${runId} blind: The controller is busy.`)
    expect(await page.locator("#verdict").count()).toBe(0)
    expect(existsSync(path.join(daemon.runRoot, runId, "revealed.json"))).toBe(false)
    await page.unroute("**/api/call", failStatus)
    await page.click("#blind-status-retry")
    await page.locator("#blind-offer").waitFor({ timeout: 15_000 })
    await page.click("#skip-reveal")
    await page.locator("#verdict").waitFor({ timeout: 15_000 })
    expect(await page.locator("#vote-table").count()).toBe(0)
    await page.reload({ waitUntil: "load" })
    await page.locator("#verdict").waitFor({ timeout: 15_000 })
    expect(await page.locator("#blind-note").textContent()).toBe(
      `The verdict of run ${runId} has been revealed, so a blind vote is no longer possible for it.`
    )

    // A portfolio of both runs reports the agreement over the one with a vote (n = 1).
    await page.click("#tab-runs")
    for (const id of [votedRun, runId]) {
      const box = page.locator(`tr[data-run-id="${id}"] input.compare-run`)
      await box.waitFor({ timeout: 15_000 })
      await box.check()
    }
    await page.click("#portfolio-compare")
    await page.locator("#portfolio-summary").waitFor()
    const vote = JSON.parse(await fs.readFile(path.join(daemon.runRoot, votedRun, "vote.json"), "utf8")).overall
    const judge = JSON.parse(await fs.readFile(path.join(daemon.runRoot, votedRun, "report.json"), "utf8")).winner
    expect(["codex", "claude", "tie"]).toContain(judge)
    const agreeing = judge === vote ? 1 : 0
    expect(await page.locator("#portfolio-agreement li").allTextContents()).toEqual([
      `gpt-5.6-sol: you and the judge agree on the overall winner in ${agreeing} of 1 run(s) you voted on (${agreeing * 100}%); Cohen's kappa ${
        agreeing === 1 ? "undefined (you and the judge gave one and the same answer every time)" : "0.00"
      }, n = 1.`
    ])
    expect(consoleErrors).toEqual([])
  }, 90_000)
})
