import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { API_TOKEN_MESSAGE } from "../../src/http/apiAccess.js"
import { API_TOKEN, CONTROL_TOKEN, inProcessController, type InProcessController, ORIGIN, PORT, SESSION_ID, webRequest } from "./support.js"

/** What every answer carries, whoever made it. */
const expectSecurityHeaders = (response: Response) => {
  expect(response.headers.get("cache-control")).toBe("no-store")
  expect(response.headers.get("x-content-type-options")).toBe("nosniff")
  expect(response.headers.get("x-frame-options")).toBe("DENY")
  expect(response.headers.get("content-security-policy")).toContain("frame-ancestors 'none'")
}

/** The page's headers: same origin, JSON, the API token. */
const PAGE = { "Content-Type": "application/json", Origin: ORIGIN, Authorization: `Bearer ${API_TOKEN}` }

const send = (controller: InProcessController, target: string, init: RequestInit & { readonly headers?: Record<string, string> } = {}) =>
  Effect.promise(() => controller.handle(webRequest(target, init)))

const json = (response: Response) => Effect.promise(() => response.json() as Promise<Record<string, unknown>>)

/** `/api/call` from the page; `body` is sent as it is when a string. */
const callFromPage = (controller: InProcessController, body: unknown, headers: Record<string, string> = PAGE) =>
  send(controller, "/api/call", { method: "POST", headers, body: typeof body === "string" ? body : JSON.stringify(body) })

/** The text `/api/call` answers a refused request with. */
const refusal = (response: Response) => Effect.map(json(response), (answer) => (answer.content as Array<{ text: string }>)[0]?.text)

describe("the daemon's HTTP app in-process: who may ask", () => {
  it.scoped("answers 421 to a request whose Host is not exactly 127.0.0.1:PORT, before routing", () =>
    Effect.gen(function*() {
      const controller = yield* inProcessController
      for (const host of [`localhost:${PORT}`, "127.0.0.1", `127.0.0.1:${PORT + 1}`]) {
        for (const [method, target] of [["GET", "/health"], ["POST", "/api/call"], ["POST", "/api/rpc"]] as const) {
          const answer = yield* send(controller, target, { method, headers: { ...PAGE, Host: host }, ...(method === "POST" ? { body: "{}" } : {}) })
          expect(answer.status, `${method} ${target} with Host ${host}`).toBe(421)
          expect(yield* Effect.promise(() => answer.text())).toBe("Invalid host.")
          expectSecurityHeaders(answer)
        }
      }
    }))

  it.scoped("answers 405 to another method", () =>
    Effect.gen(function*() {
      const controller = yield* inProcessController
      for (const method of ["PUT", "DELETE", "PATCH"]) {
        const answer = yield* send(controller, "/api/call", { method, headers: PAGE, body: "{}" })
        expect(answer.status, method).toBe(405)
        expectSecurityHeaders(answer)
      }
    }))

  it.scoped("refuses an API request without the API token or with a wrong one (401, one sentence), and takes the page's cookie", () =>
    Effect.gen(function*() {
      const controller = yield* inProcessController
      const body = { name: "get_state", arguments: {} }
      for (const authorization of [undefined, "", `Bearer ${API_TOKEN.slice(1)}`, `Bearer ${CONTROL_TOKEN}`, API_TOKEN]) {
        const headers: Record<string, string> = { "Content-Type": "application/json", Origin: ORIGIN }
        if (authorization !== undefined) headers.Authorization = authorization
        const answer = yield* callFromPage(controller, body, headers)
        expect(answer.status, String(authorization)).toBe(401)
        expect((yield* json(answer)).error).toBe(API_TOKEN_MESSAGE)
        expectSecurityHeaders(answer)
      }
      const byCookie = yield* callFromPage(controller, body, {
        "Content-Type": "application/json",
        Origin: ORIGIN,
        Cookie: `other=1; codex_replay_${PORT}=${API_TOKEN}`
      })
      expect(byCookie.status).toBe(200)
    }))

  it.scoped("requires the control token as well on /api/rpc and /api/shutdown", () =>
    Effect.gen(function*() {
      const controller = yield* inProcessController
      for (const target of ["/api/rpc", "/api/shutdown"]) {
        for (const control of [undefined, "", `${CONTROL_TOKEN}x`, API_TOKEN]) {
          const headers: Record<string, string> = { "Content-Type": "application/ndjson", Authorization: `Bearer ${API_TOKEN}` }
          if (control !== undefined) headers["X-Codex-Replay-Control"] = control
          const answer = yield* send(controller, target, { method: "POST", headers, body: "{}" })
          expect(answer.status, `${target} with ${String(control)}`).toBe(401)
          expect(yield* json(answer)).toEqual({ error: "Unauthorized." })
        }
      }
    }))

  it.scoped("refuses the browser endpoints from another origin (403) or without JSON (415)", () =>
    Effect.gen(function*() {
      const controller = yield* inProcessController
      const body = JSON.stringify({ name: "get_state", arguments: {} })
      for (const target of ["/api/call", "/api/download", "/api/heartbeat"]) {
        for (const origin of [undefined, "https://example.com", `http://localhost:${PORT}`]) {
          const headers: Record<string, string> = { "Content-Type": "application/json", Authorization: `Bearer ${API_TOKEN}` }
          if (origin !== undefined) headers.Origin = origin
          const answer = yield* send(controller, target, { method: "POST", headers, body })
          expect(answer.status, `${target} from ${String(origin)}`).toBe(403)
          expect(yield* refusal(answer)).toBe("Invalid origin.")
        }
        for (const type of ["text/plain", "application/x-www-form-urlencoded"]) {
          const answer = yield* send(controller, target, { method: "POST", headers: { ...PAGE, "Content-Type": type }, body })
          expect(answer.status, `${target} as ${type}`).toBe(415)
        }
      }
    }))

  it.scoped("/health proves the controller to anyone and tells only a token holder its session", () =>
    Effect.gen(function*() {
      const controller = yield* inProcessController
      const open = yield* send(controller, "/health?challenge=abc")
      expect(open.status).toBe(200)
      expect(Object.keys(yield* json(open)).sort()).toEqual(["proof", "protocol_version", "server"])
      const full = yield* send(controller, "/health", { headers: { Authorization: `Bearer ${API_TOKEN}` } })
      expect(yield* json(full)).toMatchObject({ controller_session_id: SESSION_ID, active_runs: 0, version: expect.any(String) })
    }))
})

describe("the daemon's HTTP app in-process: /api/call", () => {
  it.scoped("answers get_state with the tool's text and its typed result", () =>
    Effect.gen(function*() {
      const controller = yield* inProcessController
      const answer = yield* callFromPage(controller, { name: "get_state", arguments: {} })
      expect(answer.status).toBe(200)
      expectSecurityHeaders(answer)
      const body = yield* json(answer)
      expect(body.content).toEqual([{ type: "text", text: "Codex Replay is ready." }])
      expect(body.structuredContent).toMatchObject({ state: { controller_session_id: SESSION_ID, run_root: "/memory/runs", recent_runs: [] } })
    }))

  it.scoped("answers list_runs, and a user error with its kind's status", () =>
    Effect.gen(function*() {
      const controller = yield* inProcessController
      const listed = yield* callFromPage(controller, { name: "list_runs", arguments: {} })
      expect(listed.status).toBe(200)
      expect((yield* json(listed)).structuredContent).toMatchObject({ total: 0, limit: 50 })
      const missing = yield* callFromPage(controller, { name: "get_run", arguments: { run_id: "no-such-run" } })
      expect(missing.status).toBe(404)
      expect(yield* refusal(missing)).toBe("The replay run is unavailable.")
    }))

  it.scoped("rejects unknown tools, open_controller and malformed arguments with a clear 400, writing nothing", () =>
    Effect.gen(function*() {
      const controller = yield* inProcessController
      const cases: ReadonlyArray<readonly [unknown, string]> = [
        [{ name: "drop_tables", arguments: {} }, "Unknown Codex Replay tool: drop_tables"],
        [{ name: "open_controller", arguments: {} }, "open_controller is only available through MCP."],
        [{ name: "__proto__", arguments: {} }, "Unknown Codex Replay tool: __proto__"],
        [{ arguments: {} }, "name is required."],
        [{ name: "get_run", arguments: [] }, "Controller action arguments must be an object."],
        [{ name: "get_run", arguments: {} }, "run_id is required."],
        [{ name: "get_run", arguments: { run_id: 7 } }, "run_id: Expected string, actual 7"],
        [{ name: "list_runs", arguments: { status: "done" } }, "status: must be one of running, completed, failed, cancelled."]
      ]
      const before = controller.files.filesBelow("/")
      for (const [body, message] of cases) {
        const answer = yield* callFromPage(controller, body)
        expect(answer.status, JSON.stringify(body)).toBe(400)
        expect(yield* refusal(answer)).toBe(message)
        expectSecurityHeaders(answer)
      }
      expect(controller.files.filesBelow("/")).toEqual(before)
    }))

  it.scoped("refuses a body that is not one JSON object of at most 1 MiB", () =>
    Effect.gen(function*() {
      const controller = yield* inProcessController
      const notJson = yield* callFromPage(controller, "{not json")
      expect(notJson.status).toBe(400)
      expect(yield* refusal(notJson)).toBe("The controller request must contain JSON.")
      for (const nonObject of ["[]", "\"text\"", "42", "null"]) {
        const answer = yield* callFromPage(controller, nonObject)
        expect(answer.status, nonObject).toBe(400)
        expect(yield* refusal(answer)).toBe("The controller request must be an object.")
      }
      const tooLarge = yield* callFromPage(controller, { name: "get_state", pad: "x".repeat(1024 * 1024) })
      expect(tooLarge.status).toBe(400)
      expect(yield* refusal(tooLarge)).toBe("The controller request body is too large.")
    }))

  it.scoped("answers a heartbeat with the session and its interval", () =>
    Effect.gen(function*() {
      const controller = yield* inProcessController
      const answer = yield* send(controller, "/api/heartbeat", { method: "POST", headers: PAGE, body: "{}" })
      expect(answer.status).toBe(200)
      expect(yield* json(answer)).toEqual({ ok: true, controller_session_id: SESSION_ID, heartbeat_interval_seconds: 15 })
    }))
})
