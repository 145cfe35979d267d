import { it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { expect } from "vitest"
import { RUN_TAG_VARIABLE } from "../../../src/domain/product.js"
import { CodexWorker } from "../../../src/services/CodexWorker.js"
import { ProcessRunner } from "../../../src/services/ProcessRunner.js"
import { eventually, FAKE_CODEX, fakeCodexLayer, freshTag, implementationRequest, outerPid, readLog, realSleep, scratch, taggedPids } from "../../worker/support.js"

// Longer than the slowest legitimate stop (SIGINT grace 1 s + sweep with SIGKILL escalation), so
// a marker can only come from a process that outlived the interruption.
const MARKER_DELAY_MS = 3500

/**
 * Starts a hanging scenario, waits until its tool command runs, interrupts the worker's fiber and
 * checks that the interruption was quick and complete: no tagged process, and no marker later.
 */
const interruptDuringToolCommand = (scenario: string, environment: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const directory = scratch("worker-cancel-")
    const marker = path.join(directory, "MARKER")
    const pidfile = path.join(directory, "pids")
    const runTag = freshTag()
    const request = implementationRequest({ prompt: `fake-scenario: ${scenario}\nRun the long command.`, runTag })
    const layer = fakeCodexLayer({
      FAKE_CODEX_MARKER: marker,
      FAKE_CODEX_MARKER_DELAY_MS: String(MARKER_DELAY_MS),
      FAKE_CODEX_PIDFILE: pidfile,
      ...environment
    })
    const fiber = yield* Effect.fork(Effect.flatMap(CodexWorker, (worker) => worker.run(request)).pipe(Effect.provide(layer)))
    yield* eventually(() => fs.existsSync(pidfile) && readLog(request.runDirectory).includes(`"item.started"`), 5000, "the tool command")
    const toolStarted = Date.now()
    // The fake reports pids inside its own pid namespace (it is that namespace's pid 1).
    const [innerFake = 0, innerTool = 0] = fs.readFileSync(pidfile, "utf8").trim().split("\n").map(Number)
    expect(innerFake).toBe(1)
    const fakePid = yield* outerPid(innerFake, runTag)
    const toolPid = yield* outerPid(innerTool, runTag)
    yield* eventually(() => fs.existsSync(`/proc/${toolPid}`), 1000, "the tool process")
    // The tool command starts its grandchild a moment after it starts itself (longer under load).
    let before = yield* taggedPids(runTag)
    for (let tries = 0; tries < 100 && before.length < 3; tries++) {
      yield* realSleep(20)
      before = yield* taggedPids(runTag)
    }
    expect(before).toContain(fakePid)
    expect(before).toContain(toolPid)
    expect(before.length).toBeGreaterThanOrEqual(3)

    const interruptedAt = Date.now()
    yield* Fiber.interrupt(fiber)
    const took = Date.now() - interruptedAt
    expect(took).toBeLessThan(5000)
    expect(yield* taggedPids(runTag)).toEqual([])
    expect(fs.existsSync(marker)).toBe(false)
    expect(readLog(request.runDirectory)).toContain("[implementation] cancelled; Codex and its processes were stopped")

    yield* realSleep(Math.max(0, toolStarted + MARKER_DELAY_MS + 700 - Date.now()))
    expect(fs.existsSync(marker)).toBe(false)
    return took
  })

it.live("hang: a tool command in its own session and its grandchild are ended before the interrupt returns", () =>
  Effect.gen(function*() {
    const took = yield* interruptDuringToolCommand("hang")
    expect(took).toBeLessThan(1500)
  }), 20_000)

it.live("hang_inherit_stdout: a grandchild holding Codex's stdout does not keep the stream open", () =>
  Effect.gen(function*() {
    yield* interruptDuringToolCommand("hang_inherit_stdout")
  }), 20_000)

it.live("ignore_sigterm: a Codex that ignores SIGTERM is stopped through SIGINT", () =>
  Effect.gen(function*() {
    yield* interruptDuringToolCommand("ignore_sigterm")
  }), 20_000)

it.live("ignore_signals: a Codex deaf to SIGINT and SIGTERM, with a grandchild on stdout, is killed by the sweep", () =>
  Effect.gen(function*() {
    yield* interruptDuringToolCommand("ignore_signals")
  }), 20_000)

it.live("a tool command left in our own process group is swept without signalling our group", () =>
  Effect.gen(function*() {
    yield* interruptDuringToolCommand("ignore_signals", { FAKE_CODEX_CHILD_MODE: "same-group" })
    expect(process.kill(process.pid, 0)).toBe(true)
  }), 20_000)

it.live("interrupting right after the start leaves nothing behind", () =>
  Effect.gen(function*() {
    const runTag = freshTag()
    const request = implementationRequest({ prompt: "fake-scenario: hang", runTag })
    const fiber = yield* Effect.fork(Effect.flatMap(CodexWorker, (worker) => worker.run(request)).pipe(Effect.provide(fakeCodexLayer())))
    yield* realSleep(30)
    yield* Fiber.interrupt(fiber)
    yield* realSleep(300)
    expect(yield* taggedPids(runTag)).toEqual([])
  }), 20_000)

it.live("control: killing only the fake with SIGTERM (what the SDK's abort does) lets the grandchild write the marker", () =>
  Effect.gen(function*() {
    const directory = scratch("worker-control-")
    const marker = path.join(directory, "MARKER")
    const pidfile = path.join(directory, "pids")
    const runTag = freshTag()
    const child = spawn(FAKE_CODEX, ["exec", "--experimental-json", "--skip-git-repo-check", "--cd", directory], {
      env: { ...process.env, FAKE_CODEX_SCENARIO: "hang", FAKE_CODEX_MARKER: marker, FAKE_CODEX_MARKER_DELAY_MS: "800", FAKE_CODEX_PIDFILE: pidfile, [RUN_TAG_VARIABLE]: runTag },
      stdio: ["pipe", "ignore", "ignore"]
    })
    child.stdin.end("run it")
    yield* eventually(() => fs.existsSync(pidfile), 5000, "the tool command")
    child.kill("SIGTERM")
    // The grandchild's shell creates the file before it writes the line: wait for the line itself.
    const written = () => fs.existsSync(marker) && fs.readFileSync(marker, "utf8") === "survived\n"
    yield* eventually(written, 3000, "the marker's line")
    expect(fs.readFileSync(marker, "utf8")).toBe("survived\n")
    const runner = yield* ProcessRunner
    yield* runner.sweepTag(runTag)
    expect(yield* taggedPids(runTag)).toEqual([])
  }).pipe(Effect.provide(ProcessRunner.Default)), 20_000)
