import * as fs from "node:fs"
import { chromium } from "playwright-core"
import type { TestProject } from "vitest/node"
import { CHROMIUM, CHROMIUM_ARGS } from "./chromium.js"

declare module "vitest" {
  export interface ProvidedContext {
    /** The shared Chromium's WebSocket address; empty when Chromium is not installed or not wanted. */
    readonly chromiumEndpoint: string
  }
}

/**
 * Global setup of the isolated tier: one headless Chromium for every browser test of the run, which each
 * test file connects to (`sharedChromium`) with contexts of its own, instead of launching one per file.
 * Without Chromium the endpoint is empty and the browser tests fail with how to install it. A run that
 * selects no browser test says so with `CODEX_REPLAY_TEST_BROWSER=0` (`npm run test:node-compat`) and
 * launches none: a launch costs about 2 s of CPU.
 */
export default async function setup(project: TestProject) {
  if (process.env.CODEX_REPLAY_TEST_BROWSER === "0" || !fs.existsSync(CHROMIUM)) {
    project.provide("chromiumEndpoint", "")
    return
  }
  const server = await chromium.launchServer({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS })
  project.provide("chromiumEndpoint", server.wsEndpoint())
  return async () => {
    await server.close()
  }
}
