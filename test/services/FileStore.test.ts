import { it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { expect } from "vitest"
import { FileStore } from "../../src/services/FileStore.js"

const scratch = () => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "filestore-")))

it.effect("writes JSON atomically as a private file and leaves no temporary file", () =>
  Effect.gen(function*() {
    const files = yield* FileStore
    const directory = scratch()
    const file = path.join(directory, "nested", "state.json")
    yield* files.writeJson(file, { a: 1 })
    yield* files.writeJson(file, { a: 2 })
    expect(JSON.parse(fs.readFileSync(file, "utf8"))).toEqual({ a: 2 })
    expect(fs.statSync(file).mode & 0o777).toBe(0o600)
    expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700)
    expect(fs.readdirSync(path.dirname(file))).toEqual(["state.json"])
  }).pipe(Effect.provide(FileStore.Default)))

it.effect("serialises concurrent read-modify-write cycles on one file", () =>
  Effect.gen(function*() {
    const files = yield* FileStore
    const file = path.join(scratch(), "counter.json")
    yield* files.writeJson(file, { count: 0 })
    yield* Effect.forEach(Array.from({ length: 50 }), () =>
      files.updateJson(file, 1024, (current) => Effect.succeed({ count: Number(current.count) + 1 })), { concurrency: "unbounded" })
    expect(JSON.parse(fs.readFileSync(file, "utf8")).count).toBe(50)
  }).pipe(Effect.provide(FileStore.Default)))

it.effect("creates a file exclusively once", () =>
  Effect.gen(function*() {
    const files = yield* FileStore
    const file = path.join(scratch(), "attempt.json")
    const results = yield* Effect.forEach([1, 2, 3], (n) => files.createJsonExclusive(file, { n }), { concurrency: "unbounded" })
    expect(results.filter(Boolean)).toHaveLength(1)
    expect(fs.statSync(file).mode & 0o777).toBe(0o600)
    expect(fs.readdirSync(path.dirname(file))).toEqual(["attempt.json"])
  }).pipe(Effect.provide(FileStore.Default)))

it.effect("refuses reads over the size bound and non-object JSON with clear messages", () =>
  Effect.gen(function*() {
    const files = yield* FileStore
    const directory = scratch()
    fs.writeFileSync(path.join(directory, "big.json"), JSON.stringify({ x: "y".repeat(2000) }))
    fs.writeFileSync(path.join(directory, "list.json"), "[1,2]")
    fs.writeFileSync(path.join(directory, "torn.json"), "{\"a\":")
    expect((yield* Effect.flip(files.readJson(path.join(directory, "big.json"), 100))).message).toBe("big.json is too large to read.")
    expect((yield* Effect.flip(files.readJson(path.join(directory, "list.json"), 100))).message).toBe("list.json does not contain an object.")
    expect((yield* Effect.flip(files.readJson(path.join(directory, "torn.json"), 100))).message).toBe("torn.json does not contain valid JSON.")
    expect((yield* files.readJsonOption(path.join(directory, "missing.json"), 100))._tag).toBe("None")
    // The controller's own files: a damaged one is the machine's failure (500), not the caller's.
    for (const name of ["big.json", "list.json", "torn.json"]) {
      expect((yield* Effect.flip(files.readJson(path.join(directory, name), 100)))._tag).toBe("UnreadableFile")
    }
  }).pipe(Effect.provide(FileStore.Default)))

it.effect("keeps paths inside their root, lexically and through symlinks", () =>
  Effect.gen(function*() {
    const files = yield* FileStore
    const root = scratch()
    const outside = scratch()
    fs.mkdirSync(path.join(root, "inside"))
    fs.symlinkSync(outside, path.join(root, "escape"))
    fs.symlinkSync(path.join(root, "inside"), path.join(root, "alias"))
    expect(yield* files.resolveInside(root, "inside")).toBe(path.join(root, "inside"))
    expect(yield* files.resolveInside(root, "alias")).toBe(path.join(root, "alias"))
    expect(yield* files.resolveInside(root, "not-yet", "file.json")).toBe(path.join(root, "not-yet", "file.json"))
    for (const segments of [[".."], ["../x"], ["inside", "..", ".."], ["/etc/passwd"], ["escape"], ["escape", "new.json"]]) {
      const error = yield* Effect.flip(files.resolveInside(root, ...segments))
      expect(error.message, segments.join("/")).toBe("The requested path is outside its root.")
    }
  }).pipe(Effect.provide(FileStore.Default)))

it.effect("reads the tail of a log at a line start", () =>
  Effect.gen(function*() {
    const files = yield* FileStore
    const file = path.join(scratch(), "run.log")
    fs.writeFileSync(file, "first line\nsecond line\nthird line\n")
    expect(yield* files.readTail(file, 20)).toBe("third line\n")
    expect(yield* files.readTail(file, 1000)).toBe("first line\nsecond line\nthird line\n")
    expect(yield* files.readTail(path.join(path.dirname(file), "none.log"), 10)).toBe("")
  }).pipe(Effect.provide(FileStore.Default)))

it.effect("a path that cannot be looked at is a StorageError, not 'absent'; a missing one is absent", () =>
  Effect.gen(function*() {
    const files = yield* FileStore
    const directory = scratch()
    const loop = path.join(directory, "loop")
    fs.symlinkSync(loop, loop)
    expect(yield* files.exists(path.join(directory, "missing"))).toBe(false)
    expect(yield* files.isDirectory(path.join(directory, "missing"))).toBe(false)
    expect(yield* files.listDirectories(path.join(directory, "missing"))).toEqual([])
    for (const failed of [Effect.asVoid(files.exists(path.join(loop, "x"))), Effect.asVoid(files.isDirectory(loop)), Effect.asVoid(files.listDirectories(loop))]) {
      const error = yield* Effect.flip(failed)
      expect(error._tag).toBe("StorageError")
      expect(error.message).toMatch(/ELOOP/)
    }
  }).pipe(Effect.provide(FileStore.Default)))
