import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer, Option } from "effect"
import { FileStore } from "../../src/services/FileStore.js"
import { MemoryFileSystemLive } from "../../src/services/platform/memoryFileSystem.js"

const layer = FileStore.DefaultWithoutDependencies.pipe(Layer.provide(MemoryFileSystemLive))

describe("FileStore over the in-memory file system", () => {
  it.layer(layer)((it) => {
    it.effect("writes JSON atomically, reads it back, and leaves no temporary file", () =>
      Effect.gen(function*() {
        const files = yield* FileStore
        yield* files.writeJson("/runs/a/state.json", { count: 1 })
        yield* files.updateJson("/runs/a/state.json", 1024, (current) => Effect.succeed({ count: Number(current.count) + 1 }))
        expect(yield* files.readJson("/runs/a/state.json", 1024)).toEqual({ count: 2 })
        expect(yield* files.listDirectories("/runs")).toEqual(["a"])
        expect(Option.map(yield* files.statOption("/runs/a/state.json"), (identity) => identity.size)).toEqual(Option.some(17))
      }))

    it.effect("creates a file exclusively once, bounds reads and reports missing files", () =>
      Effect.gen(function*() {
        const files = yield* FileStore
        yield* files.ensurePrivateDirectory("/x")
        expect(yield* files.createJsonExclusive("/x/claim.json", { owner: 1 })).toBe(true)
        expect(yield* files.createJsonExclusive("/x/claim.json", { owner: 2 })).toBe(false)
        expect(yield* files.readJson("/x/claim.json", 1024)).toEqual({ owner: 1 })
        const tooLarge = yield* Effect.flip(files.readBounded("/x/claim.json", 4))
        expect(tooLarge.message).toBe("claim.json is too large to read.")
        const missing = yield* Effect.flip(files.readBounded("/x/none.json", 4))
        expect(missing._tag).toBe("NotFound")
        expect(yield* files.readJsonOption("/x/none.json", 10)).toEqual(Option.none())
      }))

    it.effect("appends, reads a tail cut at a line start, and refuses paths outside a root", () =>
      Effect.gen(function*() {
        const files = yield* FileStore
        yield* files.ensurePrivateDirectoryInside("/", "/logs/run")
        yield* files.appendText("/logs/run/run.log", "first line\n")
        yield* files.appendText("/logs/run/run.log", "second\n")
        expect(yield* files.readTail("/logs/run/run.log", 9)).toBe("second\n")
        expect(yield* files.readTail("/logs/run/missing.log", 9)).toBe("")
        const outside = yield* Effect.exit(files.resolveInside("/logs", "..", "etc"))
        expect(Exit.isFailure(outside)).toBe(true)
        expect(yield* files.resolveInside("/logs", "run", "new.txt")).toBe("/logs/run/new.txt")
        yield* files.remove("/logs")
        expect(yield* files.exists("/logs/run/run.log")).toBe(false)
      }))
  })
})
