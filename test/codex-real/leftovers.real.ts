import { it } from "@effect/vitest"
import { Effect, Fiber, Layer } from "effect"
import { randomInt } from "node:crypto"
import * as fs from "node:fs"
import { describe, expect } from "vitest"
import { CodexWorker } from "../../src/services/CodexWorker.js"
import { ProcessRunner } from "../../src/services/ProcessRunner.js"
import { RunLog } from "../../src/services/RunLog.js"
import { eventually, freshTag, implementationRequest, readLog, realSleep, taggedPids } from "../worker/support.js"
import { assistantMessage, completed, created, type MockReply, shellCall, sse, startMockResponses } from "./mockResponses.js"
import { binary, codexHome, mockProviderConfig } from "./support.js"

/**
 * Nothing outlives a run on the real binary: Codex, its sandbox (bubblewrap and the
 * `--codex-run-as-fs-helper` helpers), the agent's commands and whatever they escaped into with
 * `setsid` and an emptied environment. Processes are counted by what names this run alone: the
 * workspace on their command line, the run's tag, or the escapees' unique sleep lengths.
 */

const processesNaming = (texts: ReadonlyArray<string>) =>
  Effect.promise(async () => {
    const pids = (await fs.promises.readdir("/proc")).filter((entry) => /^\d+$/.test(entry) && Number(entry) !== process.pid)
    const lines = await Promise.all(pids.map((pid) =>
      fs.promises.readFile(`/proc/${pid}/cmdline`, "utf8").then((line) => [Number(pid), line.replaceAll("\0", " ")] as const, () => [Number(pid), ""] as const)))
    return lines.filter(([, line]) => texts.some((text) => line.includes(text)))
  })

const count = (workspace: string, runTag: string, sleeps: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const named = yield* processesNaming([workspace, ...sleeps])
    const tagged = yield* taggedPids(runTag)
    return new Set([...named.map(([pid]) => pid), ...tagged]).size
  })

const workerLayer = (url: string) =>
  CodexWorker.layer({ cliPath: binary!, codexHome: codexHome(), apiKey: "test", config: mockProviderConfig(url) }).pipe(
    Layer.provide(Layer.mergeAll(ProcessRunner.Default, RunLog.Default))
  )

type Outcome = "completed" | "failed" | "cancelled"

/** After the escaping command: the turn ends well, fails for good (HTTP 400), or hangs until cancelled. */
const endingFor = (outcome: Outcome): MockReply =>
  outcome === "completed"
    ? sse(created(), assistantMessage("Done."), completed())
    : outcome === "failed"
    ? { kind: "status", status: 400, body: `{"error":{"message":"bad request","type":"invalid_request_error"}}` }
    : { kind: "hang" }

const runWith = (outcome: Outcome) =>
  Effect.gen(function*() {
    const runTag = freshTag()
    const request = implementationRequest({ model: "gpt-5.5", prompt: "Run the command.", runTag })
    const sleeps = [`1000.${randomInt(10 ** 8, 10 ** 9)}`, `1000.${randomInt(10 ** 8, 10 ** 9)}`]
    const command = [
      `setsid env -i sleep ${sleeps[0]} >/dev/null 2>&1 < /dev/null &`,
      `env -u CODEX_REPLAY_RUN_TAG setsid nohup sleep ${sleeps[1]} >/dev/null 2>&1 < /dev/null &`,
      "echo ESCAPED; sleep 3"
    ].join(" ")
    expect(yield* count(request.workingDirectory, runTag, sleeps)).toBe(0)
    const mock = yield* Effect.promise(() => startMockResponses([sse(created(), shellCall(command), completed()), endingFor(outcome)]))
    let during = 0
    const result = yield* Effect.gen(function*() {
      const fiber = yield* Effect.fork(Effect.either(Effect.flatMap(CodexWorker, (worker) => worker.run(request))))
      yield* eventually(() => /"item.started".*command_execution/.test(readLog(request.runDirectory)), 30_000, "the command")
      yield* realSleep(500)
      during = yield* count(request.workingDirectory, runTag, sleeps)
      if (outcome === "cancelled") {
        yield* eventually(() => mock.requests.length >= 2, 30_000, "the hanging request")
        yield* Fiber.interrupt(fiber)
        return undefined
      }
      return yield* Fiber.join(fiber)
    }).pipe(Effect.provide(workerLayer(mock.url)), Effect.ensuring(Effect.promise(() => mock.close())))
    if (outcome === "completed") expect(result?._tag).toBe("Right")
    if (outcome === "failed") expect(result?._tag).toBe("Left")
    // Whatever is still exiting gets a moment; nothing of the run may be left after it.
    let after = -1
    for (let round = 0; round < 20 && after !== 0; round++) {
      yield* realSleep(100)
      after = yield* count(request.workingDirectory, runTag, sleeps)
    }
    console.info(`[codex-real] ${outcome}: ${during} processes of the run while it ran, ${after} after`)
    expect(during).toBeGreaterThanOrEqual(2)
    expect(after).toBe(0)
  })

if (binary !== undefined) {
  describe("no process of a real-binary run outlives it", () => {
    for (const outcome of ["completed", "failed", "cancelled"] as const) {
      it.live(`after a ${outcome} run: none of Codex, its sandbox helpers, the agent's commands or their setsid escapees`, () => runWith(outcome), 90_000)
    }
  })
}
