import { defineConfig } from "vitest/config"

/**
 * `expect.poll` waits up to 10 s instead of vitest's 1 s: it returns as soon as its condition holds, and a
 * loaded CI machine once needed more than a second for a page's debounced list call to re-render.
 *
 * Most test files wait on child processes (the daemon, the CLI, git, the fake codex, Chromium), so three
 * files at a time keep two cores busy; vitest's default on two cores would be one file at a time.
 */
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/support/tmpdir.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    expect: { poll: { timeout: 10_000 } },
    pool: "forks",
    maxWorkers: 3,
    minWorkers: 1,
    reporters: ["default"]
  }
})
