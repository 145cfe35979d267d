import { Effect, Option } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { LauncherLive } from "../../../src/layers.js"
import { ControllerClient } from "../../../src/services/ControllerClient.js"
import { afterAll, describe, expect, it } from "vitest"
import { request, type RequestOptions, sleep, treeSnapshot } from "../../support/daemon.js"
import {
  type Daemon,
  eventually,
  killAllDaemons,
  nonGitConfig,
  readLog,
  runDirectories,
  scratch,
  startDaemon
} from "../../runs/support.js"

const MESSAGE = "This controller needs its API token: open the address the controller printed."

afterAll(killAllDaemons)

const runtimeOf = (daemon: Daemon) =>
  JSON.parse(fs.readFileSync(path.join(daemon.root, "controllers", daemon.sessionId, "controller-server.json"), "utf8")) as {
    control_token: string
    api_token: string
  }

/** The headers a browser page of this controller sends (what a local process forges: Host is set by `request`). */
const pageHeaders = (daemon: Daemon) => ({ "Content-Type": "application/json", Origin: `http://127.0.0.1:${daemon.port}` })

/** A POST /api/call as the page would send it, with `auth` as the only credentials (or none). */
const forgedCall = (daemon: Daemon, name: string, args: unknown, auth: Record<string, string> = {}) =>
  request(daemon.port, "/api/call", {
    method: "POST",
    headers: { ...pageHeaders(daemon), ...auth },
    body: JSON.stringify({ name, arguments: args }),
    token: null
  })

/** Every request to the API, as its real clients send it but without the API token. */
const routes = (daemon: Daemon): ReadonlyArray<{ readonly name: string; readonly options: RequestOptions; readonly path: string; readonly right: number }> => {
  const { control_token } = runtimeOf(daemon)
  const page = pageHeaders(daemon)
  return [
    { name: "call", path: "/api/call", right: 200, options: { method: "POST", headers: page, body: JSON.stringify({ name: "get_state" }) } },
    { name: "download", path: "/api/download", right: 404, options: { method: "POST", headers: page, body: JSON.stringify({ run_id: "run-none", format: "html" }) } },
    { name: "heartbeat", path: "/api/heartbeat", right: 200, options: { method: "POST", headers: page, body: "{}" } },
    {
      name: "rpc",
      path: "/api/rpc",
      right: 200,
      options: {
        method: "POST",
        headers: { "Content-Type": "application/ndjson", "X-Codex-Replay-Control": control_token },
        body: JSON.stringify({ _tag: "Request", id: "1", tag: "get_state", payload: {}, headers: [] })
      }
    },
    { name: "an unknown POST", path: "/api/nothing", right: 404, options: { method: "POST", headers: page, body: "{}" } },
    { name: "a GET", path: "/api/call", right: 404, options: {} }
  ]
}

/** Credentials that are not this controller's API token, each as a header set. */
const wrongCredentials = (daemon: Daemon): ReadonlyArray<Record<string, string>> => {
  const { api_token, control_token } = runtimeOf(daemon)
  const other = api_token.replace(/^./, (first) => (first === "0" ? "1" : "0"))
  return [
    { Authorization: `Bearer ${other}` },
    { Authorization: `Bearer ${api_token.slice(0, 63)}` },
    { Authorization: `Bearer ${control_token}` },
    { Authorization: api_token },
    { "X-Codex-Replay-Control": control_token },
    { Cookie: `codex_replay_${daemon.port}=${other}` },
    // The right token in another port's cookie: cookies of 127.0.0.1 go to every port.
    { Cookie: `codex_replay_${daemon.port + 1}=${api_token}` }
  ]
}

describe("the controller's API token", () => {
  it("is 32 random bytes in hex in the private runtime file, apart from the control token", async () => {
    const daemon = await startDaemon()
    try {
      const file = path.join(daemon.root, "controllers", daemon.sessionId, "controller-server.json")
      const { api_token, control_token } = runtimeOf(daemon)
      expect(api_token).toMatch(/^[0-9a-f]{64}$/)
      expect(api_token).not.toBe(control_token)
      expect(fs.statSync(file).mode & 0o777).toBe(0o600)
      const other = await startDaemon()
      expect(runtimeOf(other).api_token).not.toBe(api_token)
      await other.stop()
    } finally {
      await daemon.stop()
    }
  })

  it("every API route answers 401 with one sentence without it or with a wrong one, writing nothing, and normally with it", async () => {
    const daemon = await startDaemon()
    try {
      const before = treeSnapshot(daemon.root)
      for (const route of routes(daemon)) {
        for (const auth of [{}, ...wrongCredentials(daemon)]) {
          const answer = await request(daemon.port, route.path, { ...route.options, headers: { ...route.options.headers, ...auth }, token: null })
          expect(answer.status, `${route.name} with ${JSON.stringify(Object.keys(auth))}`).toBe(401)
          expect(answer.json.error).toBe(MESSAGE)
          expect(answer.headers["x-frame-options"]).toBe("DENY")
        }
      }
      expect(treeSnapshot(daemon.root)).toEqual(before)
      for (const route of routes(daemon)) {
        const answer = await request(daemon.port, route.path, { ...route.options, token: daemon.apiToken() })
        expect(answer.status, route.name).toBe(route.right)
      }
      // The page's cookie works as the bearer header does.
      const byCookie = await request(daemon.port, "/api/call", {
        ...routes(daemon)[0]!.options,
        headers: { ...pageHeaders(daemon), Cookie: `other=1; codex_replay_${daemon.port}=${daemon.apiToken()}` },
        token: null
      })
      expect(byCookie.status).toBe(200)
      // Host and Origin are still checked with the token.
      expect((await request(daemon.port, "/api/call", { ...routes(daemon)[0]!.options, host: "localhost", token: daemon.apiToken() })).status).toBe(421)
      const foreign = { ...routes(daemon)[0]!.options, headers: { ...pageHeaders(daemon), Origin: "http://evil.example" } }
      expect((await request(daemon.port, "/api/call", { ...foreign, token: daemon.apiToken() })).status).toBe(403)
    } finally {
      await daemon.stop()
    }
  })

  it("/api/stop and /api/shutdown stop nothing without it and stop the controller with it", async () => {
    const daemon = await startDaemon()
    try {
      const { control_token } = runtimeOf(daemon)
      const stop = { method: "POST", headers: pageHeaders(daemon), body: "{}" }
      const shutdown = { method: "POST", headers: { "X-Codex-Replay-Control": control_token }, body: "{}" }
      for (const auth of [{}, ...wrongCredentials(daemon)]) {
        expect((await request(daemon.port, "/api/stop", { ...stop, headers: { ...stop.headers, ...auth }, token: null })).status).toBe(401)
        expect((await request(daemon.port, "/api/shutdown", { ...shutdown, headers: { ...shutdown.headers, ...auth }, token: null })).status).toBe(401)
      }
      await sleep(200)
      expect(daemon.child.exitCode).toBeNull()
      expect((await request(daemon.port, "/api/shutdown", { ...shutdown, token: daemon.apiToken() })).json).toEqual({ stopping: true })
      expect(await daemon.exited).toBe(0)
    } finally {
      await daemon.stop()
    }
  })

  it("/health proves the controller to anyone and tells only a token holder its version, process, session and runs", async () => {
    const daemon = await startDaemon()
    try {
      const open = await request(daemon.port, "/health?challenge=abc", { token: null })
      expect(open.status).toBe(200)
      expect(Object.keys(open.json).sort()).toEqual(["proof", "protocol_version", "server"])
      expect(open.json.proof).toMatch(/^[0-9a-f]{64}$/)
      const wrong = await request(daemon.port, "/health", { token: "0".repeat(64) })
      expect(Object.keys(wrong.json).sort()).toEqual(["proof", "protocol_version", "server"])
      const full = await request(daemon.port, "/health", { token: daemon.apiToken() })
      expect(full.json).toMatchObject({ controller_session_id: daemon.sessionId, pid: daemon.child.pid, active_runs: 0, version: expect.any(String) })
    } finally {
      await daemon.stop()
    }
  })
})

describe("runtime files", () => {
  it("a launcher reads the API token beside the control token, and still reads an older file without one", async () => {
    const root = scratch()
    const controllers = path.join(root, "controllers")
    const write = (session: string, fields: Record<string, unknown>) => {
      fs.mkdirSync(path.join(controllers, session), { recursive: true, mode: 0o700 })
      fs.writeFileSync(path.join(controllers, session, "controller-server.json"), JSON.stringify({ port: 40000, control_token: "c".repeat(64), ...fields }), { mode: 0o600 })
    }
    write("a".repeat(32), { api_token: "f".repeat(64) })
    write("b".repeat(32), {})
    write("d".repeat(32), { api_token: "not hex" })
    const read = (session: string) =>
      Effect.runPromise(Effect.flatMap(ControllerClient, (client) => client.readRuntime(controllers, session)).pipe(Effect.provide(LauncherLive)))
    expect(Option.getOrThrow(await read("a".repeat(32))).apiToken).toBe("f".repeat(64))
    expect(Option.getOrThrow(await read("b".repeat(32))).apiToken).toBeUndefined()
    expect(Option.isNone(await read("d".repeat(32)))).toBe(true)
  })
})

describe("the page and its cookie", () => {
  it("/?token=<token> sets an HttpOnly, SameSite=Strict cookie and sends the browser to /; a wrong token or none gets how to get in", async () => {
    const daemon = await startDaemon()
    try {
      const token = daemon.apiToken()
      const opened = await request(daemon.port, `/?token=${token}`, { token: null })
      expect(opened.status).toBe(303)
      expect(opened.headers.location).toBe("/")
      expect(opened.headers["set-cookie"]).toEqual([`codex_replay_${daemon.port}=${token}; Path=/; HttpOnly; SameSite=Strict`])
      const page = await request(daemon.port, "/", { headers: { Cookie: `codex_replay_${daemon.port}=${token}` }, token: null })
      expect(page.status).toBe(200)
      expect(page.text).toContain(`<script src="/controller.js" defer></script>`)
      for (const target of ["/", "/index.html", `/?token=${"0".repeat(64)}`, "/?token="]) {
        const refused = await request(daemon.port, target, { token: null })
        expect(refused.status, target).toBe(401)
        expect(refused.headers["set-cookie"]).toBeUndefined()
        expect(refused.headers["content-type"]).toBe("text/html; charset=utf-8")
        expect(refused.text).toContain("codex-replay open")
        expect(refused.text).not.toContain("controller.js")
      }
      // The page's assets stay open: the how-to-get-in page uses the stylesheet.
      expect((await request(daemon.port, "/controller.css", { token: null })).status).toBe(200)
    } finally {
      await daemon.stop()
    }
  })

  it("each view's address is the page behind the same cookie, and its ?token= redirect keeps the address without the token", async () => {
    const daemon = await startDaemon()
    try {
      const token = daemon.apiToken()
      const cookie = { headers: { Cookie: `codex_replay_${daemon.port}=${token}` }, token: null }
      const addresses = ["/threads/7f0c2d", "/threads/7f0c2d?range_start=2&range_end=5", "/runs/run-1", "/batches/batch-20261203T101500Z-0123456789", "/runs", "/runs?query=spotter&status=completed"]
      for (const address of addresses) {
        const page = await request(daemon.port, address, cookie)
        expect(page.status, address).toBe(200)
        expect(page.text, address).toContain(`<script src="/controller.js" defer></script>`)
        const refused = await request(daemon.port, address, { token: null })
        expect(refused.status, address).toBe(401)
        expect(refused.text, address).not.toContain("controller.js")
        const separator = address.includes("?") ? "&" : "?"
        const opened = await request(daemon.port, `${address}${separator}token=${token}`, { token: null })
        expect(opened.status, address).toBe(303)
        expect(opened.headers.location, address).toBe(address)
        expect(opened.headers["set-cookie"]).toEqual([`codex_replay_${daemon.port}=${token}; Path=/; HttpOnly; SameSite=Strict`])
      }
      const first = await request(daemon.port, `/runs?token=${token}&query=a%20b`, { token: null })
      expect(first.headers.location).toBe("/runs?query=a+b")
      for (const other of ["/threads", "/threads/a/b", "/batches", "/runs/a/b"]) {
        expect((await request(daemon.port, other, cookie)).status, other).toBe(404)
      }
    } finally {
      await daemon.stop()
    }
  })
})

describe("an agent on the same machine cannot drive the controller", () => {
  it("forged prepare_run, start_run, cancel_run, list_threads and inspect_thread answer 401 and change nothing; the token is never logged", async () => {
    const root = scratch()
    const daemon = await startDaemon({ root })
    try {
      const hanging = nonGitConfig({ request: "Create greet.py.\nfake-scenario: hang" })
      const prepared = await daemon.call("prepare_run", hanging)
      const { run_id } = await daemon.call("start_run", { ...hanging, approved: true, prepare_token: prepared.prepare_token })
      await eventually(() => ((daemon.call("get_run", { run_id })).then((answer) => answer.run.phase === "implementing" ? true : undefined)), 20_000, "implementing")
      const other = nonGitConfig({ model: "gpt-5.6-terra" })
      const otherToken = (await daemon.call("prepare_run", other)).prepare_token
      const runs = runDirectories(daemon.runRoot).sort()

      for (const auth of [{}, ...wrongCredentials(daemon)]) {
        for (const [name, args] of [
          ["cancel_run", { run_id }],
          ["prepare_run", nonGitConfig({ model: "gpt-5.6-luna" })],
          ["start_run", { ...other, approved: true, prepare_token: otherToken }],
          ["list_threads", { source: "sample" }],
          ["inspect_thread", { thread_id: "sample-hello-cli" }],
          ["get_report", { run_id }]
        ] as const) {
          const answer = await forgedCall(daemon, name, args, auth)
          expect(answer.status, name).toBe(401)
          expect(answer.text).toBe(JSON.stringify({ content: [{ type: "text", text: MESSAGE }], isError: true, error: MESSAGE }))
        }
      }
      expect(runDirectories(daemon.runRoot).sort()).toEqual(runs)
      expect((await daemon.call("get_run", { run_id })).run.status).toBe("running")
      // The prepared configuration was not spent by the forged start.
      const started = await daemon.call("start_run", { ...other, approved: true, prepare_token: otherToken })
      expect(started.run_id).not.toBe(run_id)
      expect((await daemon.call("cancel_run", { run_id })).run.status).toBe("cancelled")
      await daemon.call("cancel_run", { run_id: started.run_id })

      // The page's address with the token, and a wrong one, leave no trace of the token in any log.
      await request(daemon.port, `/?token=${daemon.apiToken()}`, { token: null })
      await request(daemon.port, `/?token=${"1".repeat(64)}`, { token: null })
      const token = daemon.apiToken()
      expect(daemon.output()).not.toContain(token)
      for (const id of [run_id, started.run_id]) expect(readLog(daemon.runRoot, id)).not.toContain(token)
      const logs = fs.readdirSync(path.join(root, "controllers", daemon.sessionId)).filter((name) => name.endsWith(".log"))
      for (const log of logs) expect(fs.readFileSync(path.join(root, "controllers", daemon.sessionId, log), "utf8")).not.toContain(token)
    } finally {
      await daemon.stop()
    }
  }, 90_000)

  it("forged heartbeats do not keep the controller from idling out", async () => {
    const daemon = await startDaemon({ env: { CODEX_REPLAY_CONTROLLER_IDLE_TIMEOUT_SECONDS: "2" } })
    try {
      const started = Date.now()
      let exited = false
      void daemon.exited.then(() => void (exited = true))
      while (!exited && Date.now() - started < 8000) {
        const beat = await request(daemon.port, "/api/heartbeat", { method: "POST", headers: pageHeaders(daemon), body: "{}", token: null }).catch(() => undefined)
        if (beat !== undefined) expect(beat.status).toBe(401)
        await sleep(200)
      }
      // Beaten every 200 ms, it still stopped on its own, about two seconds after its last real use.
      expect(exited).toBe(true)
    } finally {
      await daemon.stop()
    }
  }, 30_000)
})
