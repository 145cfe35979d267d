import { Chunk, Effect, Either, Fiber, Schema, Stream } from "effect"
import * as fs from "node:fs"
import * as http from "node:http"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { StateResult, ThreadList, type ToolName } from "../../../src/domain/contracts/index.js"
import { isControllerError, type ToolFailure } from "../../../src/domain/errors.js"
import { LauncherLive } from "../../../src/layers.js"
import { findController, makeControllerRpcClient, makeRpcCaller } from "../../../src/rpc/client.js"
import { type Daemon, scratch, startDaemon, treeSnapshot } from "../../rpc/support.js"
import { isAlive, writeRun } from "../../support/daemon.js"
import { describeLeftBehind, fakeCodexPids, leftBehind } from "../../support/fakeCodexPids.js"

let daemon: Daemon

beforeAll(async () => {
  daemon = await startDaemon()
})

afterAll(async () => {
  await daemon?.stop()
})

/**
 * Calls a tool through the real RPC client, with the daemon's token (or another one). The client is
 * typed by the contracts; these tests send what no compiler would let through, hence the casts.
 */
const call = (name: string, payload: unknown, token = daemon.token, apiToken = daemon.apiToken) =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const caller = yield* makeRpcCaller({ sessionId: daemon.sessionId, port: daemon.port, controlToken: token, apiToken })
    return yield* Effect.either(caller(name as ToolName, payload as never))
  })))

const success = <A>(answer: Either.Either<A, ToolFailure>) => {
  if (Either.isLeft(answer)) throw new Error(`Expected a result, got: ${answer.left.message}`)
  return answer.right
}

const failure = <A>(answer: Either.Either<A, ToolFailure>) => {
  if (Either.isRight(answer)) throw new Error(`Expected a ControllerError, got: ${JSON.stringify(answer.right)}`)
  expect(isControllerError(answer.left)).toBe(true)
  return answer.left.message
}

/** Runs a test's requests and proves they left every file of the daemon's installation as it was. */
const writesNothing = (run: () => Promise<void>) => async () => {
  const before = treeSnapshot(daemon.root)
  await run()
  expect(treeSnapshot(daemon.root)).toEqual(before)
}

/** A raw POST to /api/rpc. */
const post = (body: string, headers: Record<string, string> = {}) =>
  fetch(`${daemon.origin}/api/rpc`, {
    method: "POST",
    headers: { "Content-Type": "application/ndjson", "X-Codex-Replay-Control": daemon.token, Authorization: `Bearer ${daemon.apiToken}`, ...headers },
    body
  })

const request = (tag: string, payload: unknown, id = "7") =>
  JSON.stringify({ _tag: "Request", id, tag, payload, headers: [] })

describe("POST /api/rpc through the RPC client", () => {
  it("answers list_runs with every run of the run root, and refuses a bad filter with a typed error", writesNothing(async () => {
    const listed = success(await call("list_runs", {}))
    expect(listed).toMatchObject({ total: 0, limit: 50 })
    expect(failure(await call("list_runs", { status: "done" }))).toBe("status: must be one of running, completed, failed, cancelled.")
  }))

  it("answers get_state with this controller's identity", async () => {
    // The procedure answers the typed result (StateResult); the text is /api/call's and MCP's rendering.
    const { state } = Schema.decodeUnknownSync(StateResult)(success(await call("get_state", {})))
    expect(state.controller_session_id).toBe(daemon.sessionId)
    expect(state.run_root).toBe(daemon.runRoot)
    expect(state.batch).toBeNull()
  })

  it("lists and searches the imported threads of the fixtures", async () => {
    const all = Schema.decodeUnknownSync(ThreadList)(success(await call("list_threads", { limit: 100 })))
    expect(all.total).toBeGreaterThan(1)
    const first = all.threads[0]!
    const found = Schema.decodeUnknownSync(ThreadList)(success(await call("list_threads", { query: first.imported_thread_id })))
    expect(found.total).toBe(1)
    expect(found.threads[0]?.imported_thread_id).toBe(first.imported_thread_id)
  })

  it("refuses a wrong control or API token (401) as a clear client error", writesNothing(async () => {
    expect(failure(await call("get_state", {}, "x".repeat(64)))).toBe(
      "The controller refused its API or control token (HTTP 401)."
    )
    expect(failure(await call("get_state", {}, daemon.token, "0".repeat(64)))).toBe(
      "The controller refused its API or control token (HTTP 401)."
    )
  }))
})

describe("an embedding program", () => {
  it("finds the controller by the address it printed and calls it with the tokens of its runtime file", async () => {
    const result = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const controller = yield* findController(daemon.env, daemon.root, daemon.launchUrl)
      const caller = yield* makeRpcCaller(controller)
      return { controller, state: yield* caller("get_state", {}) }
    })).pipe(Effect.provide(LauncherLive)))
    expect(result.controller).toMatchObject({ sessionId: daemon.sessionId, port: daemon.port, apiToken: daemon.apiToken })
    expect(result.state.state.controller_session_id).toBe(daemon.sessionId)
  })
})

describe("watch_run over /api/rpc", () => {
  /** Every state the stream sends for a run, `status`, until it ends; `onState` hears each as it comes. */
  const watched = (runId: string, onState: (status: string) => void = () => {}) =>
    Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const client = yield* makeControllerRpcClient({ sessionId: daemon.sessionId, port: daemon.port, controlToken: daemon.token, apiToken: daemon.apiToken })
      const statuses = Stream.map(client.watchRun(runId), (state) => state.status).pipe(Stream.tap((status) => Effect.sync(() => onState(status))))
      return yield* Effect.either(Stream.runCollect(statuses))
    })))

  it("follows a run until it ends: each state once, the final one last", async () => {
    writeRun(daemon.runRoot, "run-watched", { controller_session_id: daemon.sessionId, status: "running" })
    let heard: () => void = () => {}
    const first = new Promise<void>((resolve) => (heard = resolve))
    const following = watched("run-watched", () => heard())
    await first
    writeRun(daemon.runRoot, "run-watched", { controller_session_id: daemon.sessionId, status: "completed", phase: "reporting" })
    const statuses = await following
    if (Either.isLeft(statuses)) throw new Error(statuses.left.message)
    expect(Chunk.toReadonlyArray(statuses.right)).toEqual(["running", "completed"])
    // A run that has ended answers its final state alone.
    const again = await watched("run-watched")
    expect(Either.map(again, Chunk.toReadonlyArray)).toEqual(Either.right(["completed"]))
  })

  it("refuses an unknown or invalid run with a typed error", writesNothing(async () => {
    const missing = await watched("run-that-never-was")
    expect(Either.isLeft(missing) && missing.left._tag).toBe("NotFound")
    const invalid = await watched("../escape")
    expect(Either.isLeft(invalid) && invalid.left.message).toBe("The run ID is invalid.")
  }))
})

describe("POST /api/rpc at the HTTP edge", () => {
  it("requires the control token (401) and keeps the security headers", writesNothing(async () => {
    const missing = await post(request("get_state", {}), { "X-Codex-Replay-Control": "" })
    expect(missing.status).toBe(401)
    expect(await missing.json()).toEqual({ error: "Unauthorized." })
    expect(missing.headers.get("x-frame-options")).toBe("DENY")
    const wrong = await post(request("get_state", {}), { "X-Codex-Replay-Control": `${daemon.token}x` })
    expect(wrong.status).toBe(401)
  }))

  it("requires the API token (401) even with the control token, and reads nothing", writesNothing(async () => {
    for (const authorization of ["", `Bearer ${daemon.apiToken.slice(1)}`, `Bearer ${daemon.token}`, daemon.apiToken]) {
      const refused = await post(request("get_state", {}), { Authorization: authorization })
      expect(refused.status).toBe(401)
      expect(((await refused.json()) as { error: string }).error).toBe(
        "This controller needs its API token: open the address the controller printed."
      )
    }
  }))

  it("applies the Host check (421)", writesNothing(async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request({
        host: "127.0.0.1",
        port: daemon.port,
        path: "/api/rpc",
        method: "POST",
        headers: { Host: `localhost:${daemon.port}`, "Content-Type": "application/ndjson", "X-Codex-Replay-Control": daemon.token, Authorization: `Bearer ${daemon.apiToken}` }
      }, (res) => {
        res.resume()
        resolve(res.statusCode ?? 0)
      })
      req.once("error", reject)
      req.end(request("get_state", {}))
    })
    expect(status).toBe(421)
  }))

  // What the RPC server answers for the messages it reads (a payload its tool's Schema refuses, a body
  // it cannot read, an unknown tag) is tested in-process: test/rpc/server.test.ts.
  it("refuses an unsupported content type (415) before reading the body", writesNothing(async () => {
    const response = await post(request("get_state", {}), { "Content-Type": "text/plain" })
    expect(response.status).toBe(415)
    expect(await response.json()).toEqual({ error: "Expected application/json or application/ndjson." })
  }))

  it("refuses a body over 1 MiB before reading it", writesNothing(async () => {
    const big = request("list_threads", { query: "x".repeat(8 * 1024 * 1024) })
    const response = await post(big)
    expect(response.status).toBe(400)
    expect(await response.json()).toEqual({ error: "The RPC request body is too large." })
  }))

  it("accepts a small chunked body", async () => {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(`${request("get_state", {}, "9")}\n`))
        controller.close()
      }
    })
    const response = await fetch(`${daemon.origin}/api/rpc`, {
      method: "POST",
      headers: { "Content-Type": "application/ndjson", "X-Codex-Replay-Control": daemon.token, Authorization: `Bearer ${daemon.apiToken}` },
      body,
      duplex: "half"
    } as RequestInit)
    expect(response.status).toBe(200)
    const message = JSON.parse((await response.text()).trim()) as { requestId: string; exit: { _tag: string } }
    expect(message).toMatchObject({ requestId: "9", exit: { _tag: "Success" } })
  })

  it("refuses a chunked body that grows past 1 MiB", writesNothing(async () => {
    const chunk = new TextEncoder().encode("x".repeat(256 * 1024))
    let sent = 0
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 8) controller.enqueue(chunk)
        else controller.close()
      }
    })
    const response = await fetch(`${daemon.origin}/api/rpc`, {
      method: "POST",
      headers: { "Content-Type": "application/ndjson", "X-Codex-Replay-Control": daemon.token, Authorization: `Bearer ${daemon.apiToken}` },
      body,
      duplex: "half"
    } as RequestInit)
    expect(response.status).toBe(400)
    expect(await response.json()).toEqual({ error: "The RPC request body is too large." })
  }))
})

/** A fixture thread of several prompts, whose request is reconstructed by the Codex worker. */
const MULTI_PROMPT_THREAD = "c45af7b1-cb7c-4e51-93db-8cbb250a877a"

/**
 * Against a daemon whose Codex hangs: `begin` starts a `synthesize_request` call and returns how to
 * drop it; once Codex is running the call is dropped, and every Codex process must be gone soon after.
 */
const expectDroppedCallEndsCodex = async (begin: (hanging: Daemon) => () => Promise<void>) => {
  const root = scratch("codex-replay-interrupt-")
  const pidfile = path.join(root, "fake.pids")
  const hanging = await startDaemon({ FAKE_CODEX_SCENARIO: "hang", FAKE_CODEX_PIDFILE: pidfile })
  try {
    const drop = begin(hanging)
    const deadline = Date.now() + 15_000
    while (!fs.existsSync(pidfile) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
    const pids = fakeCodexPids(pidfile)
    expect(pids.length).toBe(2)
    expect(pids.every(isAlive)).toBe(true)
    await drop()
    const gone = Date.now() + 10_000
    while (leftBehind(pidfile, pids).length > 0 && Date.now() < gone) await new Promise((resolve) => setTimeout(resolve, 50))
    expect(describeLeftBehind(pidfile, pids)).toEqual([])
    expect((await fetch(`${hanging.origin}/health`)).status).toBe(200)
  } finally {
    await hanging.stop()
    fs.rmSync(root, { recursive: true, force: true })
  }
}

describe("interrupting a call", () => {
  it("over /api/rpc reaches the server: interrupting the client's call ends the Codex process it started", () =>
    expectDroppedCallEndsCodex((hanging) => {
      const fiber = Effect.runFork(Effect.scoped(Effect.gen(function*() {
        const caller = yield* makeRpcCaller({ sessionId: hanging.sessionId, port: hanging.port, controlToken: hanging.token, apiToken: hanging.apiToken })
        return yield* caller("synthesize_request", { thread_id: MULTI_PROMPT_THREAD })
      })))
      return () => Effect.runPromise(Fiber.interrupt(fiber)).then(() => undefined)
    }))

  it("over /api/call: a request the browser drops ends the Codex process its tool started", () =>
    expectDroppedCallEndsCodex((hanging) => {
      const aborter = new AbortController()
      const call = fetch(`${hanging.origin}/api/call`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Origin: hanging.origin, Authorization: `Bearer ${hanging.apiToken}` },
        body: JSON.stringify({ name: "synthesize_request", arguments: { thread_id: MULTI_PROMPT_THREAD } }),
        signal: aborter.signal
      }).catch((error: unknown) => error)
      return async () => {
        aborter.abort()
        expect(await call).toBeInstanceOf(Error)
      }
    }))
})

describe("POST /api/rpc when the controller's own storage fails", () => {
  it("answers that call with a typed internal error, logs the detail, and the client keeps working", async () => {
    const directory = writeRun(daemon.runRoot, "run-unreadable-log", { controller_session_id: daemon.sessionId, status: "completed" })
    fs.mkdirSync(path.join(directory, "run.log"))
    const answers = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const caller = yield* makeRpcCaller({ sessionId: daemon.sessionId, port: daemon.port, controlToken: daemon.token, apiToken: daemon.apiToken })
      const broken = yield* Effect.either(caller("get_run", { run_id: "run-unreadable-log" }))
      const after = yield* Effect.either(caller("get_state", {}))
      return { broken, after }
    })))
    if (Either.isRight(answers.broken)) throw new Error("Expected the storage failure to fail the call.")
    expect(answers.broken.left).toMatchObject({ _tag: "StorageError", message: "The local controller encountered an error." })
    expect(success(answers.after)).toMatchObject({ state: { controller_session_id: daemon.sessionId } })
    const deadline = Date.now() + 2_000
    while (!daemon.output().includes("Cannot read run.log") && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25))
    expect(daemon.output()).toContain("Cannot read run.log")
  })

  it("a plain file in the run root is no run: the user hears so, nothing is logged as an error", async () => {
    fs.writeFileSync(path.join(daemon.runRoot, "notes.txt"), "not a run\n")
    expect(failure(await call("get_run", { run_id: "notes.txt" }))).toBe("The replay run is unavailable.")
    expect(failure(await call("cancel_run", { run_id: "notes.txt" }))).toBe("The replay run is unavailable.")
    expect(daemon.output()).not.toContain("notes.txt")
  })
})

describe("a Codex CLI that is not there", () => {
  it("answers synthesize_request with CodexUnavailable (503) saying how to install it and log in, over /api/call and /api/rpc", async () => {
    const missing = "/nonexistent/bin/codex"
    const broken = await startDaemon({ CODEX_CLI_PATH: missing })
    try {
      const answer = await fetch(`${broken.origin}/api/call`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Origin: broken.origin, Authorization: `Bearer ${broken.apiToken}` },
        body: JSON.stringify({ name: "synthesize_request", arguments: { thread_id: MULTI_PROMPT_THREAD } })
      })
      expect(answer.status).toBe(503)
      const expected = `Cannot run the Codex CLI (The Codex CLI ${missing} does not exist or is not executable). ` +
        "Install it (npm install -g @openai/codex) or set CODEX_CLI_PATH, then run `codex login`."
      expect(await answer.json()).toMatchObject({ isError: true, content: [{ type: "text", text: expected }] })
      const typed = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
        const caller = yield* makeRpcCaller({ sessionId: broken.sessionId, port: broken.port, controlToken: broken.token, apiToken: broken.apiToken })
        return yield* Effect.either(caller("synthesize_request", { thread_id: MULTI_PROMPT_THREAD }))
      })))
      expect(Either.isLeft(typed) && typed.left).toMatchObject({ _tag: "CodexUnavailable", message: expected })
    } finally {
      await broken.stop()
    }
  })
})
