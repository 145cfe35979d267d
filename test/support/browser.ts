import * as fs from "node:fs/promises"
import { createRequire } from "node:module"
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core"
import { fileURLToPath } from "node:url"
import { inject } from "vitest"
import { CHROMIUM } from "./chromium.js"

export { CHROMIUM, CHROMIUM_ARGS } from "./chromium.js"

/** Screenshots and PDFs the browser tests save (git-ignored). */
export const ARTIFACTS = fileURLToPath(new URL("../../test-artifacts/", import.meta.url))

export const requireChromium = async (what: string) => {
  const installed = await fs.access(CHROMIUM).then(() => true, () => false)
  if (!installed) {
    throw new Error(`Chromium is not installed at ${CHROMIUM}; install it with "apt-get install -y chromium" to run ${what}.`)
  }
}

/**
 * The run's one Chromium (launched by `chromiumServer.ts`), connected to: what a test file makes in it is
 * its own, and its `close()` closes the file's contexts and disconnects, leaving the browser to the others.
 */
export const sharedChromium = async (): Promise<Browser> => {
  const endpoint = inject("chromiumEndpoint")
  if (endpoint === undefined || endpoint === "") {
    if (process.env.CODEX_REPLAY_TEST_BROWSER === "0") throw new Error("CODEX_REPLAY_TEST_BROWSER=0 launched no Chromium for this run.")
    throw new Error(`Chromium is not installed at ${CHROMIUM}; install it with "apt-get install -y chromium" to run the browser tests.`)
  }
  return chromium.connect(endpoint)
}

/**
 * The shared Chromium and a context that collects console errors and page errors into `consoleErrors`;
 * the artifacts folder exists afterwards.
 */
export const launchChromium = async (
  consoleErrors: Array<string>,
  options: { readonly acceptDownloads?: boolean } = {}
): Promise<{ browser: Browser; context: BrowserContext }> => {
  const browser = await sharedChromium()
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: options.acceptDownloads ?? false })
  collectErrors(context, consoleErrors, () => true)
  await fs.mkdir(ARTIFACTS, { recursive: true })
  return { browser, context }
}

/** Pushes the context's page errors, and the console errors `counts` keeps, onto `consoleErrors`. */
const collectErrors = (context: BrowserContext, consoleErrors: Array<string>, counts: (text: string) => boolean) => {
  context.on("console", (message) => {
    if (message.type() === "error" && counts(message.text())) consoleErrors.push(message.text())
  })
  context.on("weberror", (error) => void consoleErrors.push(String(error.error())))
}

const AXE_SOURCE = createRequire(import.meta.url).resolve("axe-core/axe.min.js")

/** axe-core's violations of impact moderate or higher on the page as it is (the context must bypass the page's CSP). */
export const axeViolations = async (page: Page) => {
  await page.evaluate(await fs.readFile(AXE_SOURCE, "utf8"))
  const violations = await page.evaluate(async () => {
    const result = await (window as any).axe.run(document, { resultTypes: ["violations"] })
    return result.violations.map((v: any) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n: any) => n.target.join(" ")).slice(0, 3) }))
  })
  return (violations as Array<{ id: string; impact: string }>).filter((v) => ["moderate", "serious", "critical"].includes(v.impact))
}

/**
 * A context of `browser` with the page's CSP bypassed (so axe-core can be injected) that collects
 * console errors (failed resource loads aside) and page errors into `consoleErrors`.
 */
export const errorCollectingContext = async (
  browser: Browser,
  consoleErrors: Array<string>,
  options: { readonly acceptDownloads?: boolean } = {}
) => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true, acceptDownloads: options.acceptDownloads ?? false })
  collectErrors(context, consoleErrors, (text) => !/Failed to load resource/.test(text))
  return context
}

/**
 * The results of a completed run: skips the offer to judge it blind when the page makes it (a run not
 * yet revealed), then waits for the verdict.
 */
export const skipToVerdict = async (page: Page, timeout: number) => {
  const skip = page.locator("#skip-reveal")
  const verdict = page.locator("#verdict")
  await skip.or(verdict).first().waitFor({ timeout })
  if (await skip.isVisible()) await skip.click()
  await verdict.waitFor({ timeout })
}

/**
 * Picks the packaged samples as the thread source, once the first listing has put its counts beside the
 * two choices: the counts widen the labels, and a click aimed before they appear can land beside the radio.
 */
export const chooseSamples = async (page: Page) => {
  await page.locator("#count-sample").filter({ hasText: /\(\d+\)/ }).waitFor({ timeout: 15_000 })
  await page.check("#source-sample")
}
