import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { RunLog } from "../../src/services/RunLog.js"

describe("RunLog", () => {
  it.live("keeps every line whole when many fibers append at once, without a lock", () =>
    Effect.gen(function*() {
      const directory = fs.mkdtempSync(path.join(os.tmpdir(), "codex-replay-runlog-"))
      const log = yield* RunLog
      // Lines of 64 KiB: far beyond any atomic pipe write, each still one write to the file.
      const lines = Array.from({ length: 64 }, (_, index) => `${String(index).padStart(2, "0")}${"x".repeat(64 * 1024)}`)
      yield* Effect.forEach(lines, (line) => log.append(directory, "test", line), { concurrency: "unbounded", discard: true })
      const written = fs.readFileSync(path.join(directory, "run.log"), "utf8").trimEnd().split("\n")
      expect(written).toHaveLength(64)
      const bodies = written.map((line) => line.replace(/^\S+ \[test\] /, ""))
      expect(bodies.sort()).toEqual([...lines].sort())
      expect(fs.statSync(path.join(directory, "run.log")).mode & 0o777).toBe(0o600)
    }).pipe(Effect.provide(RunLog.Default)))
})
