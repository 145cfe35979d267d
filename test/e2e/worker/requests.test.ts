import { it } from "@effect/vitest"
import { Effect, Fiber, Schedule, Schema, TestClock } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { expect } from "vitest"
import type { WorkerError } from "../../../src/domain/errors.js"
import { workerError } from "../../../src/domain/worker.js"
import { CodexWorker, type WorkerRequest } from "../../../src/services/CodexWorker.js"
import { fakeCodexLayer, implementationRequest, readLog, scratch } from "../../worker/support.js"

const Summary = Schema.Struct({
  summary: Schema.String,
  status: Schema.Literal("done", "blocked"),
  files: Schema.Array(Schema.String)
})

const invocationLog = path.join(scratch("worker-log-"), "invocations.jsonl")

it.live("a schema answer is parsed and validated into `output`; the schema reaches codex as a strict object", () =>
  Effect.gen(function*() {
    const worker = yield* CodexWorker
    const result = yield* worker.run({ ...implementationRequest({ prompt: "fake-scenario: schema" }), outputSchema: Summary })
    expect(result.output).toEqual({ summary: "fake", status: "done", files: ["fake"] })
    const invocation = JSON.parse(fs.readFileSync(invocationLog, "utf8").trim()) as { outputSchema: Record<string, unknown> }
    expect(invocation.outputSchema).toMatchObject({ type: "object", additionalProperties: false, required: ["summary", "status", "files"] })
  }).pipe(Effect.provide(fakeCodexLayer({ FAKE_CODEX_LOG: invocationLog, FAKE_CODEX_STRICT_SCHEMA: "1" }))))

it.live("a schema answer given by the caller (FAKE_CODEX_FINAL_JSON) is decoded", () =>
  Effect.gen(function*() {
    const worker = yield* CodexWorker
    const result = yield* worker.run({ ...implementationRequest(), outputSchema: Summary })
    expect(result.output).toEqual({ summary: "two files", status: "blocked", files: ["a.ts", "b.ts"] })
    expect(result.final_response).toBe(`{"summary":"two files","status":"blocked","files":["a.ts","b.ts"]}`)
  }).pipe(Effect.provide(fakeCodexLayer({ FAKE_CODEX_FINAL_JSON: `{"summary":"two files","status":"blocked","files":["a.ts","b.ts"]}` }))))

it.live("invalid JSON and a schema mismatch fail with the raw text kept", () =>
  Effect.gen(function*() {
    const worker = yield* CodexWorker
    const notJson = implementationRequest({ prompt: "fake-final-json: this is not json" })
    const first = yield* Effect.flip(worker.run({ ...notJson, outputSchema: Summary }))
    expect([first.code, first.retryable, first.raw_output, first.diagnostic.worker_stage]).toEqual(["invalid_output", false, "this is not json", "output"])
    expect(readLog(notJson.runDirectory)).toContain("[implementation] failed: invalid_output")
    const mismatch = yield* Effect.flip(worker.run({ ...implementationRequest({ prompt: `fake-final-json: {"summary":"x","status":"maybe","files":[]}` }), outputSchema: Summary }))
    expect(mismatch.code).toBe("invalid_output")
    expect(mismatch.message).toContain("maybe")
    expect(mismatch.raw_output).toBe(`{"summary":"x","status":"maybe","files":[]}`)
  }).pipe(Effect.provide(fakeCodexLayer())))

// ---------------------------------------------------------------------------------------------
// Bad input: a clear WorkerError before any process starts (FAKE_CODEX_LOG stays empty).

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const rejected = (request: WorkerRequest<any, any>, cliPath?: string) =>
  Effect.gen(function*() {
    const log = path.join(scratch("worker-log-"), "invocations.jsonl")
    const error = yield* Effect.flip(
      Effect.flatMap(CodexWorker, (worker) => worker.run(request)).pipe(
        Effect.provide(fakeCodexLayer({ FAKE_CODEX_LOG: log }, cliPath === undefined ? {} : { cliPath }))
      )
    )
    expect(fs.existsSync(log)).toBe(false)
    expect(error.diagnostic.worker_stage).toBe("request")
    expect(error.retryable).toBe(false)
    return error
  })

it.live("bad input is refused before any process starts", () =>
  Effect.gen(function*() {
    const good = implementationRequest()
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const cases: Array<[WorkerRequest<any, any>, string | undefined, string, RegExp]> = [
      [{ ...good, prompt: "   " }, undefined, "invalid_request", /no prompt/],
      [{ ...good, model: "" }, undefined, "invalid_request", /no model/],
      [{ ...good, purpose: "deploy" as never }, undefined, "invalid_request", /purpose "deploy" is unknown/],
      [{ ...good, workingDirectory: "/nonexistent/codex-replay-workspace" }, undefined, "invalid_request", /not an existing absolute directory/],
      [{ ...good, workingDirectory: "relative/dir" }, undefined, "invalid_request", /not an existing absolute directory/],
      [{ ...good, outputSchema: Schema.Array(Schema.String) as never }, undefined, "invalid_request", /plain JSON object/],
      [{ ...good, outputSchema: { type: "object" } as never }, undefined, "invalid_request", /Effect Schema/],
      [good, "/nonexistent/codex", "cli_unavailable", /\/nonexistent\/codex does not exist or is not executable/],
      [good, "codex-replay-no-such-binary", "cli_unavailable", /not executable/]
    ]
    const notExecutable = path.join(scratch("worker-cli-"), "codex")
    fs.writeFileSync(notExecutable, "#!/bin/sh\n", { mode: 0o644 })
    cases.push([good, notExecutable, "cli_unavailable", /not executable/])
    for (const [request, cliPath, code, message] of cases) {
      const error = yield* rejected(request, cliPath)
      expect(error.code).toBe(code)
      expect(error.message).toMatch(message)
    }
  }))

// ---------------------------------------------------------------------------------------------
// The retry helper with a scripted fake worker and the TestClock.

const failure = (code: string, retryable: boolean) =>
  workerError({ code: code as never, message: code, retryable, stage: "turn", exitCode: 1, systemCode: null, elapsedMs: 0 })

const scripted = (outcomes: Array<WorkerError | string>, calls: Array<string>) =>
  CodexWorker.fake((request) =>
    Effect.suspend(() => {
      calls.push(request.workingDirectory)
      const next = outcomes.shift()
      return typeof next === "string" ? Effect.succeed(next) : Effect.fail(next ?? failure("exhausted", false))
    })
  )

const request = { purpose: "implementation", model: "m", prompt: "p", workingDirectory: "/w1" } as const

it.effect("runWithSchedule waits as the schedule says and retries only retryable failures", () =>
  Effect.gen(function*() {
    const calls: string[] = []
    const worker = yield* CodexWorker.pipe(Effect.provide(scripted([failure("stream_error", true), failure("server_error", true), "ok"], calls)))
    const retried: number[] = []
    const fiber = yield* Effect.fork(worker.runWithSchedule(
      (attempt) => Effect.succeed({ ...request, workingDirectory: `/w${attempt}` }),
      Schedule.exponential("2 seconds").pipe(Schedule.intersect(Schedule.recurs(3))),
      { beforeRetry: (_, attempt) => Effect.sync(() => void retried.push(attempt)) }
    ))
    yield* TestClock.adjust("1 second")
    expect(calls).toEqual(["/w1"])
    yield* TestClock.adjust("1 second")
    expect(calls).toEqual(["/w1", "/w2"])
    yield* TestClock.adjust("4 seconds")
    const result = yield* Fiber.join(fiber)
    expect(calls).toEqual(["/w1", "/w2", "/w3"])
    expect(retried).toEqual([2, 3])
    expect([result.final_response, result.worktree]).toEqual(["ok", "/w3"])
  }))

it.effect("a non-retryable failure stops at once; an exhausted schedule returns the last failure", () =>
  Effect.gen(function*() {
    const calls: string[] = []
    const worker = yield* CodexWorker.pipe(Effect.provide(scripted([failure("stream_error", true), failure("bad_request", false), "never"], calls)))
    const fiber = yield* Effect.fork(Effect.flip(worker.runWithSchedule(request, Schedule.spaced("1 second"))))
    yield* TestClock.adjust("10 seconds")
    expect((yield* Fiber.join(fiber)).code).toBe("bad_request")
    expect(calls).toHaveLength(2)

    const more: string[] = []
    const flaky = yield* CodexWorker.pipe(Effect.provide(scripted([failure("a", true), failure("b", true), failure("c", true)], more)))
    const exhausted = yield* Effect.fork(Effect.flip(flaky.runWithSchedule(request, Schedule.recurs(1))))
    yield* TestClock.adjust("1 second")
    expect((yield* Fiber.join(exhausted)).code).toBe("b")
    expect(more).toHaveLength(2)
  }))

it.effect("the fake layer validates structured answers like the live worker", () =>
  Effect.gen(function*() {
    const worker = yield* CodexWorker.pipe(Effect.provide(CodexWorker.fake(() => Effect.succeed(`{"summary":"s","status":"done","files":[]}`))))
    const result = yield* worker.run({ ...request, outputSchema: Summary })
    expect(result.output.status).toBe("done")
    const broken = yield* CodexWorker.pipe(Effect.provide(CodexWorker.fake(() => Effect.succeed({ final_response: "nope", thread_id: "t-1" }))))
    expect((yield* Effect.flip(broken.run({ ...request, outputSchema: Summary }))).raw_output).toBe("nope")
  }))
