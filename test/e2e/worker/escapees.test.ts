import { it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { expect } from "vitest"
import { CodexWorker } from "../../../src/services/CodexWorker.js"
import { signal } from "../../../src/services/platform/procfs.js"
import { eventually, fakeCodexLayer, implementationRequest, readLog, realSleep } from "../../worker/support.js"

/** A `sleep` with an argument no other process has, so that it can be counted in the process table. */
const uniqueSleep = () => `${100000 + Math.floor(Math.random() * 800000)}.${process.pid}`

/** The pids of every process whose command line is `sleep <argument>`. */
const sleepers = (argument: string) =>
  fs.readdirSync("/proc").filter((entry) => /^\d+$/.test(entry)).filter((entry) => {
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8")
      return fs.readFileSync(`/proc/${entry}/cmdline`, "utf8") === `sleep\0${argument}\0` && !stat.slice(stat.lastIndexOf(")")).startsWith(") Z")
    } catch {
      return false
    }
  }).map(Number)

/** An agent that escapes every way a process can: a new session without any environment, and one without the run tag. */
const escapingCommand = (argument: string) =>
  `setsid env -i sleep ${argument} & env -u CODEX_REPLAY_RUN_TAG -u CODEX_REPLAY_WORKER_ATTEMPT setsid sleep ${argument} & exit 0`

it.live("control: the escaping command outlives its shell when nothing confines it", () =>
  Effect.gen(function*() {
    const argument = uniqueSleep()
    spawnSync("/bin/sh", ["-c", escapingCommand(argument)], { stdio: "ignore" })
    yield* eventually(() => sleepers(argument).length === 2, 5000, "both escaped processes").pipe(Effect.either)
    const survivors = sleepers(argument)
    for (const pid of survivors) signal(pid, "SIGKILL")
    expect(survivors).toHaveLength(2)
  }))

const records = (runDirectory: string) => {
  try {
    return fs.readdirSync(path.join(runDirectory, "processes"))
  } catch {
    return []
  }
}

const withAgent = (argument: string) => fakeCodexLayer({ FAKE_CODEX_COMMAND: escapingCommand(argument) })

for (const [outcome, scenario] of [["completed", "success"], ["failed", "stream_error"]] as const) {
  it.live(`an agent's escaped processes end with a ${outcome} attempt`, () => {
    const argument = uniqueSleep()
    return Effect.gen(function*() {
      const worker = yield* CodexWorker
      const request = implementationRequest({ prompt: `fake-scenario: ${scenario}` })
      const result = yield* Effect.either(worker.run(request))
      expect(result._tag).toBe(outcome === "completed" ? "Right" : "Left")
      expect(sleepers(argument)).toEqual([])
      expect(records(request.runDirectory)).toEqual([])
    }).pipe(Effect.provide(withAgent(argument)))
  }, 20_000)
}

it.live("an agent's escaped processes end with a cancelled attempt; while it ran, its namespace was recorded", () => {
  const argument = uniqueSleep()
  return Effect.gen(function*() {
    const request = implementationRequest({ prompt: "fake-scenario: hang" })
    const fiber = yield* Effect.fork(Effect.flatMap(CodexWorker, (worker) => worker.run(request)))
    yield* eventually(() => sleepers(argument).length === 2 && readLog(request.runDirectory).includes(`"item.started"`), 10_000, "the escaped processes")
    yield* eventually(() => records(request.runDirectory).length === 1, 5000, "the namespace record")
    const record = JSON.parse(fs.readFileSync(path.join(request.runDirectory, "processes", records(request.runDirectory)[0]!), "utf8"))
    expect(record.init.pid).toBeGreaterThan(1)
    expect(record.namespace).toBeGreaterThan(0)
    expect(fs.statSync(path.join(request.runDirectory, "processes", records(request.runDirectory)[0]!)).mode & 0o777).toBe(0o600)
    yield* Fiber.interrupt(fiber)
    yield* realSleep(100)
    expect(sleepers(argument)).toEqual([])
    expect(records(request.runDirectory)).toEqual([])
  }).pipe(Effect.provide(withAgent(argument)))
}, 20_000)
