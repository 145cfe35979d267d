import * as fs from "node:fs/promises"
import { createRequire } from "node:module"
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { inject } from "vitest"
import { CHROMIUM } from "./chromium.js"

export { CHROMIUM, CHROMIUM_ARGS } from "./chromium.js"

/** Screenshots and PDFs the browser tests save (git-ignored). */
export const ARTIFACTS = fileURLToPath(new URL("../../test-artifacts/", import.meta.url))

/**
 * Screenshots of the page as it is at a phone's, a laptop's and a desktop's width (390, 1366 and 1920 px),
 * scrolled to the top: `<name>-<width>.png` in the artifacts folder, the whole page unless `fullPage` is
 * false or `above` names an element (then the page down to that element: a long appendix left out), and
 * each named part on its own (`<name>-<part>-<width>.png`, readable at a glance). The page is back at
 * 1280 × 900 afterwards.
 */
export const shootWidths = async (
  page: Page,
  name: string,
  options: { readonly parts?: Readonly<Record<string, string>>; readonly fullPage?: boolean; readonly above?: string } = {}
) => {
  const parts = Object.entries(options.parts ?? {})
  for (const width of [390, 1366, 1920]) {
    await page.setViewportSize({ width, height: 900 })
    await page.evaluate(() => window.scrollTo(0, 0))
    const clip = options.above === undefined ? {} : {
      clip: await page.locator(options.above).first().evaluate((element) =>
        ({ x: 0, y: 0, width: document.documentElement.scrollWidth, height: element.getBoundingClientRect().top + window.scrollY }))
    }
    await page.screenshot({ path: path.join(ARTIFACTS, `${name}-${width}.png`), fullPage: options.fullPage ?? true, ...clip })
    if (parts.length === 0) continue
    // The controller's sticky step bar would cover the top of a part scrolled under it (a style property, which
    // the page's CSP allows where it refuses a style element).
    const stepBar = (position: string) => page.evaluate((value) => {
      for (const bar of document.querySelectorAll<HTMLElement>(".steps")) bar.style.position = value
    }, position)
    await stepBar("static")
    for (const [part, selector] of parts) {
      await page.locator(selector).first().screenshot({ path: path.join(ARTIFACTS, `${name}-${part}-${width}.png`) })
    }
    await stepBar("")
  }
  await page.setViewportSize({ width: 1280, height: 900 })
}

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
