import { spawn } from "node:child_process"
import { createHmac } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  browserHeaders,
  callTool,
  type Daemon,
  killAllDaemons,
  listTree,
  readState,
  request,
  scratch,
  sessionId,
  recentRuns,
  startDaemon,
  untilListed,
  untilNoticed,
  writeRun
} from "../../support/daemon.js"

const REQUIRED_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'"
]

const expectSecurityHeaders = (headers: Record<string, unknown>) => {
  expect(headers["cache-control"]).toBe("no-store")
  expect(headers["x-content-type-options"]).toBe("nosniff")
  expect(headers["x-frame-options"]).toBe("DENY")
  expect(headers["referrer-policy"]).toBe("no-referrer")
  for (const directive of REQUIRED_CSP) expect(String(headers["content-security-policy"])).toContain(directive)
}

describe("controller daemon over real HTTP", () => {
  let daemon: Daemon
  const foreignSession = sessionId()

  beforeAll(async () => {
    daemon = await startDaemon()
    writeRun(daemon.runRoot, "run-own-finished", {
      controller_session_id: daemon.sessionId,
      status: "completed",
      phase: "reporting"
    })
    writeRun(daemon.runRoot, "run-own-running", {
      controller_session_id: daemon.sessionId,
      status: "running",
      coordinator_pid: null
    })
    // Supervised by a live process (this test runner): another daemon's run, which this one leaves alone.
    writeRun(daemon.runRoot, "run-foreign", { controller_session_id: foreignSession, status: "running", coordinator_pid: process.pid })
    await untilListed(daemon.port, ["run-own-finished", "run-own-running"])
  })
  afterAll(async () => {
    await daemon?.stop()
    await killAllDaemons()
  })

  it("answers /health with its identity and an HMAC proof of the control token", async () => {
    const answer = await request(daemon.port, "/health?challenge=abc123")
    expect(answer.status).toBe(200)
    expectSecurityHeaders(answer.headers)
    const { control_token } = daemon.runtime()
    expect(answer.json).toMatchObject({
      server: "codex-replay",
      protocol_version: 1,
      controller_session_id: daemon.sessionId,
      pid: daemon.process.pid,
      active_runs: 0
    })
    expect(answer.json.proof).toBe(createHmac("sha256", control_token).update("abc123").digest("hex"))
    expect((await request(daemon.port, "/health")).json.proof).toBe("")
    expect((await request(daemon.port, "/health?challenge=zz")).json.proof).toBe(createHmac("sha256", control_token).update("zz").digest("hex"))
    expect((await request(daemon.port, "/health?other=1")).json.proof).toBe("")
  })

  it("keeps its runtime file private and complete", () => {
    const runtime = daemon.runtime()
    expect(fs.statSync(daemon.runtimePath).mode & 0o777).toBe(0o600)
    expect(fs.statSync(daemon.instanceDirectory).mode & 0o777).toBe(0o700)
    expect(fs.statSync(daemon.runRoot).mode & 0o777).toBe(0o700)
    expect(runtime).toMatchObject({ server: "codex-replay", protocol_version: 1, port: daemon.port, controller_session_id: daemon.sessionId })
    expect(runtime.control_token.length).toBeGreaterThanOrEqual(32)
  })

  it("answers 421 to any request whose Host is not exactly 127.0.0.1:PORT, before routing", async () => {
    for (const badHost of [`localhost:${daemon.port}`, "127.0.0.1", `127.0.0.1:${daemon.port + 1}`, "evil.example"]) {
      for (const [method, pathname] of [["GET", "/health"], ["GET", "/"], ["GET", "/nope"], ["POST", "/api/call"], ["POST", "/api/shutdown"]] as const) {
        const answer = await request(daemon.port, pathname, { method, host: badHost, headers: browserHeaders(daemon.port), body: "{}" })
        expect(answer.status, `${method} ${pathname} with Host ${badHost}`).toBe(421)
        expectSecurityHeaders(answer.headers)
      }
    }
  })

  it("serves the controller page and its assets with their content types, and 404 for anything else", async () => {
    const page = await request(daemon.port, "/", { headers: { Cookie: `codex_replay_${daemon.port}=${daemon.apiToken()}` }, token: null })
    expect(page.status).toBe(200)
    expect(page.headers["content-type"]).toBe("text/html; charset=utf-8")
    expect(page.text).toContain("<title>Codex Replay</title>")
    expect(page.text).not.toContain(daemon.runtime().control_token)
    expect(page.text).not.toContain(daemon.apiToken())
    const css = await request(daemon.port, "/controller.css")
    expect(css.headers["content-type"]).toBe("text/css; charset=utf-8")
    expect(css.text).toContain(":root")
    const js = await request(daemon.port, "/controller.js")
    expect(js.headers["content-type"]).toBe("text/javascript; charset=utf-8")
    expect((await request(daemon.port, "/?from=bookmark")).status).toBe(200)
    const literalOnly = ["/./controller.js", "/x/../controller.js", "//controller.js", "/controller.js/", "/%63ontroller.js", "http://127.0.0.1/controller.js"]
    for (const pathname of ["/nope", "/../package.json", "/%2e%2e/package.json", "/static/controller.js", "/api/call", ...literalOnly]) {
      const answer = await request(daemon.port, pathname)
      expect(answer.status, pathname).toBe(404)
      expectSecurityHeaders(answer.headers)
    }
    expect((await request(daemon.port, "/api/launch", { method: "POST", body: "{}" })).status).toBe(404)
  })

  it("requires the same Origin, JSON and a small JSON object on the browser endpoints", async () => {
    const origin = `http://127.0.0.1:${daemon.port}`
    const body = JSON.stringify({ name: "get_state", arguments: {} })
    const before = listTree(daemon.root)
    for (const pathname of ["/api/call", "/api/download", "/api/heartbeat"]) {
      const noOrigin = await request(daemon.port, pathname, { method: "POST", headers: { "Content-Type": "application/json" }, body })
      expect(noOrigin.status, `${pathname} without Origin`).toBe(403)
      const foreign = await request(daemon.port, pathname, { method: "POST", headers: { "Content-Type": "application/json", Origin: "https://example.com" }, body })
      expect(foreign.status).toBe(403)
      const localhost = await request(daemon.port, pathname, { method: "POST", headers: { "Content-Type": "application/json", Origin: `http://localhost:${daemon.port}` }, body })
      expect(localhost.status).toBe(403)
      const plain = await request(daemon.port, pathname, { method: "POST", headers: { "Content-Type": "text/plain", Origin: origin }, body })
      expect(plain.status, `${pathname} as text/plain`).toBe(415)
      const form = await request(daemon.port, pathname, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: origin }, body })
      expect(form.status).toBe(415)
    }
    const headers = browserHeaders(daemon.port)
    const tooLarge = await request(daemon.port, "/api/call", { method: "POST", headers, body: JSON.stringify({ name: "get_state", pad: "x".repeat(1024 * 1024) }) })
    expect(tooLarge.status).toBe(400)
    expect(tooLarge.json.content[0].text).toBe("The controller request body is too large.")
    const notJson = await request(daemon.port, "/api/call", { method: "POST", headers, body: "{not json" })
    expect(notJson.status).toBe(400)
    expect(notJson.json).toMatchObject({ isError: true, content: [{ type: "text", text: "The controller request must contain JSON." }] })
    for (const nonObject of ["[]", "\"text\"", "42", "null"]) {
      const answer = await request(daemon.port, "/api/call", { method: "POST", headers, body: nonObject })
      expect(answer.status).toBe(400)
      expect(answer.json.content[0].text).toBe("The controller request must be an object.")
    }
    expect(listTree(daemon.root)).toEqual(before)
    const heartbeatArray = await request(daemon.port, "/api/heartbeat", { method: "POST", headers, body: "[]" })
    expect(heartbeatArray.status).toBe(400)
    expect(heartbeatArray.json.content[0].text).toBe("The controller request must be an object.")
    for (const method of ["PUT", "DELETE", "PATCH"]) {
      const answer = await request(daemon.port, "/api/call", { method, headers, body })
      expect(answer.status, method).toBe(405)
      expect(answer.text).toBe("Method not allowed.")
      expectSecurityHeaders(answer.headers)
    }
    const charset = await request(daemon.port, "/api/heartbeat", { method: "POST", headers: { ...headers, "Content-Type": "application/json; charset=utf-8" }, body: "{}" })
    expect(charset.status).toBe(200)
  })

  it("answers a chunked body over 1 MiB with 400 rather than dropping the connection", async () => {
    const answer = await request(daemon.port, "/api/call", {
      method: "POST",
      headers: { ...browserHeaders(daemon.port), "Transfer-Encoding": "chunked" },
      body: Buffer.alloc(1024 * 1024 + 10, 0x20)
    })
    expect(answer.status).toBe(400)
    expect(answer.json.content[0].text).toBe("The controller request body is too large.")
  })

  it("dispatches get_state with this controller's runs only", async () => {
    const answer = await callTool(daemon.port, "get_state")
    expect(answer.status).toBe(200)
    const state = answer.json.structuredContent.state
    expect(state).toMatchObject({
      controller_session_id: daemon.sessionId,
      max_parallel_runs: 4,
      max_replay_threads: 100,
      run_root: daemon.runRoot
    })
    expect(typeof state.plugin_version).toBe("string")
    expect(Array.isArray(state.models)).toBe(true)
    expect(state.models.length).toBeGreaterThan(0)
    expect(state.recent_runs.map((run: { run_id: string }) => run.run_id).sort()).toEqual(["run-own-finished", "run-own-running"])
    expect(answer.json.content[0]).toEqual({ type: "text", text: "Codex Replay is ready." })
  })

  it("get_state follows runs that appear, change and go between two calls", async () => {
    const own = await startDaemon()
    try {
      const listed = (expected: Array<string>) => untilNoticed(async () => expect(await recentRuns(own.port)).toEqual(expected))
      expect(await recentRuns(own.port)).toEqual([])
      writeRun(own.runRoot, "run-appearing", { controller_session_id: own.sessionId, status: "running" })
      await listed(["run-appearing:running"])
      writeRun(own.runRoot, "run-appearing", { controller_session_id: own.sessionId, status: "completed" })
      await listed(["run-appearing:completed"])
      fs.rmSync(path.join(own.runRoot, "run-appearing"), { recursive: true })
      await listed([])
    } finally {
      await own.stop()
    }
  })

  it("get_run answers an owned run with its log tail and refuses bad, escaping, missing and foreign ids", async () => {
    const directory = path.join(daemon.runRoot, "run-own-finished")
    fs.writeFileSync(path.join(directory, "run.log"), `${"old line\n".repeat(20_000)}2026-01-01T00:00:00.000Z [controller] last line\n`)
    const answer = await callTool(daemon.port, "get_run", { run_id: "run-own-finished" })
    expect(answer.status).toBe(200)
    expect(answer.json.structuredContent.run.status).toBe("completed")
    const runLog: string = answer.json.structuredContent.run.run_log
    expect(Buffer.byteLength(runLog)).toBeLessThanOrEqual(128 * 1024)
    expect(runLog.endsWith("[controller] last line\n")).toBe(true)
    expect(runLog.startsWith("old line")).toBe(true)

    const outside = scratch("outside-")
    writeRun(outside, "elsewhere", { controller_session_id: daemon.sessionId })
    fs.symlinkSync(path.join(outside, "elsewhere"), path.join(daemon.runRoot, "run-link"))
    const before = listTree(daemon.root)
    // A malformed or refused id is the request's fault (400); a well-formed id of no run is not found (404).
    const refusals: Array<[string, number, string]> = [
      ["../outside", 400, "The run ID is invalid."],
      ["", 400, "The run ID is invalid."],
      ["run/../../x", 400, "The run ID is invalid."],
      [".hidden", 400, "The run ID is invalid."],
      ["run-missing", 404, "The replay run is unavailable."],
      ["run-link", 400, "The run directory is outside the configured run root."]
    ]
    for (const [runId, status, message] of refusals) {
      for (const tool of ["get_run", "cancel_run"]) {
        const refused = await callTool(daemon.port, tool, { run_id: runId })
        expect(refused.status, `${tool} ${runId}`).toBe(status)
        expect(refused.json.content[0].text).toBe(message)
      }
    }
    // Runs belong to the run root: another controller's run can be read, never cancelled from here.
    const foreign = await callTool(daemon.port, "get_run", { run_id: "run-foreign" })
    expect(foreign.status).toBe(200)
    expect(foreign.json.structuredContent.run.supervision).toMatchObject({ this_controller: false })
    const refused = await callTool(daemon.port, "cancel_run", { run_id: "run-foreign" })
    expect(refused.status).toBe(409)
    expect(refused.json.content[0].text).toMatch(/^The replay belongs to a different controller session \([a-f0-9]{32}\); only that controller can change it\.$/)
    expect(listTree(daemon.root)).toEqual(before)
    expect(readState(daemon.runRoot, "run-foreign").status).toBe("running")
    fs.rmSync(path.join(daemon.runRoot, "run-link"))
  })

  it("cancel_run marks a running run cancelled once and is idempotent afterwards", async () => {
    const first = await callTool(daemon.port, "cancel_run", { run_id: "run-own-running" })
    expect(first.status).toBe(200)
    expect(first.json.structuredContent).toMatchObject({ run_id: "run-own-running", idempotent: false })
    const state = readState(daemon.runRoot, "run-own-running")
    expect(state).toMatchObject({ status: "cancelled", error: "Cancelled by user.", cancellation_reason: "user_requested" })
    expect(state.completed_at).toBeTypeOf("string")
    expect(fs.readFileSync(path.join(daemon.runRoot, "run-own-running", "run.log"), "utf8")).toMatch(
      /^\S+Z \[controller\] implementing \[cancelled\]: The run was cancelled by the user\.$/m
    )
    const again = await callTool(daemon.port, "cancel_run", { run_id: "run-own-running" })
    expect(again.json.structuredContent.idempotent).toBe(true)
    expect(readState(daemon.runRoot, "run-own-running").updated_at).toBe(state.updated_at)
    const finished = await callTool(daemon.port, "cancel_run", { run_id: "run-own-finished" })
    expect(finished.json.structuredContent.idempotent).toBe(true)
    expect(readState(daemon.runRoot, "run-own-finished").status).toBe("completed")
  })

  it("answers a storage failure with a generic 500 and keeps the detail in its log", async () => {
    const directory = writeRun(daemon.runRoot, "run-broken-log", { controller_session_id: daemon.sessionId, status: "running" })
    // A directory where the log should be: appending to it fails (EISDIR) even for root, and so does reading it.
    fs.mkdirSync(path.join(directory, "run.log"))
    const answer = await callTool(daemon.port, "cancel_run", { run_id: "run-broken-log" })
    expect(answer.status).toBe(500)
    expect(answer.json).toMatchObject({ isError: true, content: [{ type: "text", text: "The local controller encountered an error." }] })
    expect(answer.text).not.toContain(directory)
    expectSecurityHeaders(answer.headers)
    for (let i = 0; i < 40 && !daemon.output().includes("Cannot write run.log"); i++) await new Promise((resolve) => setTimeout(resolve, 25))
    expect(daemon.output()).toContain("Cannot write run.log")
  })

  it("answers a damaged file of a run with a 500 that names it and says what to do, over /api/call and for a portfolio", async () => {
    const directory = writeRun(daemon.runRoot, "run-damaged-report", { controller_session_id: daemon.sessionId, status: "completed" })
    fs.writeFileSync(path.join(directory, "report.json"), "{\"winner\": ", { mode: 0o600 })
    fs.writeFileSync(path.join(directory, "report.html"), "<!doctype html><title>Report</title>", { mode: 0o600 })
    const answer = await callTool(daemon.port, "get_report", { run_id: "run-damaged-report" })
    expect(answer.status).toBe(500)
    expect(answer.json).toMatchObject({ isError: true })
    expect(answer.json.content[0].text).toMatch(/^The run's report\.json is not valid JSON .+; download report\.html instead, or replay the thread again\.$/)
    expect(answer.text).not.toContain(directory)
    expectSecurityHeaders(answer.headers)
    const portfolio = await callTool(daemon.port, "make_portfolio", { run_ids: ["run-damaged-report"] })
    expect(portfolio.status).toBe(500)
    expect(portfolio.json.content[0].text).toBe("The report of run run-damaged-report cannot be read.")
    // The state is untouched: a damaged report is answered, never repaired or removed.
    expect(readState(daemon.runRoot, "run-damaged-report").status).toBe("completed")
  })

  it("answers a failed read of its own files with a generic 500 too, not as the user's mistake", async () => {
    const directory = writeRun(daemon.runRoot, "run-unreadable-log", { controller_session_id: daemon.sessionId, status: "completed" })
    // A directory where the log should be: opening it works, reading it fails with EISDIR, even for root.
    fs.mkdirSync(path.join(directory, "run.log"))
    const before = fs.readFileSync(path.join(directory, "controller-state.json"), "utf8")
    const answer = await callTool(daemon.port, "get_run", { run_id: "run-unreadable-log" })
    expect(answer.status).toBe(500)
    expect(answer.json).toMatchObject({ isError: true, content: [{ type: "text", text: "The local controller encountered an error." }] })
    expect(answer.text).not.toContain("EISDIR")
    for (let i = 0; i < 40 && !daemon.output().includes("Cannot read run.log"); i++) await new Promise((resolve) => setTimeout(resolve, 25))
    expect(daemon.output()).toContain("Cannot read run.log")
    expect(fs.readFileSync(path.join(directory, "controller-state.json"), "utf8")).toBe(before)
    // A run that is simply not there is still the user's to hear about.
    const missing = await callTool(daemon.port, "get_run", { run_id: "run-that-never-was" })
    expect(missing.status).toBe(404)
    expect(missing.json.content[0].text).toBe("The replay run is unavailable.")
    // Nor is a plain file in the run root a run, for any tool or the download.
    fs.writeFileSync(path.join(daemon.runRoot, "notes.txt"), "not a run\n")
    for (const tool of ["get_run", "cancel_run", "get_report"]) {
      const answer = await callTool(daemon.port, tool, { run_id: "notes.txt" })
      expect(answer.status, tool).toBe(404)
      expect(answer.json.content[0].text, tool).toBe("The replay run is unavailable.")
    }
    const download = await request(daemon.port, "/api/download", { method: "POST", headers: browserHeaders(daemon.port), body: JSON.stringify({ run_id: "notes.txt", format: "json" }) })
    expect(download.status).toBe(404)
    expect(daemon.output()).not.toContain("notes.txt")
  })

  it("downloads report files of any size as attachments and refuses what it must", async () => {
    const directory = path.join(daemon.runRoot, "run-own-finished")
    const big = `{"original_request":"${"x".repeat(19 * 1024 * 1024 + 5)}"}\n`
    fs.writeFileSync(path.join(directory, "report.json"), big)
    fs.writeFileSync(path.join(directory, "report.html"), "<!doctype html><title>Replay report</title>")
    const headers = browserHeaders(daemon.port)
    const json = await request(daemon.port, "/api/download", { method: "POST", headers, body: JSON.stringify({ run_id: "run-own-finished", format: "json" }) })
    expect(json.status).toBe(200)
    expect(json.text.length).toBe(big.length)
    expect(json.headers["content-type"]).toBe("application/json; charset=utf-8")
    expect(json.headers["content-disposition"]).toBe('attachment; filename="codex-replay-run-own-finished-report.json"')
    expectSecurityHeaders(json.headers)
    const html = await request(daemon.port, "/api/download", { method: "POST", headers, body: JSON.stringify({ run_id: "run-own-finished", format: "html" }) })
    expect(html.headers["content-type"]).toBe("text/html; charset=utf-8")
    expect(html.text).toContain("Replay report")

    const secret = path.join(scratch("secret-"), "secret.html")
    fs.writeFileSync(secret, "secret")
    const linked = writeRun(daemon.runRoot, "run-linked-report", { controller_session_id: daemon.sessionId, status: "completed" })
    fs.symlinkSync(secret, path.join(linked, "report.html"))
    // A run that has not completed has no report yet: a conflict with its state (409), not a bad request.
    const refusals: Array<[unknown, number, string]> = [
      [{ run_id: "run-linked-report", format: "html" }, 400, "The replay report is outside its run directory."],
      [{ run_id: "run-own-running", format: "json" }, 409, "The replay report is not ready."],
      [{ run_id: "run-foreign", format: "json" }, 409, "The replay report is not ready."],
      [{ run_id: "run-own-finished", format: "pdf" }, 400, "format must be json or html."],
      [{ run_id: "run-own-finished" }, 400, "format must be json or html."],
      [{ format: "json" }, 400, "run_id is required."],
      [{ run_id: "../x", format: "json" }, 400, "The run ID is invalid."]
    ]
    const before = listTree(daemon.root)
    for (const [body, status, message] of refusals) {
      const answer = await request(daemon.port, "/api/download", { method: "POST", headers, body: JSON.stringify(body) })
      expect(answer.status, JSON.stringify(body)).toBe(status)
      expect(answer.json.content[0].text).toBe(message)
      expect(answer.text).not.toContain("secret")
    }
    expect(listTree(daemon.root)).toEqual(before)
  })

  it("refuses shutdown without the control token", async () => {
    for (const headers of [{}, { "X-Codex-Replay-Control": "wrong" }, { "X-Codex-Replay-Control": "" }]) {
      const answer = await request(daemon.port, "/api/shutdown", { method: "POST", headers, body: "{}" })
      expect(answer.status).toBe(401)
      expectSecurityHeaders(answer.headers)
    }
    expect(daemon.process.exitCode).toBeNull()
  })
})

describe("controller daemon lifecycle", () => {
  afterAll(killAllDaemons)

  it("answers 409 while a run is active, then stops cleanly on /api/shutdown", async () => {
    const sleeper = spawn("sleep", ["30"], { stdio: "ignore" })
    const daemon = await startDaemon()
    try {
      expect((await request(daemon.port, "/health")).json.active_runs).toBe(0)
      writeRun(daemon.runRoot, "run-active", { controller_session_id: daemon.sessionId, coordinator_pid: sleeper.pid })
      const token = daemon.runtime().control_token
      await untilNoticed(async () => expect((await request(daemon.port, "/health")).json.active_runs).toBe(1))
      const busy = await request(daemon.port, "/api/shutdown", { method: "POST", headers: { "X-Codex-Replay-Control": token }, body: "{}" })
      expect(busy.status).toBe(409)
      expect(busy.json.active_run).toBe(true)
      sleeper.kill("SIGKILL")
      await new Promise((resolve) => sleeper.once("exit", resolve))
      const stopping = await request(daemon.port, "/api/shutdown", { method: "POST", headers: { "X-Codex-Replay-Control": token }, body: "{}" })
      expect(stopping.status).toBe(200)
      expect(stopping.json).toEqual({ stopping: true })
      expect(await daemon.exited).toBe(0)
      expect(fs.existsSync(daemon.runtimePath)).toBe(false)
      expect(fs.existsSync(daemon.instanceDirectory)).toBe(false)
    } finally {
      sleeper.kill("SIGKILL")
      await daemon.stop()
    }
  })

  it("stops cleanly on SIGTERM and removes its runtime file", async () => {
    const daemon = await startDaemon()
    daemon.process.kill("SIGTERM")
    expect(await daemon.exited).toBe(0)
    expect(fs.existsSync(daemon.runtimePath)).toBe(false)
    expect(fs.existsSync(daemon.instanceDirectory)).toBe(false)
  })

  it("marks orphaned running runs of any session interrupted at start, ends their processes, and leaves a live daemon's runs alone", async () => {
    const root = scratch()
    const session = sessionId()
    const runRoot = path.join(root, "runs")
    const gone = spawn("true")
    await new Promise((resolve) => gone.once("exit", resolve))
    writeRun(runRoot, "run-orphan", { controller_session_id: session, coordinator_pid: gone.pid, run_tag: "orphan-tag-1" })
    writeRun(runRoot, "run-other", { controller_session_id: sessionId(), coordinator_pid: gone.pid })
    writeRun(runRoot, "run-other-live", { controller_session_id: sessionId(), coordinator_pid: process.pid })
    writeRun(runRoot, "run-done", { controller_session_id: session, status: "completed", coordinator_pid: gone.pid })
    const leftover = spawn("sleep", ["60"], { env: { ...process.env, CODEX_REPLAY_RUN_TAG: "orphan-tag-1" }, detached: true, stdio: "ignore" })
    const leftoverExit = new Promise((resolve) => leftover.once("exit", (code, signal) => resolve(signal)))
    const otherLiveBefore = fs.readFileSync(path.join(runRoot, "run-other-live", "controller-state.json"), "utf8")
    const daemon = await startDaemon({ root, sessionId: session })
    try {
      const orphan = readState(runRoot, "run-orphan")
      expect(orphan).toMatchObject({
        status: "failed",
        interrupted: true,
        failure_diagnostic: { controller_code: "coordinator_stopped", worker_stage: "outside_worker" }
      })
      expect(await leftoverExit).toBeTruthy()
      // A run of another session whose daemon is dead is cleaned up as well; one of a live daemon is not.
      expect(readState(runRoot, "run-other")).toMatchObject({ status: "failed", interrupted: true })
      expect(fs.readFileSync(path.join(runRoot, "run-other-live", "controller-state.json"), "utf8")).toBe(otherLiveBefore)
      expect(readState(runRoot, "run-done").status).toBe("completed")
    } finally {
      leftover.kill("SIGKILL")
      await daemon.stop()
    }
  })
})
