/**
 * The browser controller end to end: the real daemon (fake Codex CLI, a copy of the
 * shared Claude fixtures) driven by Debian's Chromium through playwright-core.
 */
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { callTool, type Daemon, killAllDaemons, startDaemon } from "../../support/daemon.js"
import { ARTIFACTS, chooseSamples, launchChromium, requireChromium, shootWidths, skipToVerdict } from "../../support/browser.js"
import { CLAUDE_HOME } from "../../support/fixtures.js"

const SAMPLE = "sample-hello-cli"
const SPOTTER = "55604662-cf2a-4331-851a-ec234028f8ca"
/** A thread title that would be markup if the page ever used innerHTML. */
const HOSTILE = "<img src=x onerror=window.__pwned=1> Hostile <b>title</b>"

let root: string
let daemon: Daemon
let browser: Browser
let context: BrowserContext
let page: Page
let origin: string
const requests: Array<string> = []
const consoleErrors: Array<string> = []

const shot = (name: string, fullPage = true) => page.screenshot({ path: path.join(ARTIFACTS, name), fullPage })

beforeAll(async () => {
  await requireChromium("the controller UI test")
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "codex-replay-ui-")))
  const claudeHome = path.join(root, "claude")
  await fs.cp(CLAUDE_HOME, claudeHome, { recursive: true })
  // 20 more threads (copies of a real session under new ids) so the list needs a second page.
  const spotter = path.join(claudeHome, "projects", "-home-marco-projects-spotter", `${SPOTTER}.jsonl`)
  const original = await fs.readFile(spotter, "utf8")
  const paging = path.join(claudeHome, "projects", "-tmp-paging-project")
  await fs.mkdir(paging, { recursive: true })
  for (let index = 1; index <= 20; index++) {
    const id = `00000000-0000-4000-8000-${String(index).padStart(12, "0")}`
    const text = original
      .replaceAll(SPOTTER, id)
      .replaceAll("mix phx.server doesnt seem to start", index === 20 ? HOSTILE : `Generated paging thread ${index}`)
      .replaceAll("/home/marco/projects/spotter", "/tmp/paging-project")
    await fs.writeFile(path.join(paging, `${id}.jsonl`), text)
  }
  daemon = await startDaemon({
    root,
    // `fake-scenario: slow` in a request makes that implementation take a few seconds.
    env: { CLAUDE_CONFIG_DIR: claudeHome, FAKE_CODEX_DELAY_MS: "350" }
  })
  origin = `http://127.0.0.1:${daemon.port}`
  ;({ browser, context } = await launchChromium(consoleErrors, { acceptDownloads: true }))
  context.on("request", (request) => void requests.push(request.url()))
  page = await context.newPage()
}, 30_000)

afterAll(async () => {
  await browser?.close()
  await daemon?.stop()
  await killAllDaemons()
  if (root !== undefined) await fs.rm(root, { recursive: true, force: true })
})

const threadTitles = () => page.locator(".thread-item").allInnerTexts()

describe("browser controller", () => {
  it("loads with no console error and no foreign request; lists #N threads in pages of 20 with Load more; search filters them", async () => {
    await page.goto(daemon.launchUrl(), { waitUntil: "load" })
    await page.locator(".thread-item").first().waitFor()
    expect(await page.locator("#controller-status").textContent()).toMatch(/^Ready/)
    const items = await threadTitles()
    expect(items.length).toBe(20)
    expect(items[0]).toMatch(/^#1\s/)
    expect(items[19]).toMatch(/^#20\s/)
    expect(await page.locator("#thread-summary").textContent()).toContain("Showing 20 of 25 imported threads")
    expect(await page.locator("#count-imported").textContent()).toBe("(25)")
    expect(await page.locator("#count-sample").textContent()).toBe("(2)")
    await page.click("#load-more")
    await expect.poll(async () => (await threadTitles()).length).toBe(25)
    expect((await threadTitles())[20]).toMatch(/^#21\s/)
    expect(await page.locator("#load-more").isHidden()).toBe(true)
    // History text is shown as text, never as markup.
    expect((await threadTitles()).join("\n")).toContain(HOSTILE)
    expect(await page.locator("#thread-list img, #thread-list b").count()).toBe(0)
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined()

    await page.fill("#thread-search", "spotter")
    await expect.poll(async () => (await threadTitles()).length).toBe(1)
    expect((await threadTitles())[0]).toContain("mix phx.server doesnt seem to start")
    expect((await threadTitles())[0]).toMatch(/^#1\s/)
    await page.fill("#thread-search", "no-such-thread-anywhere")
    await expect.poll(() => page.locator("#thread-summary").textContent()).toContain("No imported threads match")
    await page.fill("#thread-search", "")
    await expect.poll(async () => (await threadTitles()).length).toBe(20)
    await shot("controller-threads.png")
    // The thread list at a phone's, a laptop's and a wide screen's width: it must not scroll sideways.
    await shootWidths(page, "controller-threads", { fullPage: false })
    await page.setViewportSize({ width: 390, height: 900 })
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true)
    await page.setViewportSize({ width: 1280, height: 900 })

    expect(consoleErrors).toEqual([])
    expect(requests).toContain(`${origin}/api/heartbeat`)
    expect(requests.length).toBeGreaterThan(3)
    expect(requests.filter((url) => !url.startsWith(`${origin}/`))).toEqual([])
  }, 20_000)

  it("shows each thread's tokens and cost, and sorts the list by cost", async () => {
    const amounts = async () =>
      (await threadTitles()).map((text) => Number(/ · \$(\d+(?:\.\d+)?)/.exec(text)?.[1] ?? Number.NaN))
    expect((await threadTitles())[0]).toMatch(/ · [\d.]+[kM]? tokens · \$\d/)
    await page.selectOption("#thread-sort", "cost")
    // The first page by date (the 20 copies, whose copied responses count only once) is sorted by cost
    // too, all zero: wait for the most expensive thread on top, then check the order.
    const top = () => page.locator(".thread-item").first().getAttribute("data-thread-id")
    await expect.poll(top).toBe("b3edadab-bca0-4054-9b41-f7ffa6941260")
    const costs = await amounts()
    expect(costs).toHaveLength(20)
    expect(costs[0]).toBeGreaterThan(0)
    expect(costs.every((cost, index) => index === 0 || cost <= costs[index - 1]!)).toBe(true)
    await page.selectOption("#thread-sort", "date")
    await expect.poll(async () => (await threadTitles())[0]).toMatch(/^#1\s/)
    expect(consoleErrors).toEqual([])
  }, 20_000)

  it("shows the sample's configuration; the start button is disabled with a reason until a model is chosen; the draft survives a reload", async () => {
    await chooseSamples(page)
    await page.locator(`.thread-item[data-thread-id="${SAMPLE}"]`).click()
    await page.locator("#cfg-request").waitFor()
    expect(await page.locator("#step-configure").isVisible()).toBe(true)
    expect(await page.locator("#cfg-request").inputValue()).toContain("Create greet.py")
    expect(await page.locator("#request-method").textContent()).toBe("Packaged sample")
    expect(await page.locator("#historical-response").textContent()).toContain("Created `greet.py`")
    expect(await page.locator("#cfg-beginning").inputValue()).toBe("non_git")
    expect(await page.locator("#configure-body").innerText()).toContain("greet.py")

    // The default model is preselected; with none chosen the button says why it is disabled.
    const models = page.locator('input[name="model"]')
    expect(await models.count()).toBe(4)
    expect(await models.first().isChecked()).toBe(true)
    await models.first().uncheck()
    await page.check("#cfg-confirm-empty")
    await page.check("#cfg-confirm-files")
    expect(await page.locator("#prepare").isDisabled()).toBe(true)
    expect(await page.locator("#start-reason").textContent()).toBe("Cannot start yet: Choose at least one Codex model.")
    await page.uncheck("#cfg-confirm-empty")
    expect(await page.locator("#start-reason").textContent()).toContain("Confirm that the replay starts from an empty directory.")
    await page.check("#cfg-confirm-empty")
    await models.first().check()
    expect(await page.locator("#prepare").isEnabled()).toBe(true)
    expect(await page.locator("#config-summary").innerText()).toContain("gpt-5.6-sol")
    // No reviewer named: preselected and shown, the first model Codex lists after the chosen one (its default), not a self-review.
    const reviewerRow = () => page.locator('#config-summary dt:text-is("Reviewer") + dd').textContent()
    expect(await page.locator("#cfg-reviewer option").count()).toBe(5)
    expect(await page.locator("#cfg-reviewer").inputValue()).toBe("")
    expect(await page.locator("#cfg-reviewer option:checked").textContent()).toBe("gpt-5.6-terra — neutral (implements none of the chosen models)")
    expect(await reviewerRow()).toBe("gpt-5.6-terra")
    // Every offered model an implementer: only then a self-review, labelled so.
    for (let index = 1; index < 4; index++) await page.locator('input[name="model"]').nth(index).check()
    expect(await page.locator("#cfg-reviewer option:checked").textContent()).toBe("gpt-5.6-sol — self-review (every offered model is an implementer)")
    expect(await reviewerRow()).toBe("gpt-5.6-sol (self-review for gpt-5.6-sol)")
    for (let index = 1; index < 4; index++) await page.locator('input[name="model"]').nth(index).uncheck()
    // A reviewer may be named: it is then in the payload.
    const namedReviewer = (await models.nth(1).getAttribute("value"))!
    await page.selectOption("#cfg-reviewer", namedReviewer)
    expect(await page.locator("#config-json").textContent()).toContain(`"reviewer_model": "${namedReviewer}"`)
    expect(await page.locator("#config-summary").innerText()).not.toContain("self-review")

    // The run will take a few seconds with the fake Codex, so it can be resumed after a reload.
    await page.locator("#cfg-request").fill("Create greet.py that prints a greeting.\nfake-scenario: slow")
    await shot("controller-configure.png")

    await page.reload({ waitUntil: "load" })
    await page.locator("#cfg-request").waitFor()
    expect(await page.locator("#step-configure").isVisible()).toBe(true)
    expect(await page.locator("#cfg-request").inputValue()).toBe("Create greet.py that prints a greeting.\nfake-scenario: slow")
    expect(await page.locator("#cfg-confirm-empty").isChecked()).toBe(true)
    expect(await page.locator("#cfg-confirm-files").isChecked()).toBe(true)
    expect(await page.locator('input[name="model"]').first().isChecked()).toBe(true)
    expect(await page.locator("#cfg-reviewer").inputValue()).toBe(namedReviewer)
    expect(await page.locator("#source-sample").isChecked()).toBe(true)
    const keys = await page.evaluate(() => Object.keys(localStorage))
    expect(keys).toEqual([`codex-replay.controller-draft.v1:${daemon.sessionId}`])
    expect(consoleErrors).toEqual([])
  }, 20_000)

  it("prepare → approve → start: the run shows phases and log, is resumed after a reload, completes, and the results show the evaluation and tokens", async () => {
    await page.click("#prepare")
    await page.locator("#approval-prompt").waitFor()
    expect(await page.locator("#approval-prompt").textContent()).toBe(`Approve a Codex replay of ${SAMPLE} with gpt-5.6-sol?`)
    expect(await page.locator("#approval-reviewer").innerText()).toBe("Reviewer: gpt-5.6-terra — implements none of the replays")
    await page.click("#approve-start")
    const run = page.locator("article.run")
    await run.waitFor()
    expect(await page.locator("#step-run").isVisible()).toBe(true)
    const runId = await run.getAttribute("data-run-id")
    expect(runId).toMatch(/^run-/)
    await expect.poll(() => run.locator(".phase").count()).toBe(8)
    await expect.poll(() => run.locator(".run-log").textContent()).toContain("[controller] run approved")
    expect(await run.locator(".status").textContent()).toBe("running")
    expect(await run.locator("button[data-cancel]").isVisible()).toBe(true)
    await shot("controller-run.png")

    // No prepare token (or any other transient state) is ever stored.
    const stored = await page.evaluate(() => JSON.stringify(Object.values(localStorage)))
    expect(stored).not.toContain("prepare_token")
    expect(stored).not.toMatch(/[A-Za-z0-9_-]{43}/)

    // Reload while the run is active: the page comes back on the Run step, following the same run.
    await page.reload({ waitUntil: "load" })
    await page.locator(`article.run[data-run-id="${runId}"]`).waitFor()
    expect(await page.locator("#step-run").isVisible()).toBe(true)
    expect(await page.locator(`article.run[data-run-id="${runId}"] .status`).textContent()).toBe("running")

    // It completes and the page moves on to the results.
    await skipToVerdict(page, 30_000)
    expect(await page.locator("#step-results").isVisible()).toBe(true)
    expect(await page.locator("#verdict").textContent()).toMatch(/^(Codex replay wins|Historical Claude wins|Tie|Inconclusive \(no order-balanced verdict\)|Inconclusive \(the two orders disagreed\))$/)
    const table = page.locator(".evaluation-table").first()
    expect(await table.locator("thead th").allTextContents()).toEqual(["Check", "Codex replay", "Historical Claude"])
    expect(await table.locator("tr.dimension strong").first().textContent()).toBe("Reliability")
    expect(await table.locator("tr.check td").nth(1).textContent()).toMatch(/^(Pass|Fail|N\/A)$/)
    expect(await table.locator("tr.score td").nth(1).textContent()).toMatch(/^\d+%$/)
    expect(await page.locator(".legend").first().textContent()).toContain("Pass: satisfied. Fail: failed.")
    // The neutral reviewer prepare showed, not a self-review; each order's reason (the fake's "fake").
    expect(await page.locator("#reviewer-model").textContent()).not.toBe("gpt-5.6-sol")
    expect(await page.locator("#reviewer-model").textContent()).toBe("gpt-5.6-terra")
    expect(await page.locator("#self-review").count()).toBe(0)
    expect(await page.locator("#review-reasons li").first().textContent()).toBe("A/B order: fake")
    expect(await page.locator("#review-reasons li").nth(1).textContent()).toBe("B/A order: fake")
    // Reviewer narratives (the fake writes "fake" as evidence and comparison) are never shown.
    const narrative = await page.locator("#results-body *").evaluateAll((nodes) => nodes.some((node) => node.textContent?.trim() === "fake"))
    expect(narrative).toBe(false)
    const labels = await page.locator(".token-label").evaluateAll((nodes) => nodes.map((node) => node.firstChild?.textContent))
    expect(labels).toEqual(["Total input processed", "Ordinary input tokens", "Cache-read tokens", "Cache-write tokens", "Output tokens"])
    const tooltip = page.locator(".token-label .token-tooltip").first()
    expect(await tooltip.isVisible()).toBe(false)
    await page.locator(".token-label").first().hover()
    expect(await tooltip.isVisible()).toBe(true)
    expect(await tooltip.textContent()).toBe("All input tokens processed: ordinary input, cache reads, and cache writes.")
    // The fake Codex is faster than the historical 9 s: better elapsed time for Codex, worse for Claude.
    expect(await page.locator("tr.elapsed-row td").first().innerText()).toContain("better")
    expect(await page.locator("tr.elapsed-row td").nth(1).innerText()).toContain("worse")
    await page.mouse.move(0, 0)
    await shot("controller-results.png")

    const [download] = await Promise.all([page.waitForEvent("download"), page.click("#download-json")])
    expect(download.suggestedFilename()).toBe(`codex-replay-${runId}-report.json`)
    // A connected browser's download is streamed to a file of ours (it has no path of its own here).
    const file = path.join(ARTIFACTS, `controller-${runId}-report.json`)
    await download.saveAs(file)
    const report = JSON.parse(await fs.readFile(file, "utf8"))
    expect(report.run_id).toBe(runId)
    const [html] = await Promise.all([page.waitForEvent("download"), page.click("#download-html")])
    expect(html.suggestedFilename()).toBe(`codex-replay-${runId}-report.html`)

    expect(consoleErrors).toEqual([])
    expect(requests.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith(`blob:${origin}/`))).toEqual([])
  }, 45_000)

  it("an imported thread: synthesis runs when asked and shows its method; capability gaps say they may affect fairness; Infer answers; two models run in parallel", async () => {
    await page.locator("#tab-thread").click()
    await page.check("#source-imported")
    await page.fill("#thread-search", "agent thread")
    await expect.poll(async () => (await threadTitles()).length).toBe(1)
    await page.locator(".thread-item").first().click()
    await page.locator("#cfg-request").waitFor()
    // inspect_thread says "pending"; opening asks no model: the button asks synthesize_request and shows the method it used.
    expect(await page.locator("#request-method").textContent()).toBe("Not reconstructed yet (your prompts, joined)")
    await page.click("#synthesize")
    await expect.poll(() => page.locator("#request-method").textContent(), { timeout: 15_000 }).toMatch(/^Synthesized by Codex \(gpt-/)
    const gap = page.locator(".gap").first()
    expect(await gap.innerText()).toContain("Sub-agents")
    expect(await gap.innerText()).toContain("may affect comparison fairness")
    expect(await gap.innerText()).toContain("Claude delegated work to sub-agents.")
    await page.click("#infer")
    await expect.poll(() => page.locator("#infer-note").textContent(), { timeout: 15_000 }).toMatch(/^(Inferred from|No working directory could be inferred)/)
    await shot("controller-configure-imported.png")

    // Two models replay the same configuration in parallel; the results switch between them.
    await page.check("#cfg-confirm-files")
    await page.check("#cfg-confirm-empty")
    await page.locator('input[name="model"]').nth(1).check()
    await page.click("#prepare")
    await page.locator("#approval-prompt").waitFor()
    expect(await page.locator("#approval-prompt").textContent()).toBe("Approve 2 parallel Codex implementations using this configuration?")
    await page.click("#approve-start")
    await expect.poll(() => page.locator("article.run").count(), { timeout: 10_000 }).toBe(2)
    await skipToVerdict(page, 20_000)
    // Both runs ended (a failed one would say so here, with its error, rather than as a missing button).
    const newestTwo = async () => {
      const state = (await callTool(daemon.port, "get_state")).json.structuredContent.state
      return state.recent_runs.slice(0, 2).map((run: { status: string; error?: string }) => `${run.status}${run.error ? `: ${run.error}` : ""}`)
    }
    await expect.poll(newestTwo, { timeout: 20_000 }).toEqual(["completed", "completed"])
    const switcher = page.locator(".run-switch button")
    await expect.poll(() => switcher.allTextContents(), { timeout: 10_000 }).toEqual(["gpt-5.6-sol", "gpt-5.6-terra"])
    await switcher.nth(1).click()
    await expect.poll(() => page.locator(".summary-table tbody tr").first().innerText()).toContain("gpt-5.6-terra")
    expect(consoleErrors).toEqual([])
  }, 60_000)

  it("a Git sample: commits are prefilled; a running replay can be cancelled from the Run step", async () => {
    await page.locator("#tab-thread").click()
    await page.fill("#thread-search", "")
    await chooseSamples(page)
    await page.locator('.thread-item[data-thread-id="sample-word-count"]').click()
    await page.locator("#cfg-baseline").waitFor()
    expect(await page.locator("#cfg-beginning").inputValue()).toBe("git")
    const baseline = await page.locator("#cfg-baseline").inputValue()
    expect(baseline).toMatch(/^[0-9a-f]{40}$/)
    expect(await page.locator("#cfg-ending-commit").inputValue()).toMatch(/^[0-9a-f]{40}$/)
    expect(await page.locator("#cfg-repo").inputValue()).not.toBe("")
    await page.locator("#cfg-baseline").fill("")
    expect(await page.locator("#start-reason").textContent()).toContain("Enter the beginning Git commit.")
    await page.reload({ waitUntil: "load" })
    await page.locator("#cfg-baseline").waitFor()
    expect(await page.locator("#cfg-baseline").inputValue()).toBe("")
    expect(await page.locator("#prepare").isDisabled()).toBe(true)
    await page.locator("#cfg-baseline").fill(baseline)
    // Reviewing the repository gates Prepare.
    expect(await page.locator("#start-reason").textContent()).toContain("Confirm that you have reviewed this repository and these commits.")
    await page.check("#cfg-confirm-repo")
    await page.locator("#cfg-request").fill("Add a --words option.\nfake-scenario: hang")
    await page.click("#prepare")
    await page.click("#approve-start")
    const run = page.locator("article.run")
    await expect.poll(() => run.count()).toBe(1)
    await run.locator("button[data-cancel]").click()
    await run.locator("button[data-confirm-cancel]").click()
    await expect.poll(() => run.locator(".status").textContent(), { timeout: 15_000 }).toBe("cancelled")
    expect(await run.locator("button[data-cancel]").count()).toBe(0)
    expect(await page.locator("#step-run").isVisible()).toBe(true)
    expect(consoleErrors).toEqual([])
  }, 30_000)

  it("keyboard: the steps, the source switch, the search, a thread, the confirmations, a model and prepare are reachable with Tab and operable with Enter/Space/arrows", async () => {
    await page.goto(`${origin}/`, { waitUntil: "load" })
    await page.locator("#controller-status", { hasText: "Ready" }).waitFor()
    await page.locator(".step-tab[aria-current]").waitFor()

    const describeFocus = () =>
      page.evaluate(() => {
        const element = document.activeElement as HTMLElement | null
        if (element === null) return ""
        return element.id || element.getAttribute("data-thread-id") || `${element.tagName}:${element.getAttribute("name") ?? ""}`
      })
    const tabTo = async (wanted: (focus: string) => boolean, limit = 60) => {
      for (let index = 0; index < limit; index++) {
        await page.keyboard.press("Tab")
        const focus = await describeFocus()
        if (wanted(focus)) return focus
      }
      throw new Error("the control was not reached with Tab")
    }

    await page.locator("body").focus()
    await tabTo((focus) => focus === "tab-thread")
    await page.keyboard.press("Enter")
    expect(await page.locator("#step-thread").isVisible()).toBe(true)
    // The source switch is a radio group: arrow keys choose the source.
    expect(await tabTo((focus) => focus === "source-imported" || focus === "source-sample")).toBe("source-sample")
    await page.keyboard.press("ArrowLeft")
    expect(await page.locator("#source-imported").isChecked()).toBe(true)
    await tabTo((focus) => focus === "thread-search")
    await page.keyboard.type("spotter")
    await expect.poll(async () => (await threadTitles()).length).toBe(1)
    await tabTo((focus) => focus === SPOTTER)
    await page.keyboard.press("Enter")
    await page.locator("#cfg-request").waitFor()
    expect(await page.locator("#step-configure").isVisible()).toBe(true)
    await tabTo((focus) => focus === "cfg-confirm-empty")
    await page.keyboard.press("Space")
    expect(await page.locator("#cfg-confirm-empty").isChecked()).toBe(true)

    const model = await tabTo((focus) => focus.startsWith("cfg-model-"))
    const before = await page.locator(`#${model}`).isChecked()
    await page.keyboard.press("Space")
    await expect.poll(() => page.locator(`#${model}`).isChecked()).toBe(!before)
    // The section re-renders; the keyboard focus stays on the same checkbox.
    expect(await describeFocus()).toBe(model)
    await page.keyboard.press("Space")
    await expect.poll(() => page.locator(`#${model}`).isChecked()).toBe(before)
    await tabTo((focus) => focus === "cfg-timeout")
    await tabTo((focus) => focus === "prepare")
    await page.keyboard.press("Enter")
    await page.locator("#approval-prompt").waitFor({ timeout: 5_000 })
    // Going back to editing does not start anything.
    await tabTo((focus) => focus === "edit-config" || focus === "approve-start")
    await page.locator("#edit-config").focus()
    await page.keyboard.press("Enter")
    expect(await describeFocus()).toBe("prepare")
    await page.locator("#tab-run").focus()
    await page.keyboard.press(" ")
    expect(await page.locator("#step-run").isVisible()).toBe(true)
    await shot("controller-keyboard.png")

    // Narrow screen: the results fit without a horizontal scrollbar.
    await page.setViewportSize({ width: 390, height: 844 })
    await page.locator("#tab-results").click()
    await skipToVerdict(page, 5_000)
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
    await shot("controller-results-narrow.png", false)
    await page.locator("#tab-configure").click()
    await page.locator("#cfg-request").waitFor({ timeout: 5_000 })
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
    await shot("controller-configure-narrow.png", false)
    expect(consoleErrors).toEqual([])
  }, 30_000)
})
