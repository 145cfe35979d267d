import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

/**
 * Global setup: every temporary directory of a test run (scratch installs, repositories, run roots,
 * fake codex sessions, browser profiles) goes under one folder that is removed when the run ends, so
 * a contributor who runs the suite often does not collect hundreds of folders in /tmp. The workers
 * and every process they start inherit TMPDIR.
 */
export default function setup() {
  // Each vitest project runs the global setup; the first one makes the folder, the others use it.
  if (process.env.TESTS_TMPDIR_ROOT !== undefined && process.env.TMPDIR === process.env.TESTS_TMPDIR_ROOT) {
    return () => undefined
  }
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "codex-replay-tests-")))
  process.env.TMPDIR = root
  process.env.TESTS_TMPDIR_ROOT = root
  return () => {
    fs.rmSync(root, { recursive: true, force: true, maxRetries: 3 })
  }
}
