import * as fs from "node:fs/promises"
import { fileURLToPath } from "node:url"

/** Debian's Chromium, which `.ci/run` installs; the browser tests fail (never skip) without it. */
export const CHROMIUM = "/usr/bin/chromium"

/** Flags for a headless Chromium on a machine with no network but loopback. */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync"
]

/** Screenshots and PDFs the browser tests save (git-ignored). */
export const ARTIFACTS = fileURLToPath(new URL("../../test-artifacts/", import.meta.url))

export const requireChromium = async (what: string) => {
  const installed = await fs.access(CHROMIUM).then(() => true, () => false)
  if (!installed) {
    throw new Error(`Chromium is not installed at ${CHROMIUM}; install it with "apt-get install -y chromium" to run ${what}.`)
  }
}
