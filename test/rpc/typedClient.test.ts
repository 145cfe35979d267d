import { Effect } from "effect"
import * as http from "node:http"
import type * as net from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { ToolFailure } from "../../src/domain/errors.js"
import { type CallTool, makeRpcCaller } from "../../src/rpc/client.js"

// A server that records every request and answers 503: a payload refused by its contract must not reach it.
let listener: http.Server
let port = 0
let connections = 0

beforeAll(async () => {
  listener = http.createServer((_request, response) => {
    connections++
    response.writeHead(503).end()
  })
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve))
  port = (listener.address() as net.AddressInfo).port
})

afterAll(async () => {
  await new Promise<void>((resolve) => listener.close(() => resolve()))
})

/** Runs `use` with a typed client of a controller at the recording port and answers its failure. */
const failureOf = (use: (call: CallTool) => Effect.Effect<unknown, ToolFailure>) =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const call = yield* makeRpcCaller({ sessionId: "0".repeat(32), port, controlToken: "x".repeat(48) })
    return yield* Effect.flip(use(call))
  })))

describe("the RPC client is typed by the contracts", () => {
  it("refuses a misspelt payload field at compile time, and before sending when cast past the compiler", async () => {
    const failure = await failureOf((call) =>
      // @ts-expect-error `run_idd` is not a field of get_run's payload, and `run_id` is missing
      call("get_run", { run_idd: "run-1" }))
    expect(failure).toMatchObject({ _tag: "InvalidArgument", message: "run_id is required." })
    expect(connections).toBe(0)
  })

  it("checks literal fields and tool names against the contracts too", async () => {
    const kind = await failureOf((call) =>
      call("inspect_thread", {
        thread_id: "sample-hello-cli",
        // @ts-expect-error a beginning is "git", "non_git" or "" (unset)
        beginning_kind: "svn"
      }))
    expect(kind.message).toBe('beginning_kind must be Git or Non-Git ("git" or "non_git").')
    const tool = await failureOf((call) =>
      // @ts-expect-error open_controller is MCP's, not one of the controller's tools
      call("open_controller", { controller_session_id: "0".repeat(32) }))
    expect(tool.message).toBe("open_controller is only available through MCP.")
    const approval = await failureOf((call) =>
      call("start_run", {
        // @ts-expect-error a start needs `approved: true`, nothing else
        approved: "yes",
        prepare_token: "t".repeat(43),
        thread_id: "sample-hello-cli",
        request: "Do it.",
        beginning_kind: "non_git",
        ending_kind: "non_git",
        models: ["gpt-5.6-terra"]
      }))
    expect(approval.message).toBe("Explicit approval (approved: true) is required before starting a replay.")
    expect(connections).toBe(0)
  })

  it("sends a payload the contract accepts (null counts as absent): only the controller's answer fails it", async () => {
    const failure = await failureOf((call) => call("list_threads", { source: null, limit: 5, sort: "cost" }))
    expect(failure).toMatchObject({ _tag: "ControllerUnavailable", message: expect.stringMatching(/^The controller answered HTTP 503\. /) })
    expect(connections).toBeGreaterThan(0)
  })
})
