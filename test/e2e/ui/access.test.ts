/**
 * Getting into the page: the address the controller prints carries its API token, which the browser
 * trades for a cookie; without it the page says how to get in. Real daemon and Debian's Chromium.
 */
import type { Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { chooseSamples, requireChromium, sharedChromium } from "../../support/browser.js"
import { type Daemon, killAllDaemons, startDaemon } from "../../support/daemon.js"

let daemon: Daemon
let browser: Browser
let origin: string

beforeAll(async () => {
  await requireChromium("the page access test")
  daemon = await startDaemon()
  origin = `http://127.0.0.1:${daemon.port}`
  browser = await sharedChromium()
}, 30_000)

afterAll(async () => {
  await browser?.close()
  await daemon?.stop()
  await killAllDaemons()
})

describe("opening the controller in a browser", () => {
  it("the printed address sets an HttpOnly, SameSite=Strict cookie, leaves no token in the address, and the page works", async () => {
    const context = await browser.newContext()
    const pageErrors: Array<string> = []
    context.on("weberror", (error) => void pageErrors.push(String(error.error())))
    const requests: Array<string> = []
    context.on("request", (request) => void requests.push(request.url()))
    try {
      const page = await context.newPage()
      await page.goto(daemon.launchUrl(), { waitUntil: "load" })
      expect(page.url()).toBe(`${origin}/`)
      await page.locator("#controller-status", { hasText: "Ready" }).waitFor({ timeout: 15_000 })
      await chooseSamples(page)
      await page.locator(".thread-item").first().waitFor({ timeout: 15_000 })
      expect(await page.locator(".thread-item").count()).toBeGreaterThan(0)
      const cookies = await context.cookies(origin)
      expect(cookies).toEqual([expect.objectContaining({
        name: `codex_replay_${daemon.port}`,
        value: daemon.apiToken(),
        path: "/",
        httpOnly: true,
        sameSite: "Strict"
      })])
      // The page's script cannot read the token, and it never asked for it again.
      expect(await page.evaluate(() => document.cookie)).toBe("")
      expect(requests.filter((url) => url.includes("token=")).length).toBe(1)
      expect(await page.locator("#notice").isHidden()).toBe(true)
      // A second tab of the same browser needs no token.
      const second = await context.newPage()
      await second.goto(`${origin}/`, { waitUntil: "load" })
      await second.locator("#controller-status", { hasText: "Ready" }).waitFor({ timeout: 15_000 })
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  }, 60_000)

  it("a page opened at / without the cookie, or with a wrong token, says how to get in", async () => {
    const context = await browser.newContext()
    try {
      const page = await context.newPage()
      for (const address of [`${origin}/`, `${origin}/?token=${"0".repeat(64)}`]) {
        const answer = await page.goto(address, { waitUntil: "load" })
        expect(answer?.status()).toBe(401)
        const message = await page.locator("#gate-message").innerText()
        expect(message).toContain("This controller needs its API token.")
        expect(message).toContain("codex-replay open")
        expect(await page.locator("#controller-status").count()).toBe(0)
      }
      expect(await context.cookies(origin)).toEqual([])
    } finally {
      await context.close()
    }
  }, 30_000)

  it("a page whose cookie the controller no longer accepts says how to get in", async () => {
    const context = await browser.newContext()
    try {
      const page = await context.newPage()
      await page.goto(daemon.launchUrl(), { waitUntil: "load" })
      await page.locator("#controller-status", { hasText: "Ready" }).waitFor({ timeout: 15_000 })
      // An earlier controller's token, as after a restart on the same port.
      await context.addCookies([{ name: `codex_replay_${daemon.port}`, value: "0".repeat(64), url: origin, httpOnly: true, sameSite: "Strict" }])
      await page.locator("#source-imported").check()
      await chooseSamples(page)
      await page.locator("#notice", { hasText: "This controller needs its API token" }).waitFor({ timeout: 15_000 })
    } finally {
      await context.close()
    }
  }, 30_000)
})
