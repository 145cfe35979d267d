import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { CodexModels } from "../../src/services/CodexModels.js"
import { Samples } from "../../src/services/Samples.js"
import { fakeCodex, historyLayer, scratch, settingsFor } from "./support.js"

/** A `codex` that answers `debug models` after `delayMs`, and counts how often it was asked. */
const slowCodex = (delayMs: number) => {
  const answering = fakeCodex({ models: [{ slug: "gpt-x", display_name: "X", visibility: "list", priority: 1 }] })
  const directory = scratch("slow-codex-")
  const asked = path.join(directory, "asked")
  const file = path.join(directory, "codex")
  fs.writeFileSync(file, `#!/bin/sh\necho x >> '${asked}'\nsleep ${delayMs / 1000}\nexec '${answering}' "$@"\n`, { mode: 0o755 })
  return { file, asked: () => (fs.existsSync(asked) ? fs.readFileSync(asked, "utf8").split("\n").filter(Boolean).length : 0) }
}

describe("caches whose first caller was interrupted", () => {
  it.effect("Samples: a load interrupted half way is loaded again by the next caller", () =>
    Effect.gen(function*() {
      const samples = yield* Samples
      const first = yield* Effect.fork(samples.list())
      yield* Effect.yieldNow()
      yield* Fiber.interrupt(first)
      const listed = yield* samples.list()
      expect(listed.map((sample) => sample.imported_thread_id)).toEqual(["sample-hello-cli", "sample-word-count"])
      expect((yield* samples.find("sample-hello-cli")).manifest.id).toBe("sample-hello-cli")
    }).pipe(Effect.provide(historyLayer(settingsFor(scratch("empty-claude-home-"))))))

  const slow = slowCodex(300)
  it.live("CodexModels: a `debug models` call given up on is asked again, not kept as an interruption", () =>
    Effect.gen(function*() {
      const models = yield* CodexModels
      const gaveUp = yield* Effect.exit(Effect.timeout(models.list(), "100 millis"))
      expect(gaveUp._tag).toBe("Failure")
      const list = yield* models.list()
      expect(list.source).toBe("codex")
      expect(list.options.map((option) => option.id)).toEqual(["gpt-x"])
      expect(slow.asked()).toBe(2)
      // A value, once there, is kept.
      yield* models.list()
      expect(slow.asked()).toBe(2)
    }).pipe(Effect.provide(historyLayer(settingsFor(scratch("empty-claude-home-"), { codexCliPath: slow.file })))))
})
