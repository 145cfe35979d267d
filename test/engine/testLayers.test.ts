import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Option } from "effect"
import { FileStore } from "../../src/services/FileStore.js"
import { Workspace } from "../../src/services/Workspace.js"
import { MemoryFiles, memoryWorkspaces } from "../support/testLayers.js"

describe("test layers", () => {
  it.effect("a fake fails loudly, naming the service and the member, when a test reaches what it does not implement", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(
        Effect.flatMap(Workspace, (workspace) => workspace.inspectRepository("/repo", ["HEAD"])).pipe(
          Effect.provide(memoryWorkspaces(new MemoryFiles()))
        )
      )
      expect(Exit.isFailure(exit)).toBe(true)
      const defect = Exit.isFailure(exit) ? Option.getOrUndefined(Cause.dieOption(exit.cause)) : undefined
      expect(String(defect)).toContain("codex-replay/Workspace.inspectRepository is not implemented by this test layer.")
    }))

  it.effect("the in-memory FileStore answers like the disk: missing files, bounded reads, JSON, containment", () =>
    Effect.gen(function*() {
      const memory = new MemoryFiles()
      yield* Effect.gen(function*() {
        const files = yield* FileStore
        expect(yield* files.readJsonOption("/runs/a/state.json", 100)).toEqual(Option.none())
        expect((yield* Effect.flip(files.readJson("/runs/a/state.json", 100))).message).toMatch(/^Cannot read state\.json: ENOENT/)
        yield* files.writeJson("/runs/a/state.json", { status: "running" })
        expect(yield* files.isDirectory("/runs/a")).toBe(true)
        expect(yield* files.readJson("/runs/a/state.json", 100)).toEqual({ status: "running" })
        expect((yield* Effect.flip(files.readJson("/runs/a/state.json", 5))).message).toBe("state.json is too large to read.")
        yield* files.writeTextAtomic("/runs/a/list.json", "[1]")
        expect((yield* Effect.flip(files.readJson("/runs/a/list.json", 100))).message).toBe("list.json does not contain an object.")
        expect((yield* Effect.flip(files.resolveInside("/runs", "../etc"))).message).toBe("The requested path is outside its root.")
        expect((yield* Effect.flip(files.appendText("/nowhere/run.log", "line\n")))._tag).toBe("StorageError")
        yield* files.appendText("/runs/a/run.log", "one\n")
        yield* files.appendText("/runs/a/run.log", "two\n")
        expect(yield* files.readTail("/runs/a/run.log", 5)).toBe("two\n")
        expect(yield* files.createJsonExclusive("/runs/a/state.json", {})).toBe(false)
        expect(yield* files.listDirectories("/runs")).toEqual(["a"])
        yield* files.remove("/runs/a")
        expect(yield* files.exists("/runs/a/state.json")).toBe(false)
      }).pipe(Effect.provide(memory.layer))
    }))
})
