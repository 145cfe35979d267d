import { it } from "@effect/vitest"
import { Effect, Schedule } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { expect } from "vitest"
import { CodexWorker } from "../../../src/services/CodexWorker.js"
import { eventually, fakeCodexLayer, freshTag, implementationRequest, readLog, realSleep, scratch, taggedPids } from "../../worker/support.js"

const failureOf = (scenario: string) =>
  Effect.gen(function*() {
    const worker = yield* CodexWorker
    const request = implementationRequest({ prompt: `fake-scenario: ${scenario}\nDo the task.` })
    const error = yield* Effect.flip(worker.run(request))
    return { error, log: readLog(request.runDirectory) }
  })

it.live("an HTTP 500 turn failure is retryable and its structured message wins over stderr", () =>
  Effect.gen(function*() {
    const { error, log } = yield* failureOf("http_500")
    expect(error._tag).toBe("WorkerError")
    expect(error.code).toBe("server_error")
    expect(error.retryable).toBe(true)
    expect(error.message).toBe("We’re currently experiencing high demand, which may cause temporary errors.")
    expect(error.diagnostic).toMatchObject({ worker_code: "server_error", exit_code: 1, system_code: null, worker_stage: "turn" })
    expect(log).toContain(`[implementation:stdout] {"type":"error","message":"Reconnecting... 1/2`)
    expect(log).toContain("[implementation:stderr] 2026-11-29T12:00:00.000000Z ERROR codex_core::codex: turn failed")
    expect(log).toMatch(/\[implementation\] failed \(exit code 1\): server_error: We’re currently/)
  }).pipe(Effect.provide(fakeCodexLayer())))

it.live("a 429 after codex's own retries is retryable", () =>
  Effect.gen(function*() {
    const { error } = yield* failureOf("rate_limit")
    expect([error.code, error.retryable]).toEqual(["rate_limited", true])
    expect(error.message).toBe("exceeded retry limit, last status: 429 Too Many Requests")
  }).pipe(Effect.provide(fakeCodexLayer())))

it.live("a dropped stream is retryable", () =>
  Effect.gen(function*() {
    const { error } = yield* failureOf("stream_error")
    expect([error.code, error.retryable]).toEqual(["stream_error", true])
  }).pipe(Effect.provide(fakeCodexLayer())))

it.live("a 400 from the API is not retryable", () =>
  Effect.gen(function*() {
    const { error } = yield* failureOf("bad_request")
    expect([error.code, error.retryable]).toEqual(["bad_request", false])
    expect(error.message).toContain("invalid_request_error")
  }).pipe(Effect.provide(fakeCodexLayer())))

it.live("a crash reports its exit code and the panic, without the stdin notice", () =>
  Effect.gen(function*() {
    const { error } = yield* failureOf("crash")
    expect([error.code, error.retryable]).toEqual(["cli_failed", false])
    expect(error.diagnostic).toMatchObject({ exit_code: 101, worker_stage: "exit" })
    expect(error.message).toContain("panicked")
    expect(error.message).not.toContain("Reading prompt from stdin")
  }).pipe(Effect.provide(fakeCodexLayer())))

it.live("a line that is not JSON is a protocol error and the child is not left behind", () =>
  Effect.gen(function*() {
    const worker = yield* CodexWorker
    const runTag = freshTag()
    const error = yield* Effect.flip(worker.run(implementationRequest({ prompt: "fake-scenario: bad_json", runTag })))
    expect([error.code, error.retryable]).toEqual(["protocol_error", false])
    expect(error.message).toContain("this is not json")
    let left: number[] = [-1]
    yield* eventually(() => left.length === 0, 2000, "the fake to end").pipe(
      Effect.race(Effect.forever(Effect.flatMap(taggedPids(runTag), (pids) => Effect.sync(() => void (left = pids))).pipe(Effect.zipLeft(realSleep(20)))))
    )
    expect(left).toEqual([])
  }).pipe(Effect.provide(fakeCodexLayer())))

it.live("a clean exit without turn.completed is a failure", () =>
  Effect.gen(function*() {
    const { error } = yield* failureOf("no_turn_completed")
    expect([error.code, error.retryable]).toEqual(["incomplete_turn", false])
    expect(error.diagnostic).toMatchObject({ exit_code: 0, worker_stage: "completion" })
  }).pipe(Effect.provide(fakeCodexLayer())))

it.live("a CLI usage error (exit 2) is not retryable", () =>
  Effect.gen(function*() {
    const worker = yield* CodexWorker
    const error = yield* Effect.flip(worker.run(implementationRequest({ model: "--bogus" })))
    expect([error.code, error.retryable, error.diagnostic.exit_code]).toEqual(["invalid_arguments", false, 2])
  }).pipe(Effect.provide(fakeCodexLayer())))

it.live("a flaky CLI succeeds through runWithSchedule, retrying only while failures are retryable", () =>
  Effect.gen(function*() {
    const worker = yield* CodexWorker
    const retries: Array<[string, number]> = []
    const workspaces: string[] = []
    const result = yield* worker.runWithSchedule(
      (attempt) =>
        Effect.sync(() => {
          const request = implementationRequest({ prompt: "fake-scenario: flaky" })
          workspaces[attempt - 1] = request.workingDirectory
          return request
        }),
      Schedule.recurs(3),
      { beforeRetry: (failure, attempt) => Effect.sync(() => void retries.push([failure.code, attempt])) }
    )
    expect(result.final_response).toBe("Done: the requested change is in place.")
    expect(retries).toEqual([["stream_error", 2], ["stream_error", 3]])
    expect(result.worktree).toBe(workspaces[2])
    expect(fs.existsSync(path.join(workspaces[0]!, "FAKE_CODEX_OUTPUT.md"))).toBe(false)
  }).pipe(Effect.provide(fakeCodexLayer({
    FAKE_CODEX_FAIL_TIMES: "2",
    FAKE_CODEX_STATE_FILE: path.join(scratch("worker-flaky-"), "state")
  }))))

// The 3 s limit leaves a loaded machine time to start the fake CLI and log its "offline" lines before it
// fires (CI once missed them with 700 ms).
it.live("a per-attempt timeout stops Codex through the cancellation path and is retryable", () =>
  Effect.gen(function*() {
    const worker = yield* CodexWorker
    const runTag = freshTag()
    const request = implementationRequest({ prompt: "fake-scenario: offline", runTag })
    const started = Date.now()
    const error = yield* Effect.flip(worker.run(request))
    expect(Date.now() - started).toBeLessThan(12_000)
    expect([error.code, error.retryable, error.diagnostic.worker_stage]).toEqual(["timeout", true, "timeout"])
    expect(yield* taggedPids(runTag)).toEqual([])
    const log = readLog(request.runDirectory)
    expect(log).toContain("Reconnecting... waiting for network")
    expect(log).toContain("[implementation] cancelled; Codex and its processes were stopped")
    expect(log).toContain("[implementation] failed: timeout")
  }).pipe(Effect.provide(fakeCodexLayer({}, { attemptTimeout: "3 seconds" }))))
