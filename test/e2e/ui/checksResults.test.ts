/**
 * The checks side by side in the page, in Chromium: a completed run whose report has checks shows the
 * sentence and a table (command | at the start | Claude's result | Codex's result) on the Results
 * view, each state's output behind a disclosure, and the sentence in the Runs view; a run whose report
 * was written before checks shows none and nothing breaks. Real daemon over HTTP; the run directories
 * are written as a controller leaves them; axe-core finds no violation of impact moderate or higher.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { renderReportHtml } from "../../../src/domain/report/html.js"
import { buildReport } from "../../../src/domain/report/report.js"
import { sampleChecks } from "../../report/checksFixture.js"
import { sampleInput } from "../../report/fixtures.js"
import { ARTIFACTS, axeViolations, errorCollectingContext, launchChromium, requireChromium } from "../../support/browser.js"
import { type Daemon, killAllDaemons, scratch, startDaemon, writeRun } from "../../support/daemon.js"

const WITH_CHECKS = "run-20261130T100000Z-aaaaaaaaaa"
const OLDER = "run-20261130T090000Z-bbbbbbbbbb"
const OTHER_SESSION = "b".repeat(32)
const SIBLING_SOL = "run-20261129T090000Z-cccccccccc"
const SIBLING_OLD = "run-20261129T090001Z-dddddddddd"

let root: string
let daemon: Daemon
let browser: Browser
let page: Page
const consoleErrors: Array<string> = []

/** A completed run as a controller leaves it: its state, report.json and report.html. */
const seedCompleted = (runRoot: string, runId: string, withChecks: boolean, startedAt: string, extra: Record<string, unknown> = {}) => {
  const checks = sampleChecks()
  const input = sampleInput()
  const model = typeof extra.model === "string" ? extra.model : input.codex.model
  const built = buildReport({ ...input, codex: { ...input.codex, model }, run_id: runId, ...(withChecks ? { checks } : {}) })
  // A report written before the checks ran has no `checks` key at all.
  const { checks: _none, ...older } = built
  const report = withChecks ? built : older
  const directory = writeRun(runRoot, runId, {
    controller_session_id: OTHER_SESSION,
    thread_id: "c45af7b1-thread",
    model: "gpt-5.6-terra",
    models: ["gpt-5.6-terra"],
    ...extra,
    status: "completed",
    phase: "reporting",
    phases: [{ id: "reporting", label: "Writing the report", status: "complete" }],
    started_at: startedAt,
    updated_at: startedAt,
    completed_at: startedAt,
    report_html: path.join(runRoot, runId, "report.html"),
    report_json: path.join(runRoot, runId, "report.json"),
    report_summary: {
      winner: built.winner,
      evaluation: null,
      possible_leak: false,
      ...(withChecks ? { checks: { sentence: checks.sentence, edge: checks.edge, tally: checks.tally } } : {})
    }
  })
  fs.writeFileSync(path.join(directory, "report.json"), JSON.stringify(report, null, 2))
  fs.writeFileSync(path.join(directory, "report.html"), renderReportHtml(built))
}

beforeAll(async () => {
  await requireChromium("the checks results UI test")
  root = scratch("codex-replay-ui-checks-results-")
  const runRoot = path.join(root, "runs")
  seedCompleted(runRoot, WITH_CHECKS, true, "2026-11-30T10:00:00.000Z")
  seedCompleted(runRoot, OLDER, false, "2026-11-30T09:00:00.000Z")
  // Two models of one start (one prepare token): the Results view puts them side by side.
  const start = { models: ["gpt-5.6-sol", "gpt-5.5"], prepare_token_hash: "f".repeat(64) }
  seedCompleted(runRoot, SIBLING_SOL, true, "2026-11-29T09:00:00.000Z", { ...start, model: "gpt-5.6-sol" })
  seedCompleted(runRoot, SIBLING_OLD, false, "2026-11-29T09:00:01.000Z", { ...start, model: "gpt-5.5" })
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

describe("the checks in the page", () => {
  it("the Runs view gives the sentence under the verdict of a run with checks, and nothing under one without", async () => {
    await page.goto(daemon.launchUrl(), { waitUntil: "load" })
    await expect.poll(() => page.locator("#controller-status").textContent(), { timeout: 15_000 }).toMatch(/^Ready/)
    await page.click("#tab-runs")
    const row = page.locator(`#runs-rows tr[data-run-id="${WITH_CHECKS}"]`)
    await expect.poll(() => row.locator(".checks-sentence-small").textContent(), { timeout: 15_000 }).toBe(
      "checks: Codex 3 of 3, Claude 1 of 2; Codex fixed `npm test`, which Claude's result still failed; `npm run lint\\u{1b}[2J` (in packages/web) could not run on every side (not counted)."
    )
    expect(await page.locator(`#runs-rows tr[data-run-id="${OLDER}"] .checks-sentence-small`).count()).toBe(0)
    expect(await axeViolations(page)).toEqual([])
  }, 60_000)

  it("the Results view gives the sentence and a row per check on the three states, the output behind a disclosure, everything as text", async () => {
    await page.click(`#runs-rows tr[data-run-id="${WITH_CHECKS}"] button`)
    await page.locator("#checks-sentence").waitFor({ timeout: 15_000 })
    expect(await page.locator("#checks-sentence").textContent()).toContain("Codex fixed `npm test`, which Claude's result still failed")
    const table = page.locator("#checks-table")
    expect(await table.locator("thead th").allTextContents()).toEqual(["Command", "At the start", "Claude's result", "Codex's result"])
    const rows = await table.locator("tbody tr").evaluateAll((trs) => trs.map((tr) => [...tr.children].map((cell) => (cell as HTMLElement).innerText.replace(/\s+/g, " ").trim())))
    expect(rows).toEqual([
      ["npm test", "failed", "failed (exit 1) still failing", "passed (exit 0) fixed"],
      [`node --test "<b>x</b>" && echo '<script>1</script>'`, "passed", "passed (exit 0) kept", "passed (exit 0) kept"],
      ["npm run lint\\u{1b}[2J (in packages/web)", "passed", "could not run not comparable — not counted npx is not installed here.", "passed (exit 0) kept"]
    ])
    // Laid out as a table: each outcome a cell of its row, side by side.
    expect(new Set(await table.locator("tbody td").evaluateAll((tds) => tds.map((td) => getComputedStyle(td).display)))).toEqual(new Set(["table-cell"]))
    // The hostile command is text, never markup.
    expect(await table.locator("b, script").count()).toBe(0)
    expect(await page.locator(".check-state summary").allTextContents()).toEqual([
      "At the start: output of each command",
      "Claude's result: output of each command",
      "Codex's result: output of each command"
    ])
    await page.locator(".check-state summary").nth(2).click()
    expect(await page.locator(".check-state").nth(2).locator("pre").first().textContent()).toBe("codex: added 12 packages")
    expect(await page.locator(".check-state").nth(2).locator("pre").nth(1).isVisible()).toBe(true)
    expect(await page.locator("#results-body").innerText()).toContain("within 300 s; set-up first: npm ci.")
    fs.mkdirSync(ARTIFACTS, { recursive: true })
    await page.screenshot({ path: path.join(ARTIFACTS, "controller-checks-results.png"), fullPage: true })
    await page.locator("section.sub:has(#checks-sentence)").screenshot({ path: path.join(ARTIFACTS, "controller-checks-section.png") })
    expect(await axeViolations(page)).toEqual([])
  }, 60_000)

  it("a report written before the checks shows no Checks section and the rest of the results", async () => {
    await page.click("#tab-runs")
    await page.locator(`#runs-rows tr[data-run-id="${OLDER}"] button`).click()
    await expect.poll(() => page.locator("#results-body .muted.mono").first().textContent(), { timeout: 15_000 }).toContain(OLDER)
    expect(await page.locator("#verdict").textContent()).not.toBe("")
    expect(await page.locator("#checks-sentence").count()).toBe(0)
    expect(consoleErrors).toEqual([])
  }, 60_000)

  it("every model of a start beside Claude: each result's checks passed of those that ran, and how it compares", async () => {
    await page.click("#tab-runs")
    await page.locator(`#runs-rows tr[data-run-id="${SIBLING_SOL}"] button`).click()
    const table = page.locator(".side-table")
    await table.waitFor({ timeout: 15_000 })
    const headers = await table.locator("thead th").allTextContents()
    const column = headers.indexOf("Checks")
    expect(column).toBeGreaterThan(0)
    const cells = await table.locator("tbody tr").evaluateAll((trs, index) =>
      trs.map((tr) => [tr.children[0], tr.children[index]].map((cell) => (cell as HTMLElement).innerText.replace(/\s+/g, " ").trim()).join(": ")), column)
    // The report without checks (written before them) says nothing; Claude's tally is the start's, shared.
    expect(cells.slice(0, 2).sort()).toEqual(["gpt-5.5: —", "gpt-5.6-sol: 3 of 3 better than Claude"])
    expect(cells[2]).toMatch(/^Historical Claude .*: 1 of 2$/)
    expect(await axeViolations(page)).toEqual([])
  }, 60_000)

  it("a portfolio of both gives the checks figures beside the judge's, counting only the run with checks", async () => {
    await page.click("#tab-runs")
    for (const runId of [WITH_CHECKS, OLDER]) await page.check(`tr[data-run-id="${runId}"] input.compare-run`)
    await page.click("#portfolio-compare")
    await page.locator("#portfolio-summary").waitFor({ timeout: 15_000 })
    expect(await page.locator("#portfolio-models li").allTextContents()).toEqual([
      "gpt-5.6-terra: Claude leads: Codex won 0, tied 0 and lost 2 of 2 runs; not significant at 5% (p = 0.500)."
    ])
    expect(await page.locator("#portfolio-checks li").allTextContents()).toEqual([
      "gpt-5.6-terra: Checks ran in 1 of 2 run(s); runs without checks are not counted in these figures; Codex keeps every check Claude's result passed: 1 of 1 (100%, 95% Wilson interval 21%–100%); Codex strictly better on checks: 1 of 1 (100%, 95% Wilson interval 21%–100%); Codex strictly worse on checks: 0 of 1 (0%, 95% Wilson interval 0%–79%)."
    ])
    expect(consoleErrors).toEqual([])
  }, 60_000)
})
