import type { ChildProcess } from "node:child_process"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { freePort, isAlive } from "../support/daemon.js"
import { spawnBin } from "../support/spawnBin.js"
import { CLAUDE_HOME } from "../support/fixtures.js"

export { CLAUDE_HOME }

export { listTree, treeSnapshot } from "../support/daemon.js"

/** The repository root. */
export const REPO = path.resolve(import.meta.dirname, "../..")
export { BIN } from "../support/spawnBin.js"
export const FAKE_CODEX = path.join(REPO, "test", "fake-codex", "codex")

export const scratch = (prefix: string) => fs.mkdtempSync(path.join(os.tmpdir(), prefix))

export { freePort }

/** The environment of one isolated install: its own run root, the fixtures, the fake Codex CLI. */
export const installEnv = (root: string, extra: Record<string, string> = {}): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith("CODEX_REPLAY_") && !key.startsWith("FAKE_CODEX_")) env[key] = value
  }
  return {
    ...env,
    HOME: root,
    CODEX_REPLAY_RUN_ROOT: path.join(root, "cache", "runs"),
    CLAUDE_CONFIG_DIR: CLAUDE_HOME,
    CODEX_CLI_PATH: FAKE_CODEX,
    ...extra
  }
}

export interface RuntimeInfo {
  readonly port: number
  readonly control_token: string
  readonly api_token: string
  readonly pid: number
  readonly controller_session_id: string
}

/** Every controller runtime file of an install (`<cache>/controllers/<session>/controller-server.json`). */
export const runtimeFiles = (env: Record<string, string>): ReadonlyArray<RuntimeInfo> => {
  const controllers = path.join(path.dirname(env.CODEX_REPLAY_RUN_ROOT!), "controllers")
  if (!fs.existsSync(controllers)) return []
  return fs.readdirSync(controllers).flatMap((session) => {
    try {
      return [JSON.parse(fs.readFileSync(path.join(controllers, session, "controller-server.json"), "utf8")) as RuntimeInfo]
    } catch {
      return []
    }
  })
}

const sleep = (millis: number) => new Promise((resolve) => setTimeout(resolve, millis))

const waitFor = async <A>(what: string, probe: () => A | undefined | Promise<A | undefined>, timeoutMillis = 15_000): Promise<A> => {
  const deadline = Date.now() + timeoutMillis
  while (Date.now() < deadline) {
    const value = await probe()
    if (value !== undefined) return value
    await sleep(50)
  }
  throw new Error(`Timed out waiting for ${what}`)
}

/** Stops every controller of an install (those the CLI launched too) and waits for their processes. */
export const stopControllers = async (env: Record<string, string>) => {
  for (const runtime of runtimeFiles(env)) {
    await fetch(`http://127.0.0.1:${runtime.port}/api/shutdown`, {
      method: "POST",
      headers: {
        "X-Codex-Replay-Control": runtime.control_token,
        Authorization: `Bearer ${runtime.api_token}`,
        "Content-Type": "application/json"
      },
      body: "{}"
    }).catch(() => undefined)
    const deadline = Date.now() + 10_000
    while (isAlive(runtime.pid) && Date.now() < deadline) await sleep(50)
    if (isAlive(runtime.pid)) process.kill(runtime.pid, "SIGKILL")
  }
}

export interface Daemon {
  readonly root: string
  readonly env: Record<string, string>
  readonly port: number
  readonly origin: string
  readonly token: string
  /** The API token every request to /api presents (`Authorization: Bearer …`). */
  readonly apiToken: string
  /** The address that opens its page: `origin/?token=<API token>`, as `codex-replay open` prints it. */
  readonly launchUrl: string
  readonly sessionId: string
  readonly runRoot: string
  readonly child: ChildProcess
  /** What the daemon has written to stderr so far (its log). */
  readonly output: () => string
  readonly stop: () => Promise<void>
}

/** A real controller daemon (`node bin/codex-replay.js --http`) of a fresh install; `npm run build` first. */
export const startDaemon = async (extra: Record<string, string> = {}): Promise<Daemon> => {
  const root = scratch("codex-replay-rpc-")
  const port = await freePort()
  const sessionId = randomBytes(16).toString("hex")
  const env = installEnv(root, {
    CODEX_REPLAY_CONTROLLER_PORT: String(port),
    CODEX_REPLAY_CONTROLLER_SESSION_ID: sessionId,
    ...extra
  })
  const spawned = spawnBin(["--http"], { env })
  const child = spawned.child
  const stderr = spawned.stderr
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
  const runtime = await waitFor("the controller's runtime file", () => {
    if (child.exitCode !== null) throw new Error(`The daemon exited early: ${stderr()}`)
    return runtimeFiles(env).find((file) => file.controller_session_id === sessionId)
  })
  // The runtime file is written as the daemon starts; it makes its run root and the rest before it answers.
  await waitFor("the controller to answer", () =>
    fetch(`http://127.0.0.1:${port}/health`).then((response) => (response.ok ? true : undefined), () => undefined))
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      await fetch(`http://127.0.0.1:${port}/api/shutdown`, {
        method: "POST",
        headers: { "X-Codex-Replay-Control": runtime.control_token, Authorization: `Bearer ${runtime.api_token}` }
      }).catch(() => undefined)
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000)
      await exited
      clearTimeout(timer)
    }
    await stopControllers(env)
    fs.rmSync(root, { recursive: true, force: true })
  }
  return {
    root,
    env,
    port,
    origin: `http://127.0.0.1:${port}`,
    token: runtime.control_token,
    apiToken: runtime.api_token,
    launchUrl: `http://127.0.0.1:${port}/?token=${runtime.api_token}`,
    sessionId,
    runRoot: env.CODEX_REPLAY_RUN_ROOT!,
    child,
    output: stderr,
    stop
  }
}

