import { defineConfig } from "vitest/config"

/**
 * Two tiers (docs/testing.md):
 *
 * - `in-process`: behaviour tested inside the test process (pure modules, services over in-memory or
 *   temporary files, the HTTP and RPC handlers in process). Its files share their worker processes
 *   (`isolate: false`): loading Effect and the sources once per worker instead of once per file makes
 *   this tier about 2.5 times faster. A file joins it only if it leaves nothing behind in the process —
 *   no `vi.mock`, no change to `process.env`, no state kept in a shared test-support module.
 * - `isolated`: everything else, each file in a fresh process — the end-to-end tests (real daemons, the
 *   CLI, MCP, Chromium, process groups) and the in-process files that mock modules, change the
 *   environment or keep module state of their own.
 *
 * `expect.poll` waits up to 10 s instead of vitest's 1 s: it returns as soon as its condition holds, and a
 * loaded CI machine once needed more than a second for a page's debounced list call to re-render.
 *
 * Most end-to-end files wait on child processes (the daemon, the CLI, git, the fake codex, Chromium), so
 * three files at a time keep two cores busy. The pool keeps its three workers for the whole run: a worker
 * shared by several files must not be retired between them (vitest ends it while it still holds them).
 */
const NEEDS_ITS_OWN_PROCESS = [
  "test/e2e/**",
  // Mocks node:fs/promises.
  "test/history/resumedFamily.test.ts",
  // Sets process.env for the fake Claude Code.
  "test/review/ClaudeJudge.test.ts"
]

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    expect: { poll: { timeout: 10_000 } },
    pool: "forks",
    maxWorkers: 3,
    minWorkers: 3,
    reporters: ["default"],
    projects: [
      {
        extends: true,
        test: {
          name: "in-process",
          globalSetup: ["test/support/tmpdir.ts"],
          include: ["test/**/*.test.ts"],
          exclude: NEEDS_ITS_OWN_PROCESS,
          isolate: false,
          // Each project has a pool of its own: run one after the other, or six files run at once.
          sequence: { groupOrder: 0 }
        }
      },
      {
        extends: true,
        test: {
          name: "isolated",
          // The browser tests share one Chromium (test/support/chromiumServer.ts).
          globalSetup: ["test/support/tmpdir.ts", "test/support/chromiumServer.ts"],
          include: NEEDS_ITS_OWN_PROCESS.map((glob) => (glob.endsWith(".ts") ? glob : `${glob}/*.test.ts`)),
          sequence: { groupOrder: 1 }
        }
      }
    ]
  }
})
