import { FetchHttpClient } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Stream } from "effect"
import type { ToolName } from "../../src/domain/contracts/index.js"
import type { ToolFailure } from "../../src/domain/errors.js"
import { makeControllerRpcClient } from "../../src/rpc/client.js"
import { API_TOKEN, CONTROL_TOKEN, inProcessController, type InProcessController, ORIGIN, PORT, SESSION_ID, webRequest } from "../http/support.js"

/** A fetch that never leaves the process: the request goes to the controller's web handler, with its Host. */
const fetchFrom = (controller: InProcessController): typeof globalThis.fetch => (input, init) => {
  const request = new Request(input, init)
  request.headers.set("host", new URL(request.url).host)
  return controller.handle(request)
}

/** Runs `use` with the real RPC client of the in-process controller (its tokens, unless given others). */
const withClient = <A, E>(
  use: (client: Effect.Effect.Success<ReturnType<typeof makeControllerRpcClient>>) => Effect.Effect<A, E>,
  tokens: { readonly control?: string; readonly api?: string } = {}
) =>
  Effect.gen(function*() {
    const controller = yield* inProcessController
    const answer = yield* Effect.flatMap(
      makeControllerRpcClient({
        sessionId: SESSION_ID,
        port: PORT,
        controlToken: tokens.control ?? CONTROL_TOKEN,
        apiToken: tokens.api ?? API_TOKEN
      }),
      use
    ).pipe(Effect.provideService(FetchHttpClient.Fetch, fetchFrom(controller)))
    return { answer, controller }
  })

/** Calls one tool through the client, typed or (for what no compiler lets through) not. */
const call = (name: string, payload: unknown, tokens?: { readonly control?: string; readonly api?: string }) =>
  Effect.map(withClient((client) => Effect.either(client.call(name as ToolName, payload as never)), tokens), ({ answer }) => answer)

const failureOf = <A>(answer: Either.Either<A, ToolFailure>) => {
  if (Either.isRight(answer)) throw new Error(`Expected a failure, got: ${JSON.stringify(answer.right)}`)
  return answer.left
}

/** A raw POST to the in-process `/api/rpc`, with both tokens. */
const post = (controller: InProcessController, body: string, contentType = "application/ndjson") =>
  Effect.promise(() =>
    controller.handle(webRequest("/api/rpc", {
      method: "POST",
      body,
      headers: { "Content-Type": contentType, "X-Codex-Replay-Control": CONTROL_TOKEN, Authorization: `Bearer ${API_TOKEN}` }
    })))

const rpcRequest = (tag: string, payload: unknown, id = "7") => JSON.stringify({ _tag: "Request", id, tag, payload, headers: [] })

/** Payloads each tool's Schema refuses, and the sentence `/api/call` gives for them. */
const BAD_PAYLOADS: ReadonlyArray<readonly [string, unknown, string | RegExp]> = [
  ["get_run", { run_id: 5 }, "run_id: Expected string, actual 5"],
  ["get_run", {}, "run_id is required."],
  ["cancel_run", { run_id: ["x"] }, /^run_id: Expected string/],
  ["get_state", { run_id: 5 }, "run_id: Expected string, actual 5"],
  ["list_threads", { limit: 0 }, /limit/],
  ["list_threads", { offset: -1 }, /offset/],
  ["list_threads", { query: 7 }, "query must be a string."],
  ["list_threads", { source: "elsewhere" }, "source must be imported or sample."],
  ["list_threads", [1, 2], /object/],
  ["inspect_thread", {}, "thread_id is required."],
  ["inspect_thread", { thread_id: "sample-hello-cli", beginning_kind: "svn" }, 'beginning_kind must be Git or Non-Git ("git" or "non_git").'],
  ["inspect_thread", { thread_id: "sample-hello-cli", excluded_files: "a.txt" }, "excluded_files must be a list of file paths."],
  ["get_report", { format: "json" }, "run_id is required."],
  ["get_report", { run_id: 3 }, "run_id is required."],
  ["synthesize_request", {}, "thread_id is required."],
  ["infer_working_directory", { thread_id: 1 }, "thread_id: Expected string, actual 1"],
  ["prepare_run", "not an object", "The replay configuration must be an object."],
  ["prepare_run", {}, "The thread (thread_id) is required and must be a non-empty string."],
  [
    "prepare_run",
    { thread_id: "sample-hello-cli", request: "Do it.", beginning_kind: "non_git", ending_kind: "non_git", models: [] },
    "Choose a Codex model (model or models)."
  ],
  ["start_run", { thread_id: "sample-hello-cli" }, "Explicit approval (approved: true) is required before starting a replay."],
  ["start_run", { approved: true, prepare_token: "short" }, "Prepare and approve this exact configuration before starting (prepare_token)."],
  ["no_such_tool", {}, "Unknown Codex Replay tool: no_such_tool"],
  ["open_controller", {}, "open_controller is only available through MCP."]
]

describe("the RPC server in-process, through the RPC client", () => {
  it.scoped("answers get_state with its typed result", () =>
    Effect.gen(function*() {
      const { answer } = yield* withClient((client) => client.call("get_state", {}))
      expect(answer.state.controller_session_id).toBe(SESSION_ID)
      expect(answer.state.run_root).toBe("/memory/runs")
      expect(answer.state.batch).toBeNull()
    }))

  it.scoped("answers list_runs with the runs of the run root, typed", () =>
    Effect.gen(function*() {
      const { answer } = yield* withClient((client) => client.call("list_runs", {}))
      expect(answer).toMatchObject({ total: 0, limit: 50, runs: [] })
    }))

  it.scoped("answers a user error of a valid payload with its typed failure", () =>
    Effect.gen(function*() {
      const missing = failureOf(yield* call("get_run", { run_id: "no-such-run" }))
      expect(missing).toMatchObject({ _tag: "NotFound", message: "The replay run is unavailable." })
      const invalid = failureOf(yield* call("get_run", { run_id: "../escape" }))
      expect(invalid).toMatchObject({ _tag: "InvalidArgument", message: "The run ID is invalid." })
      const filter = failureOf(yield* call("list_runs", { status: "done" }))
      expect(filter.message).toBe("status: must be one of running, completed, failed, cancelled.")
    }))

  it.scoped("refuses a bad payload with the tool's sentence, and an unknown tool or open_controller", () =>
    Effect.gen(function*() {
      for (const [name, payload, message] of BAD_PAYLOADS) {
        const failure = failureOf(yield* call(name, payload))
        expect(failure._tag, `${name} ${JSON.stringify(payload)}`).toBe("InvalidArgument")
        if (typeof message === "string") expect(failure.message).toBe(message)
        else expect(failure.message).toMatch(message)
      }
    }))

  it.scoped("refuses a wrong control or API token (401) as a clear client error", () =>
    Effect.gen(function*() {
      const refused = "The controller refused its API or control token (HTTP 401)."
      expect(failureOf(yield* call("get_state", {}, { control: "x".repeat(48) })).message).toBe(refused)
      expect(failureOf(yield* call("get_state", {}, { api: "0".repeat(48) })).message).toBe(refused)
    }))

  it.scoped("watch_run refuses an unknown or invalid run with a typed failure", () =>
    Effect.gen(function*() {
      const watched = (runId: string) => Effect.map(withClient((client) => Effect.either(Stream.runCollect(client.watchRun(runId)))), ({ answer }) => answer)
      expect(failureOf(yield* watched("run-that-never-was"))._tag).toBe("NotFound")
      expect(failureOf(yield* watched("../escape")).message).toBe("The run ID is invalid.")
    }))
})

describe("the RPC server in-process, over raw HTTP", () => {
  it.scoped("decodes a payload with the tool's Schema and answers a refused one as a typed InvalidArgument", () =>
    Effect.gen(function*() {
      const controller = yield* inProcessController
      const response = yield* post(controller, `${rpcRequest("get_run", { run_id: 1 }, "41")}\n`)
      expect(response.status).toBe(200)
      expect(response.headers.get("content-type")).toMatch(/^application\/ndjson/)
      expect(yield* Effect.promise(() => response.text())).toBe(`${JSON.stringify({
        _tag: "Exit",
        requestId: "41",
        exit: { _tag: "Failure", cause: { _tag: "Fail", error: { message: "run_id: Expected string, actual 1", _tag: "InvalidArgument" } } }
      })}\n`)
      // watch_run's payload is checked the same way.
      const watch = yield* post(controller, `${rpcRequest("watch_run", {}, "42")}\n`)
      expect(yield* Effect.promise(() => watch.text())).toContain('"error":{"message":"run_id is required.","_tag":"InvalidArgument"}')
    }))

  it.scoped("answers every payload a tool's Schema refuses with the sentence the client and /api/call give", () =>
    Effect.gen(function*() {
      const controller = yield* inProcessController
      for (const [name, payload, message] of BAD_PAYLOADS.filter(([name]) => !["no_such_tool", "open_controller"].includes(name))) {
        const response = yield* post(controller, rpcRequest(name, payload), "application/json")
        const [exit] = (yield* Effect.promise(() => response.json())) as ReadonlyArray<{ exit: { cause: { error: { _tag: string; message: string } } } }>
        expect(exit?.exit.cause.error._tag, `${name} ${JSON.stringify(payload)}`).toBe("InvalidArgument")
        if (typeof message === "string") expect(exit?.exit.cause.error.message).toBe(message)
        else expect(exit?.exit.cause.error.message).toMatch(message)
      }
    }))

  it.scoped("serves the JSON serialization too, with the security headers", () =>
    Effect.gen(function*() {
      const controller = yield* inProcessController
      const response = yield* post(controller, rpcRequest("get_state", {}), "application/json")
      expect(response.status).toBe(200)
      expect(response.headers.get("content-type")).toMatch(/^application\/json/)
      expect(response.headers.get("x-frame-options")).toBe("DENY")
      const messages = (yield* Effect.promise(() => response.json())) as ReadonlyArray<unknown>
      expect(messages).toMatchObject([{ _tag: "Exit", requestId: "7", exit: { _tag: "Success", value: { state: { controller_session_id: SESSION_ID } } } }])
    }))

  it.scoped("answers several requests of one body, each with its own exit", () =>
    Effect.gen(function*() {
      const controller = yield* inProcessController
      const response = yield* post(controller, `${rpcRequest("list_runs", {}, "1")}\n${rpcRequest("get_run", {}, "2")}\n`)
      const lines = (yield* Effect.promise(() => response.text())).trim().split("\n").map((line) => JSON.parse(line) as { requestId: string; exit: { _tag: string } })
      expect(lines.map((line) => [line.requestId, line.exit._tag]).sort()).toEqual([["1", "Success"], ["2", "Failure"]])
    }))

  it.scoped.each([
    ["a body that is not JSON", "application/json", "{not json", [{ _tag: "Defect", defect: { name: "SyntaxError" } }]],
    ["an ndjson line that is not JSON", "application/ndjson", "{\"_tag\":\n", [{ _tag: "Defect", defect: { name: "SyntaxError" } }]],
    ["a missing tag", "application/json", JSON.stringify({ _tag: "Request", id: "1", payload: {}, headers: [] }), [{ _tag: "Defect", defect: "Unknown request tag: " }]],
    ["a non-numeric id", "application/json", rpcRequest("get_state", {}, "abc"), [{ _tag: "Defect", defect: { name: "SyntaxError" } }]],
    ["an unknown tag", "application/json", rpcRequest("no_such_tool", {}), [{ _tag: "Defect", defect: "Unknown request tag: no_such_tool" }]]
  ] as const)("answers %s with the RPC server's Defect message and runs nothing", ([_name, contentType, body, messages]) =>
    Effect.gen(function*() {
      const controller = yield* inProcessController
      const before = controller.files.filesBelow("/")
      const response = yield* post(controller, body, contentType)
      expect(response.status).toBe(200)
      const text = yield* Effect.promise(() => response.text())
      const answered: unknown = contentType === "application/json" ? JSON.parse(text) : text.trim().split("\n").map((line) => JSON.parse(line))
      expect(answered).toMatchObject(messages)
      expect(controller.files.filesBelow("/")).toEqual(before)
    }))

  it.scoped("refuses another content type (415), a body over 1 MiB (400) and a missing control token (401)", () =>
    Effect.gen(function*() {
      const controller = yield* inProcessController
      const plain = yield* post(controller, rpcRequest("get_state", {}), "text/plain")
      expect(plain.status).toBe(415)
      expect(yield* Effect.promise(() => plain.json())).toEqual({ error: "Expected application/json or application/ndjson." })
      const big = yield* post(controller, rpcRequest("list_threads", { query: "x".repeat(2 * 1024 * 1024) }))
      expect(big.status).toBe(400)
      expect(yield* Effect.promise(() => big.json())).toEqual({ error: "The RPC request body is too large." })
      const untokened = yield* Effect.promise(() =>
        controller.handle(webRequest("/api/rpc", {
          method: "POST",
          body: rpcRequest("get_state", {}),
          headers: { "Content-Type": "application/ndjson", Authorization: `Bearer ${API_TOKEN}` }
        })))
      expect(untokened.status).toBe(401)
      expect(yield* Effect.promise(() => untokened.json())).toEqual({ error: "Unauthorized." })
    }))

  it.scoped("gives /api/call and /api/rpc the same sentence for the same bad payload", () =>
    Effect.gen(function*() {
      const controller = yield* inProcessController
      const browser = yield* Effect.promise(() =>
        controller.handle(webRequest("/api/call", {
          method: "POST",
          body: JSON.stringify({ name: "get_run", arguments: { run_id: 5 } }),
          headers: { "Content-Type": "application/json", Origin: ORIGIN, Authorization: `Bearer ${API_TOKEN}` }
        })))
      expect(browser.status).toBe(400)
      const rpc = yield* post(controller, rpcRequest("get_run", { run_id: 5 }), "application/json")
      const [exit] = (yield* Effect.promise(() => rpc.json())) as ReadonlyArray<{ exit: { cause: { error: { message: string } } } }>
      expect(((yield* Effect.promise(() => browser.json())) as { error: string }).error).toBe(exit?.exit.cause.error.message)
    }))
})
