import type { ChildProcess } from "node:child_process"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as http from "node:http"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { expect, vi } from "vitest"
import { runBin, spawnBin } from "./spawnBin.js"
import { stopWithin } from "./stuckProcess.js"

export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url))
export { BIN } from "./spawnBin.js"
export const FAKE_CODEX = path.join(REPO_ROOT, "test", "fake-codex", "codex")

export const scratch = (prefix = "codex-replay-test-") => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)))
export const sessionId = () => randomBytes(16).toString("hex")
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A process that still runs: it exists and is not a zombie waiting for a parent to reap it. */
export const isAlive = (pid: number) => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z"
  } catch {
    return false
  }
}

/** Whether a listening socket can be bound to `port` on 127.0.0.1 now (it is closed again at once). */
const canListen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = net.createServer()
    server.once("error", () => resolve(false))
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)))
  })

/**
 * The kernel's ephemeral ports (`ip_local_port_range`) are also the local ports of every outgoing
 * connection, so a port the kernel picked for `listen(0)` and released can be taken by any test's HTTP
 * client before the daemon binds it (EADDRINUSE, seen in CI). Tests take ports below that range instead,
 * each worker of the run (`VITEST_POOL_ID`) from a slice of its own.
 */
const PORT_SLICES = 8
const portSlice = (() => {
  let low = 32768
  try {
    low = Number(fs.readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]) || low
  } catch {
    // Not Linux: Linux's default range.
  }
  const first = 10_000
  const size = Math.max(100, Math.floor((low - first) / PORT_SLICES))
  const slice = (Number(process.env.VITEST_POOL_ID ?? 1) - 1) % PORT_SLICES
  return { first: first + slice * size, size }
})()
let nextPort = portSlice.first + Math.floor(Math.random() * portSlice.size)

/** A port that was free a moment ago, outside the ephemeral range and apart from other workers' ports. */
export const freePort = async (): Promise<number> => {
  for (let tries = 0; tries < portSlice.size; tries++) {
    const port = nextPort
    nextPort = portSlice.first + ((nextPort - portSlice.first + 1) % portSlice.size)
    if (await canListen(port)) return port
  }
  throw new Error(`No free port in ${portSlice.first}–${portSlice.first + portSlice.size - 1}.`)
}

export interface Answer {
  readonly status: number
  readonly headers: http.IncomingHttpHeaders
  readonly text: string
  readonly json: any
}

export interface RequestOptions {
  readonly method?: string
  readonly headers?: Record<string, string>
  readonly body?: string | Buffer
  /** Overrides the Host header (node:http lets us send any). */
  readonly host?: string
  /**
   * The API token sent as `Authorization: Bearer …`: by default the one the daemon on this port wrote
   * in its runtime file (see `registerRuntime`); `null` sends none.
   */
  readonly token?: string | null
}

/** The runtime file of the daemon a test started on each port, where `request` finds its API token. */
const runtimeFiles = new Map<number, string>()

/** Tells `request` where the daemon on `port` keeps its runtime file (startDaemon does it for its own). */
export const registerRuntime = (port: number, runtimePath: string) => void runtimeFiles.set(port, runtimePath)

/** The API token of the daemon on `port`, if a test registered it and its runtime file is there. */
export const apiTokenOf = (port: number): string | undefined => {
  const file = runtimeFiles.get(port)
  if (file === undefined) return undefined
  try {
    return JSON.parse(fs.readFileSync(file, "utf8")).api_token
  } catch {
    return undefined
  }
}

/** The header that presents an API token. */
export const bearer = (token: string | undefined): Record<string, string> =>
  token === undefined ? {} : { Authorization: `Bearer ${token}` }

/** One raw HTTP request to 127.0.0.1, with full control of the headers. */
export const request = (port: number, pathname: string, options: RequestOptions = {}) =>
  new Promise<Answer>((resolve, reject) => {
    const token = options.token === undefined ? apiTokenOf(port) : options.token ?? undefined
    const headers: Record<string, string> = { ...bearer(token), ...options.headers }
    if (options.host !== undefined) headers.Host = options.host
    const req = http.request(
      { host: "127.0.0.1", port, path: pathname, method: options.method ?? "GET", headers, agent: false },
      (res) => {
        const chunks: Buffer[] = []
        res.on("data", (chunk: Buffer) => chunks.push(chunk))
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8")
          let json: unknown = undefined
          try {
            json = JSON.parse(text)
          } catch {
            json = undefined
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json })
        })
        res.on("error", reject)
      }
    )
    req.setTimeout(10_000, () => req.destroy(new Error(`request to ${pathname} timed out`)))
    req.on("error", reject)
    if (options.body !== undefined) req.write(options.body)
    req.end()
  })

export const browserHeaders = (port: number) => ({
  "Content-Type": "application/json",
  Origin: `http://127.0.0.1:${port}`
})

export const callTool = (port: number, name: string, args: unknown = {}) =>
  request(port, "/api/call", {
    method: "POST",
    headers: browserHeaders(port),
    body: JSON.stringify({ name, arguments: args })
  })

/**
 * Waits until `check` passes against a daemon that has to notice files the test wrote behind its back:
 * its run store looks at the run root again every second.
 */
export const untilNoticed = (check: () => Promise<void>) => vi.waitFor(check, { timeout: 10_000, interval: 100 })

/** This controller's runs as `get_state` lists them, `run_id:status`, newest first. */
export const recentRuns = async (port: number): Promise<Array<string>> =>
  (await callTool(port, "get_state")).json.structuredContent.state.recent_runs.map(
    (run: { run_id: string; status: string }) => `${run.run_id}:${run.status}`
  )

/** Waits until the daemon lists these runs of its own session that the test wrote. */
export const untilListed = (port: number, runIds: ReadonlyArray<string>) =>
  untilNoticed(async () => {
    const listed = (await recentRuns(port)).map((run) => run.split(":")[0])
    for (const runId of runIds) expect(listed).toContain(runId)
  })

export interface Daemon {
  readonly port: number
  readonly root: string
  readonly runRoot: string
  readonly sessionId: string
  readonly instanceDirectory: string
  readonly runtimePath: string
  readonly process: ChildProcess
  readonly output: () => string
  readonly exited: Promise<number | null>
  readonly runtime: () => { control_token: string; api_token: string; port: number; pid: number }
  /** The API token from the runtime file. */
  readonly apiToken: () => string
  /** The address that opens the page, `http://127.0.0.1:PORT/?token=<API token>`. */
  readonly launchUrl: () => string
  readonly stop: () => Promise<void>
}

const running = new Set<ChildProcess>()

/** Kills every daemon a test file started and did not stop (afterAll). */
export const killAllDaemons = async () => {
  for (const child of running) {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
  }
  running.clear()
}

export interface DaemonOptions {
  readonly root?: string
  readonly port?: number
  readonly sessionId?: string
  readonly env?: Record<string, string>
  readonly waitReady?: boolean
}

/** Starts the real `codex-replay --http` on a free port with a private run root, and waits for `/health`. */
export const startDaemon = async (options: DaemonOptions = {}): Promise<Daemon> => {
  const root = options.root ?? scratch()
  const port = options.port ?? (await freePort())
  const session = options.sessionId ?? sessionId()
  const runRoot = path.join(root, "runs")
  const spawned = spawnBin(["--http"], {
    env: {
      ...process.env,
      CODEX_REPLAY_RUN_ROOT: runRoot,
      CODEX_REPLAY_CONTROLLER_PORT: String(port),
      CODEX_REPLAY_CONTROLLER_SESSION_ID: session,
      CODEX_CLI_PATH: FAKE_CODEX,
      CLAUDE_CONFIG_DIR: path.join(root, "claude"),
      ...options.env
    }
  })
  const child = spawned.child
  running.add(child)
  const output = spawned.output
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
  const instanceDirectory = path.join(root, "controllers", session)
  const runtimePath = path.join(instanceDirectory, "controller-server.json")
  registerRuntime(port, runtimePath)
  const daemon: Daemon = {
    port,
    root,
    runRoot,
    sessionId: session,
    instanceDirectory,
    runtimePath,
    process: child,
    output,
    exited,
    runtime: () => JSON.parse(fs.readFileSync(runtimePath, "utf8")),
    apiToken: () => JSON.parse(fs.readFileSync(runtimePath, "utf8")).api_token,
    launchUrl: () => `http://127.0.0.1:${port}/?token=${JSON.parse(fs.readFileSync(runtimePath, "utf8")).api_token}`,
    stop: async () => {
      try {
        await stopWithin(child, output)
      } finally {
        running.delete(child)
      }
    }
  }
  if (options.waitReady === false) return daemon
  const deadline = Date.now() + 10_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`daemon exited early (${child.exitCode}): ${output()}`)
    const answer = await request(port, "/health", { host: `127.0.0.1:${port}` }).catch(() => undefined)
    if (answer?.status === 200 && fs.existsSync(runtimePath)) return daemon
    if (Date.now() > deadline) throw new Error(`daemon did not become ready: ${output()}`)
    await sleep(25)
  }
}

/** Writes a run directory with a state as the controller would. */
export const writeRun = (runRoot: string, runId: string, state: Record<string, unknown>) => {
  const directory = path.join(runRoot, runId)
  fs.mkdirSync(directory, { recursive: true, mode: 0o700 })
  const now = new Date().toISOString()
  const full = {
    schema_version: 1,
    run_id: runId,
    status: "running",
    phase: "implementing",
    phases: [],
    events: [],
    coordinator_pid: null,
    started_at: now,
    updated_at: now,
    error: null,
    ...state
  }
  fs.writeFileSync(path.join(directory, "controller-state.json"), JSON.stringify(full, null, 2))
  return directory
}

/** The state fields of a run the user cancelled between `startedAt` and `cancelledAt`, as the controller writes them. */
export const cancelledByUser = (startedAt: string, cancelledAt: string) => ({
  status: "cancelled",
  started_at: startedAt,
  completed_at: cancelledAt,
  error: "Cancelled by user.",
  cancellation_reason: "user_requested"
})

export const readState = (runRoot: string, runId: string) =>
  JSON.parse(fs.readFileSync(path.join(runRoot, runId, "controller-state.json"), "utf8"))

/** Every entry below `directory` (and itself) with size and modification time: writing a file, or adding or removing one, changes it. */
export const treeSnapshot = (directory: string): string[] =>
  !fs.existsSync(directory) ? [] : ["", ...listTree(directory)].map((entry) => {
    const stat = fs.statSync(path.join(directory, entry))
    return `${entry}${stat.isDirectory() ? "/" : ""} ${stat.size} ${stat.mtimeMs}`
  })

/** Every file below `directory`, relative, sorted. */
export const listTree = (directory: string): string[] => {
  if (!fs.existsSync(directory)) return []
  const out: string[] = []
  const walk = (current: string) => {
    for (const entry of fs.readdirSync(current, { withFileTypes: true })) {
      const full = path.join(current, entry.name)
      out.push(path.relative(directory, full))
      if (entry.isDirectory()) walk(full)
    }
  }
  walk(directory)
  return out.sort()
}

/** Runs `codex-replay --http` with an environment of its own (usually a bad one) and collects how it ends. */
export const runDaemonToExit = (env: Record<string, string>, killAfterMillis = 10_000) =>
  runBin(["--http"], { env: { ...process.env, ...env }, timeoutMillis: killAfterMillis })
