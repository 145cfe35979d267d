/** Where the browser tests find Chromium, and how they start it (no vitest here: the global setup reads it). */

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
