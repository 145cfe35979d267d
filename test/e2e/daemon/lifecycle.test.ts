import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import * as net from "node:net"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import {
  browserHeaders,
  callTool,
  freePort,
  killAllDaemons,
  listTree,
  readState,
  request,
  runDaemonToExit,
  scratch,
  sessionId,
  sleep,
  startDaemon,
  untilNoticed,
  writeRun
} from "../../support/daemon.js"

afterAll(killAllDaemons)

const runWithEnv = (env: Record<string, string>) => runDaemonToExit(env)

describe("idle shutdown", () => {
  it("a heartbeat delays the idle shutdown, which then removes the runtime file and instance directory", async () => {
    const daemon = await startDaemon({ env: { CODEX_REPLAY_CONTROLLER_IDLE_TIMEOUT_SECONDS: "2" } })
    await sleep(1000)
    const beat = await request(daemon.port, "/api/heartbeat", { method: "POST", headers: browserHeaders(daemon.port), body: "{}" })
    expect(beat.status).toBe(200)
    // Past the first deadline, with a second to spare before the one the heartbeat set (a busy machine).
    await sleep(1000)
    expect(daemon.process.exitCode, "a recent heartbeat was ignored").toBeNull()
    const started = Date.now()
    expect(await daemon.exited).toBe(0)
    expect(Date.now() - started).toBeLessThan(4000)
    expect(fs.existsSync(daemon.runtimePath)).toBe(false)
    expect(fs.existsSync(daemon.instanceDirectory)).toBe(false)
  })

  it("an active run keeps the daemon alive; shutdown comes a full timeout after the run ends", async () => {
    const sleeper = spawn("sleep", ["60"], { stdio: "ignore" })
    const root = scratch()
    const session = sessionId()
    writeRun(path.join(root, "runs"), "run-active", { controller_session_id: session, coordinator_pid: sleeper.pid })
    const daemon = await startDaemon({ root, sessionId: session, env: { CODEX_REPLAY_CONTROLLER_IDLE_TIMEOUT_SECONDS: "0.5" } })
    try {
      await sleep(1500)
      expect(daemon.process.exitCode, "an active replay was abandoned").toBeNull()
      expect((await request(daemon.port, "/health")).json.active_runs).toBe(1)
      sleeper.kill("SIGKILL")
      const ended = Date.now()
      expect(await daemon.exited).toBe(0)
      expect(Date.now() - ended, "the daemon skipped its post-run idle period").toBeGreaterThanOrEqual(450)
      expect(fs.existsSync(daemon.runtimePath)).toBe(false)
    } finally {
      sleeper.kill("SIGKILL")
      await daemon.stop()
    }
  })
})

describe("recovery with a reused pid", () => {
  it("a running run whose coordinator pid now belongs to another process is marked interrupted at start", async () => {
    const stranger = spawn("sleep", ["30"], { stdio: "ignore" })
    const root = scratch()
    const session = sessionId()
    writeRun(path.join(root, "runs"), "run-reused-pid", {
      controller_session_id: session,
      coordinator_pid: stranger.pid,
      coordinator_start_time: 1
    })
    const daemon = await startDaemon({ root, sessionId: session })
    try {
      expect(readState(daemon.runRoot, "run-reused-pid")).toMatchObject({ status: "failed", interrupted: true })
      expect(stranger.exitCode).toBeNull()
    } finally {
      stranger.kill("SIGKILL")
      await daemon.stop()
    }
  })
})

describe("shutdown with no request open", () => {
  it("with no request open, SIGTERM ends the daemon without waiting out the grace given to open requests", async () => {
    const daemon = await startDaemon()
    // The test client sends Connection: close, so a finished request leaves no connection open.
    expect((await request(daemon.port, "/health")).status).toBe(200)
    const stopping = Date.now()
    daemon.process.kill("SIGTERM")
    expect(await daemon.exited).toBe(0)
    // The grace for open requests is 2 s; a stop that waited it out took 2.1 s.
    expect(Date.now() - stopping).toBeLessThan(1500)
    expect(fs.existsSync(daemon.runtimePath)).toBe(false)
  })
})

describe("shutdown with a stalled client", () => {
  it("a download the client stopped reading does not keep the daemon from exiting", async () => {
    const daemon = await startDaemon()
    const directory = writeRun(daemon.runRoot, "run-big", { controller_session_id: daemon.sessionId, status: "completed" })
    fs.writeFileSync(path.join(directory, "report.html"), Buffer.alloc(64 * 1024 * 1024, 0x61))
    const stalled = new Promise<void>((resolve) => {
      const req = http.request({
        host: "127.0.0.1",
        port: daemon.port,
        path: "/api/download",
        method: "POST",
        agent: false,
        headers: browserHeaders(daemon.port)
      }, (res) => {
        res.pause()
        resolve()
      })
      req.on("error", () => undefined)
      req.end(JSON.stringify({ run_id: "run-big", format: "html" }))
    })
    await stalled
    const stopping = Date.now()
    daemon.process.kill("SIGTERM")
    expect(await daemon.exited).toBe(0)
    expect(Date.now() - stopping).toBeLessThan(6000)
    expect(fs.existsSync(daemon.runtimePath)).toBe(false)
  })
})

describe("several daemons side by side", () => {
  it("each serves its own session on its own port and acts only on its own runs", async () => {
    const root = scratch()
    const sleeper = spawn("sleep", ["60"], { stdio: "ignore" })
    const first = await startDaemon({ root })
    const second = await startDaemon({ root })
    try {
      writeRun(first.runRoot, "run-first", { controller_session_id: first.sessionId, coordinator_pid: sleeper.pid })
      writeRun(first.runRoot, "run-second", { controller_session_id: second.sessionId, coordinator_pid: sleeper.pid })
      expect(first.port).not.toBe(second.port)
      for (const daemon of [first, second]) {
        await untilNoticed(async () => expect((await request(daemon.port, "/health")).json.active_runs).toBe(1))
      }
      for (const [daemon, own] of [[first, "run-first"], [second, "run-second"]] as const) {
        const health = await request(daemon.port, "/health")
        expect(health.json.controller_session_id).toBe(daemon.sessionId)
        expect(health.json.active_runs).toBe(1)
        const state = (await callTool(daemon.port, "get_state")).json.structuredContent.state
        expect(state.recent_runs.map((run: { run_id: string }) => run.run_id)).toEqual([own])
      }
      const denied = await callTool(first.port, "cancel_run", { run_id: "run-second" })
      expect(denied.status).toBe(409)
      expect(denied.json.isError).toBe(true)
      expect(readState(first.runRoot, "run-second").status).toBe("running")
      const foreignOrigin = await request(first.port, "/api/call", {
        method: "POST",
        headers: browserHeaders(second.port),
        body: JSON.stringify({ name: "get_state", arguments: {} })
      })
      expect(foreignOrigin.status).toBe(403)
    } finally {
      sleeper.kill("SIGKILL")
      await first.stop()
      await second.stop()
    }
  })
})

describe("bad environment", () => {
  const cases: Array<[Record<string, string>, string]> = [
    [{ CODEX_REPLAY_CONTROLLER_PORT: "abc" }, "CODEX_REPLAY_CONTROLLER_PORT must be an integer."],
    [{ CODEX_REPLAY_CONTROLLER_PORT: "4311.5" }, "CODEX_REPLAY_CONTROLLER_PORT must be an integer."],
    [{ CODEX_REPLAY_CONTROLLER_PORT: "80" }, "CODEX_REPLAY_CONTROLLER_PORT must be from 1024 through 65535."],
    [{ CODEX_REPLAY_CONTROLLER_PORT: "70000" }, "CODEX_REPLAY_CONTROLLER_PORT must be from 1024 through 65535."],
    [{ CODEX_REPLAY_CONTROLLER_IDLE_TIMEOUT_SECONDS: "0" }, "CODEX_REPLAY_CONTROLLER_IDLE_TIMEOUT_SECONDS must be a positive number."],
    [{ CODEX_REPLAY_CONTROLLER_IDLE_TIMEOUT_SECONDS: "-5" }, "CODEX_REPLAY_CONTROLLER_IDLE_TIMEOUT_SECONDS must be a positive number."],
    [{ CODEX_REPLAY_CONTROLLER_IDLE_TIMEOUT_SECONDS: "Infinity" }, "CODEX_REPLAY_CONTROLLER_IDLE_TIMEOUT_SECONDS must be a positive number."],
    [{ CODEX_REPLAY_CONTROLLER_IDLE_TIMEOUT_SECONDS: "soon" }, "CODEX_REPLAY_CONTROLLER_IDLE_TIMEOUT_SECONDS must be a positive number."],
    [{ CODEX_REPLAY_CONTROLLER_SESSION_ID: "../../etc" }, "CODEX_REPLAY_CONTROLLER_SESSION_ID must be 32 lowercase hexadecimal characters."],
    [{ CODEX_REPLAY_CONTROLLER_SESSION_ID: "A".repeat(32) }, "CODEX_REPLAY_CONTROLLER_SESSION_ID must be 32 lowercase hexadecimal characters."],
    [{ CODEX_REPLAY_CONTROLLER_SOCKET_FD: "three" }, "CODEX_REPLAY_CONTROLLER_SOCKET_FD must be a file descriptor number."],
    [{ CODEX_REPLAY_CONTROLLER_SOCKET_FD: "-1" }, "CODEX_REPLAY_CONTROLLER_SOCKET_FD must be a file descriptor number."],
    [{ CODEX_REPLAY_REVIEWER_MODEL: "gpt 5.5; rm -rf /" }, "CODEX_REPLAY_REVIEWER_MODEL must be a Codex model id such as gpt-5.5."]
  ]
  for (const [env, message] of cases) {
    it(`refuses ${JSON.stringify(env)} with a clear message and writes nothing`, async () => {
      const root = scratch()
      const outcome = await runWithEnv({ CODEX_REPLAY_RUN_ROOT: path.join(root, "runs"), CODEX_REPLAY_CONTROLLER_PORT: String(await freePort()), ...env })
      expect(outcome.code).toBe(1)
      expect(outcome.stderr.trim()).toBe(`codex-replay: ${message}`)
      expect(outcome.stdout).toBe("")
      expect(listTree(root)).toEqual([])
    })
  }

  it.each([
    ["9", "one of Node's own descriptors"],
    ["1000", "a closed descriptor"]
  ])("fails clearly when the descriptor it was handed (fd %s, %s) is not an open socket, and writes nothing", async (fd) => {
    const root = scratch()
    const outcome = await runWithEnv({
      CODEX_REPLAY_RUN_ROOT: path.join(root, "runs"),
      CODEX_REPLAY_CONTROLLER_PORT: String(await freePort()),
      CODEX_REPLAY_CONTROLLER_SOCKET_FD: fd
    })
    expect(outcome.code).toBe(1)
    expect(outcome.stderr.trim()).toBe(`codex-replay: CODEX_REPLAY_CONTROLLER_SOCKET_FD ${fd} is not an open socket.`)
    expect(outcome.stdout).toBe("")
    expect(listTree(root)).toEqual([])
  })

  it("fails clearly when the socket it was handed cannot listen (its stdout, a socket pair), and writes nothing", async () => {
    const root = scratch()
    const outcome = await runWithEnv({
      CODEX_REPLAY_RUN_ROOT: path.join(root, "runs"),
      CODEX_REPLAY_CONTROLLER_PORT: String(await freePort()),
      CODEX_REPLAY_CONTROLLER_SOCKET_FD: "1"
    })
    expect(outcome.code).toBe(1)
    expect(outcome.stderr).toMatch(/^codex-replay: Cannot listen on the socket handed over as file descriptor 1: \S/)
    expect(listTree(root)).toEqual([])
  })

  it("fails clearly when its run root is a file, and leaves no runtime file behind", async () => {
    const root = scratch()
    const runRoot = path.join(root, "runs")
    fs.writeFileSync(runRoot, "not a directory\n")
    const outcome = await runWithEnv({ CODEX_REPLAY_RUN_ROOT: runRoot, CODEX_REPLAY_CONTROLLER_PORT: String(await freePort()) })
    expect(outcome.code).toBe(1)
    expect(outcome.stderr).toContain(`codex-replay: Cannot create ${runRoot}: EEXIST`)
    expect(outcome.stdout).toBe("")
    expect(fs.readFileSync(runRoot, "utf8")).toBe("not a directory\n")
    expect(listTree(root).filter((entry) => entry.endsWith(".json"))).toEqual([])
  })

  it("fails clearly when its port is taken by another socket", async () => {
    const blocker = net.createServer()
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", () => resolve()))
    const port = (blocker.address() as net.AddressInfo).port
    try {
      const root = scratch()
      const outcome = await runWithEnv({ CODEX_REPLAY_RUN_ROOT: path.join(root, "runs"), CODEX_REPLAY_CONTROLLER_PORT: String(port) })
      expect(outcome.code).toBe(1)
      expect(outcome.stderr).toContain(`codex-replay: Cannot bind the controller to http://127.0.0.1:${port}: `)
      expect(outcome.stderr).toContain("EADDRINUSE")
      expect(fs.existsSync(path.join(root, "controllers"))).toBe(false)
    } finally {
      blocker.close()
    }
  })
})
