import { it } from "@effect/vitest"
import { Effect, Fiber, Layer, Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect } from "vitest"
import { CodexWorker } from "../../src/services/CodexWorker.js"
import { ProcessRunner } from "../../src/services/ProcessRunner.js"
import { RunLog } from "../../src/services/RunLog.js"
import { eventually, freshTag, implementationRequest, readLog, realSleep, taggedPids } from "../worker/support.js"
import { assistantMessage, completed, created, type MockReply, shellCall, sse, startMockResponses } from "./mockResponses.js"
import { binary, codexHome, mockProviderConfig, realCodexBinary } from "./support.js"

/** Processes whose command line names `text` (the agent's shell and its children carry no tag). */
const commandPids = (text: string) =>
  Effect.promise(async () => {
    const pids = (await fs.promises.readdir("/proc")).filter((entry) => /^\d+$/.test(entry))
    const lines = await Promise.all(pids.map((pid) => fs.promises.readFile(`/proc/${pid}/cmdline`, "utf8").then((line) => [pid, line] as const, () => [pid, ""] as const)))
    return lines.filter(([pid, line]) => Number(pid) !== process.pid && line.includes(text)).map(([pid]) => Number(pid))
  })

const realCodexLayer = (url: string) =>
  CodexWorker.layer({ cliPath: binary!, codexHome: codexHome(), apiKey: "test", config: mockProviderConfig(url) }).pipe(
    Layer.provide(Layer.mergeAll(ProcessRunner.Default, RunLog.Default))
  )

/** Runs `body` with a worker on the real binary and a mock scripted with `replies`. */
const withMock = <A, E>(replies: ReadonlyArray<MockReply>, body: (requests: Array<Record<string, unknown>>) => Effect.Effect<A, E, CodexWorker>) =>
  Effect.acquireUseRelease(
    Effect.promise(() => startMockResponses(replies)),
    (mock) => body(mock.requests).pipe(Effect.provide(realCodexLayer(mock.url))),
    (mock) => Effect.promise(() => mock.close())
  )

if (binary === undefined) {
  describe("real codex binary", () => {
    it("is not installed: the real-binary tier has nothing to run", () => {
      console.warn("[codex-real] SKIPPED: @openai/codex's native binary is not installed (npm i without --omit=optional).")
      expect(realCodexBinary()).toBeUndefined()
    })
  })
} else {
  describe(`real codex binary (${binary})`, () => {
    it.live("a success: final message and usage from turn.completed", () =>
      withMock([sse(created(), assistantMessage("Hello from the mock."), completed())], (requests) =>
        Effect.gen(function*() {
          const worker = yield* CodexWorker
          const request = implementationRequest({ model: "gpt-5.5", prompt: "Say hello." })
          const result = yield* worker.run(request)
          expect(result.final_response).toBe("Hello from the mock.")
          expect(result.usage).toEqual({ input: 100, cached_input: 40, cache_write: 0, output: 20, reasoning_output: 5 })
          expect(result.thread_id).toMatch(/^[0-9a-f-]{36}$/)
          expect(requests).toHaveLength(1)
          expect(readLog(request.runDirectory)).toContain(`[implementation:stdout] {"type":"turn.completed"`)
        })), 60_000)

    it.live("a schema answer is validated; codex forwards the strict schema", () =>
      withMock([sse(created(), assistantMessage(`{"request":"Add a greeting."}`), completed())], (requests) =>
        Effect.gen(function*() {
          const worker = yield* CodexWorker
          const request = { ...implementationRequest({ model: "gpt-5.5", purpose: "prompt_synthesis" }), outputSchema: Schema.Struct({ request: Schema.String }) }
          const result = yield* worker.run(request)
          expect(result.output).toEqual({ request: "Add a greeting." })
          expect(JSON.stringify(requests[0])).toContain(`"additionalProperties":false`)
          expect(JSON.stringify(requests[0])).toContain(`"strict":true`)
        })), 60_000)

    it.live("an HTTP 500 is a retryable server error with codex's own message", () =>
      withMock([{ kind: "status", status: 500, body: `{"error":{"message":"boom","type":"server_error"}}` }], () =>
        Effect.gen(function*() {
          const worker = yield* CodexWorker
          const error = yield* Effect.flip(worker.run(implementationRequest({ model: "gpt-5.5" })))
          expect([error.code, error.retryable, error.diagnostic.worker_stage]).toEqual(["server_error", true, "turn"])
          expect(error.message).not.toContain("Reading prompt from stdin")
        })), 60_000)

    it.live("cancelling during a running tool command ends codex, the command and its grandchild", () =>
      Effect.gen(function*() {
        const runTag = freshTag()
        const request = implementationRequest({ model: "gpt-5.5", prompt: "Run the long command.", runTag })
        // In the workspace: the only place outside its scratch where the sandboxed command may write.
        const marker = path.join(request.workingDirectory, `MARKER-${runTag}`)
        const command = `(sleep 2; echo survived > ${marker}) & echo started; sleep 60`
        yield* withMock([sse(created(), shellCall(command), completed()), { kind: "hang" }], (requests) =>
          Effect.gen(function*() {
            const fiber = yield* Effect.fork(Effect.flatMap(CodexWorker, (worker) => worker.run(request)))
            yield* eventually(() => /"item.started".*command_execution/.test(readLog(request.runDirectory)), 30_000, "the tool command").pipe(Effect.tapDefect(() => Effect.sync(() => console.error(readLog(request.runDirectory), JSON.stringify(requests).slice(0, 3000)))))
            yield* eventually(() => fs.existsSync(path.dirname(marker)), 1000, "the marker folder")
            yield* realSleep(300)
            // Codex carries the run tag; its agent's commands do not (their environment is built for them).
            expect((yield* taggedPids(runTag)).length).toBeGreaterThanOrEqual(1)
            expect((yield* commandPids(marker)).length).toBeGreaterThanOrEqual(2)
            const started = Date.now()
            yield* Fiber.interrupt(fiber)
            const took = Date.now() - started
            console.info(`[codex-real] interrupt completed in ${took} ms`)
            expect(took).toBeLessThan(5000)
            expect(yield* taggedPids(runTag)).toEqual([])
            expect(yield* commandPids(marker)).toEqual([])
          }))
        yield* realSleep(2500)
        expect(fs.existsSync(marker)).toBe(false)
      }), 60_000)
  })
}
