import { defineConfig } from "vitest/config"

/**
 * Two tiers (docs/testing.md), run one after the other:
 *
 * - `in-process`: behaviour tested inside the test process (pure modules, services over in-memory or
 *   temporary files, the engine under TestClock, the HTTP and RPC handlers in process).
 * - `isolated`: the end-to-end tests (real daemons, the CLI, MCP, Chromium, process groups) and the
 *   files below that need a process of their own.
 *
 * The in-process files share one worker thread and its loaded modules (the threads pool, `isolate: false`,
 * `singleThread`; vitest 3.2 reads those from the root, and the forks pool of the end-to-end files ignores
 * them): 96 files in about 27 s of wall time and 30 s of CPU, against 190 s and 370 s when each file
 * loaded the modules again in a process of its own. One thread, not three: the type-check of `npm test`
 * runs beside it on the other core, and with three threads the pool ended a long file mid-run ("Terminating
 * worker thread", cause not found) in every full run of the tier. `test/support/pristineEffectVitest.ts` gives each file `@effect/vitest`'s own `it` back.
 * A file stays in a process of its own only for a reason given below.
 *
 * `expect.poll` waits up to 10 s instead of vitest's 1 s: it returns as soon as its condition holds, and a
 * loaded CI machine once needed more than a second for a page's debounced list call to re-render.
 *
 * Most end-to-end files wait on child processes (the daemon, the CLI, git, the fake codex, Chromium), so
 * three files at a time keep two cores busy.
 */
/**
 * Every test process, and every process a test starts with the test's environment, keeps local times in UTC: the
 * command line's times are local (`report`'s "at 11:02"), and its in-process tests cannot give one command a
 * time zone of its own as a child's `TZ` does.
 */
process.env.TZ = "UTC"

const NEEDS_ITS_OWN_PROCESS = [
  "test/e2e/**",
  // Mocks node:fs/promises.
  "test/history/resumedFamily.test.ts",
  // Weighs the process's memory before it starts worker threads of its own.
  "test/history/summary.test.ts",
  // Runs commands in Codex's sandbox for about a minute: in the one thread it would hold up every other file.
  "test/checks/checkRunner.test.ts"
]

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    expect: { poll: { timeout: 10_000 } },
    pool: "forks",
    // The in-process project's (see above); the isolated project's forks keep vitest's isolation.
    poolOptions: { threads: { isolate: false, singleThread: true } },
    maxWorkers: 3,
    reporters: ["default"],
    projects: [
      {
        extends: true,
        test: {
          name: "in-process",
          globalSetup: ["test/support/tmpdir.ts"],
          setupFiles: ["test/support/pristineEffectVitest.ts"],
          include: ["test/**/*.test.ts"],
          exclude: NEEDS_ITS_OWN_PROCESS,
          pool: "threads",
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
