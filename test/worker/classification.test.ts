import { describe, expect, it } from "@effect/vitest"
import { Either, Schema } from "effect"
import * as fs from "node:fs"
import {
  classifyAttempt,
  classifyMessage,
  decodeOutput,
  emptyAttempt,
  interpretEvent,
  outputJsonSchema,
  recordEvent,
  threadOptionsFor
} from "../../src/domain/worker.js"
import { fixturePath } from "../support/fixtures.js"

/** Replays a golden capture: its events, then what the SDK threw (`__thrown`) if anything. */
const replayGolden = (name: string) => {
  const record = emptyAttempt()
  let thrown: Error | undefined
  for (const line of fs.readFileSync(fixturePath("codex-golden", `${name}.events.jsonl`), "utf8").split("\n")) {
    if (line.trim() === "") continue
    const event = JSON.parse(line) as { __thrown?: string }
    if (event.__thrown !== undefined) thrown = new Error(event.__thrown)
    else recordEvent(record, interpretEvent(event))
  }
  return { record, failure: classifyAttempt({ record, thrown, elapsedMs: 42 }) }
}

describe("golden failure captures of the real codex 0.163.0", () => {
  const cases = [
    ["http500", "server_error", true, "We’re currently experiencing high demand, which may cause temporary errors."],
    ["http429", "rate_limited", true, "exceeded retry limit, last status: 429 Too Many Requests"],
    ["http400", "bad_request", false, `{"error":{"message":"mock error status 400","type":"server_error"}}`],
    ["disconnect", "stream_error", true, "stream disconnected before completion: error sending request"],
    ["failed_event", "stream_error", true, "stream disconnected before completion: mock response.failed"],
    ["nocompleted", "stream_error", true, "stream disconnected before completion: stream closed before response.completed"]
  ] as const
  for (const [name, code, retryable, message] of cases) {
    it(`${name}: ${code}, retryable ${retryable}, the turn.failed message and not the stderr warning`, () => {
      const { failure } = replayGolden(name)
      expect(failure).toBeDefined()
      expect([failure!.code, failure!.retryable, failure!.message]).toEqual([code, retryable, message])
      expect(failure!.diagnostic).toEqual({ worker_code: code, exit_code: 1, system_code: null, worker_stage: "turn", elapsed_ms: 42 })
    })
  }

  it("an exit without any event (unsupported approval policy) is a non-retryable CLI failure with the real error", () => {
    const { failure } = replayGolden("simple")
    expect([failure!.code, failure!.retryable, failure!.diagnostic.exit_code]).toEqual(["cli_failed", false, 1])
    expect(failure!.message).toBe(`Error: approval_policy = "untrusted" is no longer supported; remove this setting`)
  })

  for (const name of ["patch", "schema", "shell", "websearch", "plan"]) {
    it(`${name}: a completed turn is no failure and its usage is read in full`, () => {
      const { record, failure } = replayGolden(name)
      expect(failure).toBeUndefined()
      expect(record.usage!.input).toBeGreaterThan(0)
      expect(record.usage!.cache_write).toBe(0)
      expect(record.finalResponse).toBe(record.items.filter((item) => item.type === "agent_message").at(-1)!.text)
    })
  }

  it("the last agent message wins when a partial one came before a stream retry", () => {
    const { record } = replayGolden("nocompleted")
    expect(record.items.filter((item) => item.type === "agent_message")).toHaveLength(2)
    expect(record.finalResponse).toBe("partial")
  })
})

describe("failure messages beyond the captures", () => {
  const fallback = { code: "turn_failed", retryable: false } as const
  const cases = [
    ["Reconnecting... 3/5 (waiting for network: Connection refused (os error 111))", "stream_error", true],
    ["unexpected status 503 Service Unavailable: upstream connect error", "server_error", true],
    ["HTTP 502 from the provider", "server_error", true],
    ["stream idle timeout", "timeout", true],
    ["unexpected status 401 Unauthorized: Missing bearer", "unauthorized", false],
    ["You've hit your usage limit. Upgrade to Pro or try again later.", "usage_limit", false],
    ["Not inside a trusted directory and --skip-git-repo-check was not specified.", "untrusted_directory", false],
    ["Error: thread/resume: thread/resume failed: no rollout found for thread id x (code -32600)", "unknown_thread", false],
    [`{"error":{"message":"Invalid schema","type":"invalid_request_error"}}`, "bad_request", false],
    [`{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`, "bad_request", false],
    ["thread 'main' panicked at codex-rs/exec/src/lib.rs:512:9", "cli_failed", false],
    ["the model refused", "turn_failed", false]
  ] as const
  for (const [message, code, retryable] of cases) {
    it(`"${message.slice(0, 60)}" → ${code}`, () => {
      expect(classifyMessage(message, fallback)).toEqual({ code, retryable })
    })
  }

  it("a kill by a signal we did not send is retryable; the signal is the system code", () => {
    const failure = classifyAttempt({ record: emptyAttempt(), thrown: new Error("Codex Exec exited with signal SIGKILL: Reading prompt from stdin...\n"), elapsedMs: 1 })
    expect([failure!.code, failure!.retryable, failure!.diagnostic.system_code]).toEqual(["killed", true, "SIGKILL"])
  })

  it("a spawn failure keeps the system error code", () => {
    const error = Object.assign(new Error("spawn /missing/codex ENOENT"), { code: "ENOENT" })
    const failure = classifyAttempt({ record: emptyAttempt(), thrown: error, elapsedMs: 1 })
    expect([failure!.code, failure!.diagnostic.system_code, failure!.diagnostic.worker_stage]).toEqual(["spawn_failed", "ENOENT", "spawn"])
  })

  it("unknown events and items are tolerated", () => {
    expect(interpretEvent({ type: "item.plan.delta", delta: "x" })).toEqual({ kind: "unknown", type: "item.plan.delta" })
    expect(interpretEvent("not an object")).toEqual({ kind: "unknown", type: "(none)" })
    const item = interpretEvent({ type: "item.completed", item: { id: "item_9", type: "collab_tool_call", tool: "wait" } })
    expect(item).toMatchObject({ kind: "item_completed", unknownItemType: true, item: { type: "collab_tool_call", tool: "wait" } })
  })
})

describe("purposes", () => {
  const base = { model: "m", workingDirectory: "/w", skipGitRepoCheck: false }
  it("no --sandbox (it would replace the permission profile); a review: offline, medium effort", () => {
    expect(threadOptionsFor({ ...base, purpose: "implementation" })).toEqual({ ...base, approvalPolicy: "never" })
    for (const purpose of ["evaluation"] as const) {
      const options = threadOptionsFor({ ...base, purpose })
      expect(options).toMatchObject({ modelReasoningEffort: "medium", webSearchMode: "disabled" })
      expect(options.sandboxMode).toBeUndefined()
    }
    for (const purpose of ["prompt_synthesis", "working_directory_inference"] as const) {
      const options = threadOptionsFor({ ...base, purpose })
      expect(options.sandboxMode).toBeUndefined()
      expect(options.modelReasoningEffort).toBeUndefined()
    }
  })
})

describe("structured output", () => {
  const Ballot = Schema.Struct({ winner: Schema.Literal("A", "B", "tie"), score: Schema.NullOr(Schema.Number) })

  it("the JSON Schema sent to codex is a strict plain object without $schema", () => {
    const document = Either.getOrThrow(outputJsonSchema(Ballot))
    expect(document).toMatchObject({ type: "object", required: ["winner", "score"], additionalProperties: false })
    expect(document.$schema).toBeUndefined()
  })

  it("a schema class is inlined at the root", () => {
    class Answer extends Schema.Class<Answer>("Answer")({ request: Schema.String }) {}
    expect(Either.getOrThrow(outputJsonSchema(Answer))).toMatchObject({ type: "object", required: ["request"] })
  })

  it("non-object, non-strict and non-Schema output schemas are refused", () => {
    expect(Either.getLeft(outputJsonSchema(Schema.String))._tag).toBe("Some")
    expect(Either.getLeft(outputJsonSchema(Schema.Array(Schema.String)))._tag).toBe("Some")
    expect(Either.getLeft(outputJsonSchema(Schema.Struct({ a: Schema.optional(Schema.String) }))).pipe((o) => o._tag === "Some" && o.value)).toMatch(/"a".*optional/)
    expect(Either.getLeft(outputJsonSchema({ type: "object" }))._tag).toBe("Some")
  })

  it("answers are parsed and validated; failures keep the raw text", () => {
    expect(decodeOutput(Ballot, `{"winner":"A","score":0.5}`, 1)).toEqual(Either.right({ winner: "A", score: 0.5 }))
    const notJson = Either.getLeft(decodeOutput(Ballot, "this is not json", 1))
    expect(notJson._tag === "Some" && [notJson.value.code, notJson.value.raw_output]).toEqual(["invalid_output", "this is not json"])
    const mismatch = Either.getLeft(decodeOutput(Ballot, `{"winner":"C","score":1}`, 1))
    expect(mismatch._tag === "Some" && mismatch.value.message).toMatch(/does not match the output schema/)
    expect(mismatch._tag === "Some" && mismatch.value.raw_output).toBe(`{"winner":"C","score":1}`)
  })
})
