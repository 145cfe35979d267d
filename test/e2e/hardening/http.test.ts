import * as net from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { callTool, type Daemon, killAllDaemons, request, startDaemon } from "../../support/daemon.js"

const SECURITY = {
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer"
}

/** Sends raw bytes and answers the status line and headers of what comes back. */
const raw = (port: number, bytes: string) =>
  new Promise<{ status: number; headers: Record<string, string> }>((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1")
    let text = ""
    socket.on("data", (chunk) => void (text += chunk.toString("latin1")))
    socket.on("error", reject)
    socket.on("close", () => {
      const [head = ""] = text.split("\r\n\r\n")
      const [statusLine = "", ...lines] = head.split("\r\n")
      const headers = Object.fromEntries(lines.map((line) => {
        const colon = line.indexOf(":")
        return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()]
      }))
      resolve({ status: Number(statusLine.split(" ")[1]), headers })
    })
    socket.end(bytes)
  })

/** Sends `bytes` and keeps the connection open: the status line of the first answer, and how long it took. */
const held = (port: number, bytes: string) =>
  new Promise<{ status: number; elapsed: number }>((resolve, reject) => {
    const started = Date.now()
    const socket = net.connect(port, "127.0.0.1")
    let text = ""
    socket.on("data", (chunk) => void (text += chunk.toString("latin1")))
    socket.on("error", reject)
    socket.on("close", () => resolve({ status: Number(text.split("\r\n")[0]?.split(" ")[1]), elapsed: Date.now() - started }))
    socket.write(bytes)
  })

const expectSecurityHeaders = (headers: Record<string, unknown>) => {
  expect(headers).toMatchObject(SECURITY)
  expect(String(headers["content-security-policy"])).toContain("default-src 'self'")
}

const MEGABYTE = "A".repeat(1024 * 1024 - 100)

describe("bounded echoes and headers on every answer", () => {
  let daemon: Daemon
  beforeAll(async () => {
    daemon = await startDaemon()
  })
  afterAll(async () => {
    await daemon?.stop()
    await killAllDaemons()
  })

  it.each([
    ["a 1 MB tool name", { name: MEGABYTE, arguments: {} }, 400, /^Unknown Codex Replay tool: "A{100}"…$/],
    ["a 1 MB sample thread id", { name: "inspect_thread", arguments: { thread_id: `sample-${MEGABYTE}` } }, 404, /^No packaged sample has the ID "sample-A{93}"…\.$/],
    ["a 1 MB argument of the wrong type", { name: "get_run", arguments: { run_id: [MEGABYTE] } }, 400, /^run_id: .{1,300}…?$/s]
  ])("%s is answered with a short, escaped excerpt", async (_what, body, status, expected) => {
    const answer = await request(daemon.port, "/api/call", {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: `http://127.0.0.1:${daemon.port}` },
      body: JSON.stringify(body)
    })
    expect(answer.status).toBe(status)
    expect(answer.text.length).toBeLessThan(2_000)
    expect(answer.json.error).toMatch(expected)
    expectSecurityHeaders(answer.headers)
  })

  it("an unknown model of a megabyte is not echoed whole", async () => {
    const answer = await callTool(daemon.port, "prepare_run", {
      thread_id: "sample-hello-cli",
      request: "x",
      beginning_kind: "non_git",
      ending_kind: "non_git",
      confirm_empty_beginning: true,
      model: `gpt-${MEGABYTE.slice(0, 4000)}`
    })
    expect(answer.status).toBe(400)
    expect(answer.text.length).toBeLessThan(4_000)
  })

  it("a request without Host gets the app's 421 with the security headers, not Node's bare 400", async () => {
    const answer = await raw(daemon.port, "GET /health HTTP/1.1\r\nConnection: close\r\n\r\n")
    expect(answer.status).toBe(421)
    expectSecurityHeaders(answer.headers)
  })

  it("a request Node cannot parse gets a 400 with the security headers", async () => {
    const answer = await raw(daemon.port, "NOT A REQUEST\r\n\r\n")
    expect(answer.status).toBe(400)
    expectSecurityHeaders(answer.headers)
  })

  it("a request with two Host headers is refused with 400, whichever comes first", async () => {
    for (const hosts of [[`127.0.0.1:${daemon.port}`, "evil.example"], ["evil.example", `127.0.0.1:${daemon.port}`]]) {
      const answer = await raw(daemon.port, `GET /health HTTP/1.1\r\n${hosts.map((host) => `Host: ${host}\r\n`).join("")}Connection: close\r\n\r\n`)
      expect(answer.status).toBe(400)
      expectSecurityHeaders(answer.headers)
    }
  })

  it("a body that does not arrive within 10 s is answered 408 and its connection closed", async () => {
    const token = daemon.apiToken()
    const answer = await held(
      daemon.port,
      `POST /api/call HTTP/1.1\r\nHost: 127.0.0.1:${daemon.port}\r\nAuthorization: Bearer ${token}\r\nOrigin: http://127.0.0.1:${daemon.port}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":`
    )
    expect(answer.status).toBe(408)
    expect(answer.elapsed).toBeGreaterThanOrEqual(9_000)
    expect(answer.elapsed).toBeLessThan(15_000)
  }, 30_000)

  it.each([["/api/call", 100_000], ["/api/call", 65], ["/api/rpc", 100_000]])("%s nested %i levels deep is refused with one sentence", async (pathname, depth) => {
    const nested = `${"[".repeat(depth)}${"]".repeat(depth)}`
    const body = pathname === "/api/call"
      ? `{"name":"get_run","arguments":{"run_id":${nested}}}`
      : `{"_tag":"Request","id":"1","tag":"get_run","payload":{"run_id":${nested}},"headers":[]}`
    const headers = pathname === "/api/call"
      ? { "Content-Type": "application/json", Origin: `http://127.0.0.1:${daemon.port}` }
      : { "Content-Type": "application/json", "X-Codex-Replay-Control": daemon.runtime().control_token }
    const answer = await request(daemon.port, pathname, { method: "POST", headers, body })
    expect(answer.status).toBe(400)
    expect(answer.text).toContain("The request nests deeper than 64 levels.")
  })

  it("nesting within the limit reaches the tool, which names the argument", async () => {
    const nested = `${"[".repeat(62)}${"]".repeat(62)}`
    const answer = await request(daemon.port, "/api/call", {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: `http://127.0.0.1:${daemon.port}` },
      body: `{"name":"get_run","arguments":{"run_id":${nested}}}`
    })
    expect(answer.status).toBe(400)
    expect(answer.json.error).toMatch(/^run_id: /)
  })

  it("headers too large get a 431 with the security headers", async () => {
    const answer = await raw(daemon.port, `GET /health HTTP/1.1\r\nHost: 127.0.0.1:${daemon.port}\r\nX-Big: ${"b".repeat(20_000)}\r\n\r\n`)
    expect(answer.status).toBe(431)
    expectSecurityHeaders(answer.headers)
  })
})
