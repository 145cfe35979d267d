/**
 * Configure's ways out of a dead end, in Chromium over the real daemon (fake Codex CLI): a thread whose
 * repository moved is pointed at its new place with “Repository folder” (a real Git repository the test
 * moves), a folder without the thread's start gets prepare's one sentence, the “Start from an empty
 * folder” tick box, the Repeats control, and prepare's preflight sentence when Codex is not logged in.
 * Screenshots of Thread and Configure at 390, 1366 and 1920 px.
 */
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { launchChromium, requireChromium, shootWidths } from "../../support/browser.js"
import { type Daemon, killAllDaemons, startDaemon } from "../../support/daemon.js"
import { gitAt, scratch } from "../../runs/support.js"
import { at, CHUNK_TIMES, commitAt, makeChunkProject, writeChunkThread } from "../../runs/chunkThread.js"

const threadId = randomUUID()
let root: string
let home: string
let moved: string
let newer: string
let daemon: Daemon
let loggedOut: Daemon
let browser: Browser
let page: Page
const consoleErrors: Array<string> = []

beforeAll(async () => {
  await requireChromium("the Configure folder test")
  root = scratch("codex-replay-ui-folder-")
  home = scratch("codex-replay-ui-folder-home-")
  const project = makeChunkProject(home, "project")
  commitAt(project.directory, at(CHUNK_TIMES[2], 120_000), { "lib.py": "def one():\n    return 1\n", "notes.txt": "n\n", "two.txt": "two\n", "three.txt": "three\n" }, "claude")
  const recorded = project.directory
  writeChunkThread(path.join(root, "claude"), threadId, recorded)
  writeChunkThread(path.join(root, "logged-out", "claude"), threadId, recorded)
  // The repository moves after the session: the thread still records its old place.
  moved = path.join(home, "moved", "project")
  fs.mkdirSync(path.dirname(moved), { recursive: true })
  fs.renameSync(recorded, moved)
  newer = path.join(home, "newer")
  fs.mkdirSync(newer)
  gitAt(newer, undefined, "init", "--quiet", "--initial-branch", "main")
  commitAt(newer, "2026-06-01T00:00:00.000Z", { "README.md": "later\n" }, "made after the session")
  daemon = await startDaemon({ root })
  loggedOut = await startDaemon({ root: path.join(root, "logged-out"), env: { FAKE_CODEX_LOGIN: "logged_out" } })
  const launched = await launchChromium(consoleErrors)
  browser = launched.browser
  page = await launched.context.newPage()
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await daemon?.stop()
  await loggedOut?.stop()
  await killAllDaemons()
  if (home !== undefined) fs.rmSync(home, { recursive: true, force: true })
  if (root !== undefined) fs.rmSync(root, { recursive: true, force: true })
})

const openThread = async (target: Daemon) => {
  await page.goto(target.launchUrl())
  await page.locator(`.thread-item[data-thread-id="${threadId}"]`).click()
  await page.locator("#cfg-request").waitFor()
}

/** Configure at each width, with the parts a full-page picture of a phone's width shows too small to read. */
const shots = async (name: string) => {
  const parts = { files: "section.sub:has(#changed-files)", approval: "#prepare-actions" }
  await shootWidths(page, `configure-${name}`, (await page.locator("#prepare-actions").count()) > 0 ? { parts } : {})
}

describe("Configure's repository folder, empty folder, repeats and preflight", () => {
  it("points a moved thread at its repository's new place; a folder without the start gets prepare's sentence", async () => {
    await page.goto(daemon.launchUrl())
    await page.locator(`.thread-item[data-thread-id="${threadId}"]`).waitFor()
    expect(await page.locator(`.thread-item[data-thread-id="${threadId}"] .thread-title`).innerText()).not.toBe(threadId)
    await shots("thread")
    await openThread(daemon)
    // The recorded folder is gone: the field is shown at once, under the control's own label.
    expect(await page.locator('label[for="cfg-repository-path"]').innerText()).toBe("Repository folder")
    expect(await page.locator("#cfg-repository-path-hint").innerText()).toContain("is not on this machine")
    await page.fill("#cfg-repository-path", newer)
    await expect.poll(() => page.locator("#prepare").isEnabled(), { timeout: 15_000 }).toBe(true)
    await page.click("#prepare")
    await expect.poll(() => page.locator("#repository-folder-error").textContent(), { timeout: 15_000 })
      .toBe(`The folder ${newer} holds no commit from before the thread started, so it does not contain the thread's start commit: pass --repo PATH or fill “Repository folder” in Configure with the folder that holds the thread's repository now.`)
    expect(await page.locator("#approval-title").count()).toBe(0)
    // The refused prepare is the one failed request.
    expect(consoleErrors).toEqual(["Failed to load resource: the server responded with a status of 400 (Bad Request)"])
    consoleErrors.length = 0

    await page.fill("#cfg-repository-path", moved)
    expect(await page.locator("#repository-folder-error").count()).toBe(0)
    await page.selectOption("#cfg-repeats", "3")
    await expect.poll(async () => (await page.locator("#config-json").textContent()) ?? "").toContain('"repeats": 3')
    expect(await page.locator("#config-json").textContent()).toContain(`"repository_path": "${moved}"`)
    await page.click("#prepare")
    await expect.poll(() => page.locator("#approval-title").textContent(), { timeout: 15_000 }).toBe("Approve the replay")
    expect(await page.locator("#approval-prompt").textContent()).toContain("each model 3 times")
    expect(await page.locator("#approve-start").isEnabled()).toBe(true)
    expect(await page.locator("#preflight").count()).toBe(0)
    await shots("folder")
    expect(consoleErrors).toEqual([])
  }, 60_000)

  it("the “Start from an empty folder” tick box unblocks a replay from an empty folder; repeats go back to 1", async () => {
    await page.click("#edit-config")
    await page.fill("#cfg-repository-path", "")
    await page.selectOption("#cfg-repeats", "1")
    const box = page.locator("label:has(#cfg-confirm-empty)")
    expect((await box.innerText()).trim()).toBe("Start from an empty folder")
    if (await page.locator("#cfg-confirm-files").count()) await page.check("#cfg-confirm-files")
    await expect.poll(() => page.locator("#start-reason").textContent(), { timeout: 15_000 }).toContain("Confirm that the replay starts from an empty directory.")
    expect(await page.locator("#prepare").isDisabled()).toBe(true)
    await page.check("#cfg-confirm-empty")
    await expect.poll(() => page.locator("#prepare").isEnabled(), { timeout: 15_000 }).toBe(true)
    // Claude's files are listed once, under Files, with their tick boxes; the summary refers to that list.
    for (const file of ["lib.py", "notes.txt", "two.txt", "three.txt"]) {
      expect(await page.locator("#configure-body *").evaluateAll((nodes, name) =>
        nodes.filter((node) => node.children.length === 0 && node.closest("details:not([open]) > pre") === null && node.textContent === name).length, file)).toBe(1)
    }
    expect(await page.locator("#changed-files input[type=checkbox]").count()).toBe(4)
    expect(await page.locator("#config-summary").innerText()).toContain("4 files, ticked under Files")
    expect(await page.locator("#configure-body").innerText()).not.toMatch(/\bnull\b/)
    expect(await page.locator("#config-json").textContent()).not.toContain('"repeats"')
    expect(await page.locator("#config-json").textContent()).not.toContain("repository_path")
    await page.click("#prepare")
    await expect.poll(() => page.locator("#approval-title").textContent(), { timeout: 15_000 }).toBe("Approve the replay")
    expect(await page.locator("#approval-prompt").textContent()).not.toContain("times")
    expect(consoleErrors).toEqual([])
  }, 60_000)

  it("says before approval that Codex is not logged in, and keeps Start disabled", async () => {
    await openThread(loggedOut)
    if (await page.locator("#cfg-confirm-files").count()) await page.check("#cfg-confirm-files")
    await page.check("#cfg-confirm-empty")
    await expect.poll(() => page.locator("#prepare").isEnabled(), { timeout: 15_000 }).toBe(true)
    await page.click("#prepare")
    await expect.poll(() => page.locator("#preflight").textContent(), { timeout: 15_000 })
      .toBe("Codex is not logged in: run `codex login` (or set CODEX_API_KEY), then try again.")
    expect(await page.locator("#approval-title").textContent()).toBe("The replay is blocked")
    expect(await page.locator("#approve-start").isDisabled()).toBe(true)
    // The sentence is said once, not again among the blockers.
    expect(await page.locator(".approval").innerText()).not.toMatch(/codex login[\s\S]*codex login/)
    await shots("preflight")
    expect(consoleErrors).toEqual([])
  }, 60_000)
})
