import { it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { expect } from "vitest"
import { RUN_TAG_VARIABLE } from "../../../src/domain/product.js"
import { pidsWithEnvironment } from "../../../src/services/platform/procfs.js"
import { ProcessRunner } from "../../../src/services/ProcessRunner.js"

const scratch = () => fs.mkdtempSync(path.join(os.tmpdir(), "runner-"))
const tag = () => `test-${randomBytes(8).toString("hex")}`
const realSleep = (ms: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, ms)))

const node = (script: string) => ({ command: process.execPath, args: ["-e", script] })

it.live("streams stdout and stderr lines in order while the child runs and reports the exit code", () =>
  Effect.gen(function*() {
    const runner = yield* ProcessRunner
    const seen: string[] = []
    const exit = yield* runner.run({
      ...node(`console.log("one"); console.error("two"); console.log("three"); process.exit(3)`),
      onLine: (stream, line) => Effect.sync(() => void seen.push(`${stream}:${line}`))
    })
    expect(exit.exitCode).toBe(3)
    expect(seen.filter((line) => line.startsWith("stdout"))).toEqual(["stdout:one", "stdout:three"])
    expect(seen).toContain("stderr:two")
  }).pipe(Effect.provide(ProcessRunner.Default)))

it.live("passes stdin to the child as data", () =>
  Effect.gen(function*() {
    const runner = yield* ProcessRunner
    const seen: string[] = []
    yield* runner.run({
      ...node(`process.stdin.on("data", (d) => process.stdout.write(d.toString().toUpperCase()))`),
      stdin: "hello $(rm -rf /)\n",
      onLine: (_, line) => Effect.sync(() => void seen.push(line))
    })
    expect(seen).toEqual(["HELLO $(RM -RF /)"])
  }).pipe(Effect.provide(ProcessRunner.Default)))

it.live("a command that does not exist fails with a clear message", () =>
  Effect.gen(function*() {
    const runner = yield* ProcessRunner
    const error = yield* Effect.flip(runner.run({ command: "/nonexistent/codex-replay-missing", args: [] }))
    expect(error.message).toMatch(/Cannot start \/nonexistent\/codex-replay-missing/)
  }).pipe(Effect.provide(ProcessRunner.Default)))

it.live("interruption ends the child and a grandchild before the marker is written", () =>
  Effect.gen(function*() {
    const runner = yield* ProcessRunner
    const directory = scratch()
    const marker = path.join(directory, "marker")
    const runTag = tag()
    const grandchild = `setTimeout(() => require("fs").writeFileSync(${JSON.stringify(marker)}, "late"), 1500)`
    const script = `
      const { spawn } = require("child_process")
      spawn(process.execPath, ["-e", ${JSON.stringify(grandchild)}], { stdio: "ignore" })
      console.log("ready")
      setInterval(() => {}, 1000)
    `
    let ready = false
    const fiber = yield* Effect.fork(
      runner.run({ ...node(script), tag: runTag, onLine: () => Effect.sync(() => void (ready = true)) })
    )
    while (!ready) yield* realSleep(20)
    expect((yield* Effect.promise(() => pidsWithEnvironment(RUN_TAG_VARIABLE, runTag))).length).toBe(2)
    yield* Fiber.interrupt(fiber)
    expect(yield* Effect.promise(() => pidsWithEnvironment(RUN_TAG_VARIABLE, runTag))).toEqual([])
    yield* realSleep(2000)
    expect(fs.existsSync(marker)).toBe(false)
  }).pipe(Effect.provide(ProcessRunner.Default)), 15_000)

it.live("a grandchild in its own session is swept by its tag", () =>
  Effect.gen(function*() {
    const runner = yield* ProcessRunner
    const directory = scratch()
    const marker = path.join(directory, "marker")
    const runTag = tag()
    const grandchild = `setTimeout(() => require("fs").writeFileSync(${JSON.stringify(marker)}, "late"), 1500)`
    const script = `
      const { spawn } = require("child_process")
      spawn(process.execPath, ["-e", ${JSON.stringify(grandchild)}], { stdio: "ignore", detached: true }).unref()
      console.log("ready")
      setInterval(() => {}, 1000)
    `
    let ready = false
    const fiber = yield* Effect.fork(
      runner.run({ ...node(script), tag: runTag, onLine: () => Effect.sync(() => void (ready = true)) })
    )
    while (!ready) yield* realSleep(20)
    yield* Fiber.interrupt(fiber)
    expect(yield* Effect.promise(() => pidsWithEnvironment(RUN_TAG_VARIABLE, runTag))).toEqual([])
    yield* realSleep(2000)
    expect(fs.existsSync(marker)).toBe(false)
  }).pipe(Effect.provide(ProcessRunner.Default)), 15_000)

it.live("a child that ignores SIGTERM is killed after the grace period", () =>
  Effect.gen(function*() {
    const runner = yield* ProcessRunner
    const runTag = tag()
    const script = `process.on("SIGTERM", () => {}); console.log("ready"); setInterval(() => {}, 1000)`
    let ready = false
    const fiber = yield* Effect.fork(
      runner.run({ ...node(script), tag: runTag, onLine: () => Effect.sync(() => void (ready = true)) })
    )
    while (!ready) yield* realSleep(20)
    const started = Date.now()
    yield* Fiber.interrupt(fiber)
    const took = Date.now() - started
    expect(took).toBeGreaterThanOrEqual(400)
    expect(took).toBeLessThan(5000)
    expect(yield* Effect.promise(() => pidsWithEnvironment(RUN_TAG_VARIABLE, runTag))).toEqual([])
  }).pipe(Effect.provide(ProcessRunner.withGrace(500))), 15_000)

it.live("leftover group members are ended when the leader exits first", () =>
  Effect.gen(function*() {
    const runner = yield* ProcessRunner
    const runTag = tag()
    const script = `
      const { spawn } = require("child_process")
      spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" })
      setTimeout(() => process.exit(0), 100)
    `
    const exit = yield* runner.run({ ...node(script), tag: runTag })
    expect(exit.exitCode).toBe(0)
    expect(yield* Effect.promise(() => pidsWithEnvironment(RUN_TAG_VARIABLE, runTag))).toEqual([])
  }).pipe(Effect.provide(ProcessRunner.Default)), 15_000)
