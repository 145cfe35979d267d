/**
 * The Run and Results views in Chromium, on runs written as a controller leaves them: Results of a repeat
 * shows the k outcomes of its (thread, model) start with each run's address and the start's runs grouped
 * per model; a failed run says what to do from its error code and shows no phase still running; each diff
 * file scrolls on its own and the every-model table's Details column is reachable at 1366 px. Screenshots
 * of both views at 390, 1366 and 1920 px go to test-artifacts/. Real daemon over HTTP.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { renderReportHtml } from "../../../src/domain/report/html.js"
import { buildReport } from "../../../src/domain/report/report.js"
import { codexSide, sampleInput } from "../../report/fixtures.js"
import { ARTIFACTS, axeViolations, errorCollectingContext, launchChromium, requireChromium, shootWidths, skipToVerdict } from "../../support/browser.js"
import { type Daemon, killAllDaemons, scratch, startDaemon, writeRun } from "../../support/daemon.js"

const SESSION = "b".repeat(32)
const REPEATS = ["run-20261201T100000Z-aaaaaaaaaa", "run-20261201T100001Z-bbbbbbbbbb", "run-20261201T100002Z-cccccccccc"]
const OTHER_MODEL = "run-20261201T100003Z-dddddddddd"
const FAILED = "run-20261201T110000Z-eeeeeeeeee"
/** Another thread approved with the same start (a batch, as earlier controllers grouped it): never beside this thread's runs. */
const OTHER_THREAD = "run-20261201T100004Z-ffffffffff"
const START = { prepare_token_hash: "e".repeat(64), thread_id: "c45af7b1-thread" }

/** A patch of three files, one of them with lines far wider than any window. */
const longPatch = () => {
  const wide = (n: number) => `+const line${n} = "${"wide text ".repeat(40)}"`
  const file = (name: string, lines: number) => [
    `diff --git a/${name} b/${name}`,
    "index 1111111..2222222 100644",
    `--- a/${name}`,
    `+++ b/${name}`,
    `@@ -1,1 +1,${lines} @@`,
    ...Array.from({ length: lines }, (_, n) => wide(n))
  ]
  return [...file("src/wide.ts", 60), ...file("src/other.ts", 5), ...file("README.md", 3), ""].join("\n")
}

/** Where the task came from: the user's one prompt, as a report keeps it. */
const TASK_SOURCE = {
  messages: [{ kind: "prompt" as const, text: "Add c to app.ts <b>now</b>", asked: null, uuid: null, timestamp: null }],
  overlap: { share: 0.8, prompt_words: 5, shared_words: 4, threshold: 0.5, coverage: 0.9, min_coverage: 0.3, flagged: false, unsupported_words: [] }
}

let root: string
let daemon: Daemon
let browser: Browser
let page: Page
const consoleErrors: Array<string> = []

const seedCompleted = (runRoot: string, runId: string, model: string, startedAt: string, repeat?: { readonly index: number }, threadId = START.thread_id) => {
  const input = sampleInput()
  const built = buildReport({ ...input, codex: { ...codexSide, model, patch: longPatch() }, run_id: runId, thread_id: threadId, task_source: TASK_SOURCE })
  const directory = writeRun(runRoot, runId, {
    controller_session_id: SESSION,
    ...START,
    thread_id: threadId,
    model,
    models: [model],
    status: "completed",
    // A finished run whose state stopped mid-phase must not show that phase as still running.
    phase: "reporting",
    phases: [{ id: "implementing", label: "Codex implements", status: "complete" }, { id: "reporting", label: "Writing the report", status: "running" }],
    started_at: startedAt,
    updated_at: startedAt,
    completed_at: startedAt,
    report_html: path.join(runRoot, runId, "report.html"),
    report_json: path.join(runRoot, runId, "report.json"),
    report_summary: { winner: built.winner, evaluation: null, possible_leak: false },
    ...(repeat === undefined ? {} : { repeat: { index: repeat.index, of: 3, group: "group-sol" } })
  })
  fs.writeFileSync(path.join(directory, "report.json"), JSON.stringify(built, null, 2))
  fs.writeFileSync(path.join(directory, "report.html"), renderReportHtml(built))
}

beforeAll(async () => {
  await requireChromium("the Run and Results UI test")
  root = scratch("codex-replay-ui-run-results-")
  const runRoot = path.join(root, "runs")
  REPEATS.forEach((runId, index) => seedCompleted(runRoot, runId, "gpt-5.6-sol", `2026-12-01T10:00:0${index}.000Z`, { index: index + 1 }))
  seedCompleted(runRoot, OTHER_MODEL, "gpt-5.5", "2026-12-01T10:00:03.000Z")
  seedCompleted(runRoot, OTHER_THREAD, "gpt-5.4", "2026-12-01T10:00:04.000Z", undefined, "other-thread")
  writeRun(runRoot, FAILED, {
    controller_session_id: SESSION,
    ...START,
    prepare_token_hash: "f".repeat(64),
    model: "gpt-5.6-sol",
    models: ["gpt-5.6-sol"],
    status: "failed",
    phase: "implementing",
    phases: [{ id: "implementing", label: "Codex implements", status: "running" }, { id: "reviewing", label: "Blind review", status: "waiting" }],
    started_at: "2026-12-01T11:00:00.000Z",
    updated_at: "2026-12-01T11:01:00.000Z",
    completed_at: "2026-12-01T11:01:00.000Z",
    error: "Codex stopped: exceeded retry limit, last status: 429 Too Many Requests.",
    failure_diagnostic: { worker_code: "rate_limited", worker_stage: "turn", retryable: true, retry_count: 2, controller_code: "none" }
  })
  daemon = await startDaemon({ root })
  browser = (await launchChromium(consoleErrors)).browser
  page = await (await errorCollectingContext(browser, consoleErrors)).newPage()
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await daemon?.stop()
  await killAllDaemons()
  if (root !== undefined) fs.rmSync(root, { recursive: true, force: true })
})

const origin = () => `http://127.0.0.1:${daemon.port}`

describe("the Run and Results views", () => {
  it("a failed run says what to do from its error code, and shows no phase still running", async () => {
    await page.goto(daemon.launchUrl(), { waitUntil: "load" })
    await expect.poll(() => page.locator("#controller-status").textContent(), { timeout: 15_000 }).toMatch(/^Ready/)
    await page.goto(`${origin()}/runs/${FAILED}`, { waitUntil: "load" })
    const card = page.locator(`article.run[data-run-id="${FAILED}"]`)
    await card.waitFor({ timeout: 15_000 })
    expect(await card.locator(`[data-advice="${FAILED}"]`).textContent()).toBe(
      "What to do: The model service was busy or limited the rate of requests: wait a few minutes, then replay it again."
    )
    expect(await card.locator(".phase-status").allTextContents()).toEqual(["failed", "skipped"])
    expect(await card.locator("[data-since]").count()).toBe(0)
    fs.mkdirSync(ARTIFACTS, { recursive: true })
    await shootWidths(page, "controller-run-failed")
    expect(await axeViolations(page)).toEqual([])
  }, 60_000)

  it("Results of a repeat shows the k outcomes, each with its address, and the start's runs grouped per model", async () => {
    await page.goto(`${origin()}/runs`, { waitUntil: "load" })
    await page.locator(`#runs-rows tr[data-run-id="${REPEATS[1]}"] button`).click()
    await skipToVerdict(page, 15_000)
    const repeats = page.locator("ol.repeats li")
    await expect.poll(() => repeats.count(), { timeout: 15_000 }).toBe(3)
    expect(await repeats.locator("a").evaluateAll((links) => links.map((link) => link.getAttribute("href")))).toEqual(REPEATS.map((id) => `/runs/${id}`))
    expect(await repeats.allTextContents()).toEqual([1, 2, 3].map((n) => expect.stringMatching(new RegExp(`^Repeat ${n}: `))))
    expect(await page.locator("#repeats-heading").textContent()).toBe("Repeats")
    // Every model of the start beside Claude: gpt-5.5 once, gpt-5.6-sol's three repeats one under the other.
    const models = await page.locator(".side-table tbody tr:not(.claude-row) th").allTextContents()
    expect(models).toEqual(["gpt-5.5", "gpt-5.6-sol · repeat 1 of 3", "gpt-5.6-sol · repeat 2 of 3", "gpt-5.6-sol · repeat 3 of 3"])
    // Where the task came from, as report.html says it: the user's message as text.
    expect(await page.locator("#task-source-heading").textContent()).toBe("Where the task came from")
    expect(await page.locator("ol.task-source pre").first().textContent()).toBe("Add c to app.ts <b>now</b>")
    // Another thread's run of the same start is not beside them, nor among the models to open.
    expect(await page.locator(`.side-table tr[data-run-id="${OTHER_THREAD}"]`).count()).toBe(0)
    expect(await page.locator(".run-switch button").allTextContents()).toEqual(["gpt-5.5", "gpt-5.6-sol (repeat 1)", "gpt-5.6-sol (repeat 2)", "gpt-5.6-sol (repeat 3)"])
    expect(await axeViolations(page)).toEqual([])
  }, 60_000)

  it("at 1366 px each diff file scrolls on its own and the Details column is within the window or its own scroller", async () => {
    await page.setViewportSize({ width: 1366, height: 900 })
    const clipped = await page.evaluate(() => {
      const width = window.innerWidth
      const problems: Array<string> = []
      for (const pre of document.querySelectorAll<HTMLElement>("#results-body pre.diff-view")) {
        const right = pre.getBoundingClientRect().right
        if (right > width + 1) problems.push(`${pre.getAttribute("aria-label")} ends at ${right} px`)
      }
      const details = [...document.querySelectorAll<HTMLElement>(".side-table thead th")].find((th) => th.textContent === "Details")
      if (details === undefined) problems.push("no Details column")
      else {
        const scroller = details.closest<HTMLElement>(".table-scroll")
        const inside = details.getBoundingClientRect().right <= width + 1
        const ownScroller = scroller !== null && scroller.getBoundingClientRect().right <= width + 1 && scroller.scrollWidth > scroller.clientWidth
        if (!inside && !ownScroller) problems.push("the Details column is clipped")
      }
      return problems
    })
    expect(clipped).toEqual([])
    const wide = page.locator('#results-body pre.diff-view[aria-label="Diff of src/wide.ts"]').first()
    const scrolls = await wide.evaluate((pre) => ({ sideways: pre.scrollWidth > pre.clientWidth, overflow: getComputedStyle(pre).overflowX }))
    expect(scrolls).toEqual({ sideways: true, overflow: "auto" })
    // Scrolling one file leaves the page and the other files where they were.
    await wide.evaluate((pre) => pre.scrollBy({ left: 400 }))
    expect(await wide.evaluate((pre) => pre.scrollLeft)).toBeGreaterThan(0)
    expect(await page.evaluate(() => window.scrollX)).toBe(0)
    expect(await page.locator('#results-body pre.diff-view[aria-label="Diff of src/other.ts"]').first().evaluate((pre) => pre.scrollLeft)).toBe(0)
    await shootWidths(page, "controller-results-long-diff", { parts: { table: "section.sub:has(.side-table)", verdict: "#results-body .verdict", patches: "section.sub:has(.diff-files)" } })
    expect(consoleErrors).toEqual([])
  }, 60_000)
})
