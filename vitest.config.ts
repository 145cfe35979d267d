import { defineConfig } from "vitest/config"

/**
 * Two tiers (docs/testing.md), run one after the other:
 *
 * - `in-process`: behaviour tested inside the test process (pure modules, services over in-memory or
 *   temporary files, the engine under TestClock, the HTTP and RPC handlers in process).
 * - `isolated`: the end-to-end tests (real daemons, the CLI, MCP, Chromium, process groups) and the two
 *   files that mock a module or set the environment.
 *
 * Every file runs in a fresh process: vitest 3.2's forks pool takes its isolation from the root
 * configuration, shared by both projects, so a project's `isolate: false` never let files share one.
 * Sharing them in the threads pool instead (measured: the in-process tier in 60 s instead of 128 s) failed
 * 4 to 20 tests, by order (the process service's, the checks', the engine's retries, the in-memory file
 * system's): those need to stop depending on a process of their own first.
 *
 * `expect.poll` waits up to 10 s instead of vitest's 1 s: it returns as soon as its condition holds, and a
 * loaded CI machine once needed more than a second for a page's debounced list call to re-render.
 *
 * Most end-to-end files wait on child processes (the daemon, the CLI, git, the fake codex, Chromium), so
 * three files at a time keep two cores busy.
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
    reporters: ["default"],
    projects: [
      {
        extends: true,
        test: {
          name: "in-process",
          globalSetup: ["test/support/tmpdir.ts"],
          include: ["test/**/*.test.ts"],
          exclude: NEEDS_ITS_OWN_PROCESS,
          // First, while `npm test`'s type-check runs beside it: the end-to-end files, some with latency bounds, start after.
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
