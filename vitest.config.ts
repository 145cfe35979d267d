import { defineConfig } from "vitest/config"

/**
 * Most test files wait on child processes (the daemon, the CLI, git, the fake codex, Chromium), so three
 * files at a time keep two cores busy; vitest's default on two cores would be one file at a time.
 */
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/support/tmpdir.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    maxWorkers: 3,
    minWorkers: 1,
    reporters: ["default"]
  }
})
