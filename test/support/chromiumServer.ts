import * as fs from "node:fs"
import { chromium } from "playwright-core"
import type { TestProject } from "vitest/node"
import { CHROMIUM, CHROMIUM_ARGS } from "./chromium.js"

declare module "vitest" {
  export interface ProvidedContext {
    /** The shared Chromium's WebSocket address; empty when Chromium is not installed. */
    readonly chromiumEndpoint: string
  }
}

/**
 * Global setup of the isolated tier: one headless Chromium for every browser test of the run, which each
 * test file connects to (`sharedChromium`) with contexts of its own, instead of launching one per file.
 * Without Chromium the endpoint is empty and the browser tests fail with how to install it.
 */
export default async function setup(project: TestProject) {
  if (!fs.existsSync(CHROMIUM)) {
    project.provide("chromiumEndpoint", "")
    return
  }
  const server = await chromium.launchServer({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS })
  project.provide("chromiumEndpoint", server.wsEndpoint())
  return async () => {
    await server.close()
  }
}
