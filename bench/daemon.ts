/**
 * Daemon benchmark: cold start, and p50/p99 latency of `GET /health` and `POST /api/call get_state`
 * under 50 concurrent keep-alive clients for 10 s each, against a bare node:http server answering
 * the same JSON bodies, measured in the same run. Not a test: it prints figures and ratios.
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const ROOT = fileURLToPath(new URL("../", import.meta.url))
const BIN = path.join(ROOT, "bin", "codex-replay.js")
const FAKE_CODEX = path.join(ROOT, "test", "fake-codex", "codex")
const CLIENTS = 50
const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? 10_000)
const COLD_STARTS = 5
const PACED_INTERVAL_MS = 25

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS })

const once = (port: number, method: string, pathname: string, body?: string) =>
  new Promise<number>((resolve, reject) => {
    const request = http.request(
      {
        host: "127.0.0.1",
        port,
        method,
        path: pathname,
        agent,
        headers: body === undefined
          ? {}
          : { "Content-Type": "application/json", Origin: `http://127.0.0.1:${port}`, "Content-Length": Buffer.byteLength(body) }
      },
      (response) => {
        response.resume()
        response.on("end", () => resolve(response.statusCode ?? 0))
      }
    )
    request.on("error", reject)
    request.end(body)
  })

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN

/**
 * 50 clients for the duration. Closed loop (`intervalMs` 0): each sends its next request as soon as
 * the previous answer arrives, which saturates the server and measures its cost per request.
 * Paced: each client sends one request every `intervalMs`, a steady load below saturation.
 */
const load = async (port: number, method: string, pathname: string, body?: string, intervalMs = 0) => {
  const latencies: number[] = []
  let failures = 0
  const deadline = performance.now() + DURATION_MS
  await Promise.all(Array.from({ length: CLIENTS }, async (_, client) => {
    if (intervalMs > 0) await sleep((intervalMs * client) / CLIENTS)
    while (performance.now() < deadline) {
      const started = performance.now()
      const status = await once(port, method, pathname, body).catch(() => 0)
      if (status !== 200) failures++
      const took = performance.now() - started
      latencies.push(took)
      if (intervalMs > took) await sleep(intervalMs - took)
    }
  }))
  latencies.sort((a, b) => a - b)
  return { requests: latencies.length, failures, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99) }
}

const waitHealthy = async (port: number, child: ChildProcess) => {
  for (;;) {
    if (child.exitCode !== null) throw new Error("server exited")
    const ok = await once(port, "GET", "/health").then((status) => status === 200, () => false)
    if (ok) return
    await sleep(5)
  }
}

const startDaemon = async (runRoot: string) => {
  const port = await freePort()
  const started = performance.now()
  const child = spawn(process.execPath, [BIN, "--http"], {
    env: { ...process.env, CODEX_REPLAY_RUN_ROOT: runRoot, CODEX_REPLAY_CONTROLLER_PORT: String(port), CODEX_CLI_PATH: FAKE_CODEX },
    stdio: "ignore"
  })
  await waitHealthy(port, child)
  return { child, port, coldStartMs: performance.now() - started }
}

const stop = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null) return resolve()
    child.once("exit", () => resolve())
    child.kill("SIGTERM")
  })

/** The bare baseline: node:http answering fixed JSON bodies, in its own process like the daemon. */
const startBare = async (healthBody: string, stateBody: string) => {
  const port = await freePort()
  const script = `
    const http = require("node:http")
    const health = ${JSON.stringify(healthBody)}
    const state = ${JSON.stringify(stateBody)}
    http.createServer((req, res) => {
      const send = (body) => { res.writeHead(200, { "Content-Type": "application/json; charset=utf-8" }); res.end(body) }
      if (req.method === "POST") { req.resume(); req.on("end", () => send(state)) } else send(health)
    }).listen(${port}, "127.0.0.1")
  `
  const child = spawn(process.execPath, ["-e", script], { stdio: "ignore" })
  await waitHealthy(port, child)
  return { child, port }
}

const fetchBody = (port: number, method: string, pathname: string, body?: string) =>
  new Promise<string>((resolve, reject) => {
    const request = http.request({ host: "127.0.0.1", port, method, path: pathname, headers: body === undefined ? {} : { "Content-Type": "application/json", Origin: `http://127.0.0.1:${port}` } }, (response) => {
      let text = ""
      response.on("data", (chunk) => (text += chunk))
      response.on("end", () => resolve(text))
    })
    request.on("error", reject)
    request.end(body)
  })

const main = async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "codex-replay-bench-"))
  const cold: number[] = []
  for (let index = 0; index < COLD_STARTS; index++) {
    const daemon = await startDaemon(path.join(root, `cold-${index}`, "runs"))
    cold.push(daemon.coldStartMs)
    await stop(daemon.child)
  }
  cold.sort((a, b) => a - b)

  const getState = JSON.stringify({ name: "get_state", arguments: {} })
  const daemon = await startDaemon(path.join(root, "load", "runs"))
  const healthBody = await fetchBody(daemon.port, "GET", "/health")
  const stateBody = await fetchBody(daemon.port, "POST", "/api/call", getState)
  const bare = await startBare(healthBody, stateBody)

  const results = {
    bareHealth: await load(bare.port, "GET", "/health"),
    daemonHealth: await load(daemon.port, "GET", "/health"),
    bareState: await load(bare.port, "POST", "/api/call", getState),
    daemonState: await load(daemon.port, "POST", "/api/call", getState)
  }
  const paced = {
    bareHealth: await load(bare.port, "GET", "/health", undefined, PACED_INTERVAL_MS),
    daemonHealth: await load(daemon.port, "GET", "/health", undefined, PACED_INTERVAL_MS),
    bareState: await load(bare.port, "POST", "/api/call", getState, PACED_INTERVAL_MS),
    daemonState: await load(daemon.port, "POST", "/api/call", getState, PACED_INTERVAL_MS)
  }
  await stop(daemon.child)
  await stop(bare.child)
  agent.destroy()
  fs.rmSync(root, { recursive: true, force: true })

  const row = (name: string, r: { requests: number; failures: number; p50: number; p99: number }) =>
    `${name.padEnd(30)} ${String(r.requests).padStart(8)} req  ${String(r.failures).padStart(4)} failed  p50 ${r.p50.toFixed(2).padStart(7)} ms  p99 ${r.p99.toFixed(2).padStart(7)} ms`
  console.log(`cold start (median of ${COLD_STARTS}): ${cold[Math.floor(COLD_STARTS / 2)]!.toFixed(0)} ms  (min ${cold[0]!.toFixed(0)}, max ${cold.at(-1)!.toFixed(0)}; target < 1500 ms)`)
  const ratio = (a: number, b: number) => (a / b).toFixed(2)
  const report = (title: string, r: typeof results) => {
    console.log(title)
    console.log(row("bare node:http GET /health", r.bareHealth))
    console.log(row("daemon GET /health", r.daemonHealth))
    console.log(row("bare node:http POST (same JSON)", r.bareState))
    console.log(row("daemon POST /api/call get_state", r.daemonState))
    console.log(`ratios daemon/bare: /health p50 ${ratio(r.daemonHealth.p50, r.bareHealth.p50)}x, p99 ${ratio(r.daemonHealth.p99, r.bareHealth.p99)}x; get_state p50 ${ratio(r.daemonState.p50, r.bareState.p50)}x, p99 ${ratio(r.daemonState.p99, r.bareState.p99)}x (target p99 <= 3x)`)
  }
  report(`closed loop (saturating): ${CLIENTS} concurrent keep-alive clients, ${DURATION_MS / 1000} s per case, ${os.cpus().length} cores`, results)
  report(`paced: ${CLIENTS} clients, one request each every ${PACED_INTERVAL_MS} ms (${(CLIENTS * 1000) / PACED_INTERVAL_MS} req/s offered), ${DURATION_MS / 1000} s per case`, paced)
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
