import { type ChildProcess, execFileSync } from "node:child_process"
import { randomBytes, randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as http from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { RUN_TAG_VARIABLE } from "../../src/domain/product.js"
import { pidsWithEnvironment } from "../../src/services/platform/procfs.js"
import { freePort } from "../support/daemon.js"
import { spawnBin } from "../support/spawnBin.js"
import { describeProcess, stopWithin } from "../support/stuckProcess.js"
import { writeChunkThread } from "./chunkThread.js"

export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url))
export { BIN } from "../support/spawnBin.js"
export const FAKE_CODEX = path.join(REPO_ROOT, "test", "fake-codex", "codex")
export const MODELS = ["gpt-5.6-sol", "gpt-5.6-terra", "gpt-5.6-luna", "gpt-5.5"] as const

export const scratch = (prefix = "codex-replay-runs-") => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)))
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export interface Answer {
  readonly status: number
  readonly json: any
}

const post = (port: number, pathname: string, body: unknown, headers: Record<string, string> = {}) =>
  new Promise<Answer>((resolve, reject) => {
    const request = http.request(
      {
        host: "127.0.0.1",
        port,
        path: pathname,
        method: "POST",
        agent: false,
        headers: { "Content-Type": "application/json", Origin: `http://127.0.0.1:${port}`, ...headers }
      },
      (response) => {
        const chunks: Array<Buffer> = []
        response.on("data", (chunk: Buffer) => chunks.push(chunk))
        response.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8")
          let json: unknown
          try {
            json = JSON.parse(text)
          } catch {
            json = text
          }
          resolve({ status: response.statusCode ?? 0, json })
        })
      }
    )
    request.setTimeout(60_000, () => request.destroy(new Error(`${pathname} timed out`)))
    request.on("error", reject)
    request.end(JSON.stringify(body))
  })

export interface Daemon {
  readonly port: number
  readonly root: string
  readonly runRoot: string
  readonly sessionId: string
  readonly child: ChildProcess
  readonly exited: Promise<unknown>
  readonly output: () => string
  /** `/api/call`: the tool's structured result, or throws with the error message. */
  readonly call: (name: string, args?: unknown) => Promise<any>
  /** `/api/call` expecting a refusal: the message. */
  readonly refused: (name: string, args?: unknown) => Promise<string>
  readonly stop: () => Promise<void>
  readonly kill9: () => Promise<void>
  /** The API token from the daemon's runtime file. */
  readonly apiToken: () => string
  /** The address that opens its page, `http://127.0.0.1:PORT/?token=<API token>`. */
  readonly launchUrl: () => string
}

const daemons = new Set<ChildProcess>()

export interface DaemonOptions {
  readonly root?: string
  readonly sessionId?: string
  readonly env?: Record<string, string>
}

/** The real `codex-replay --http` with a private cache, the fake Codex CLI and the packaged samples. */
export const startDaemon = async (options: DaemonOptions = {}): Promise<Daemon> => {
  const root = options.root ?? scratch()
  const port = await freePort()
  const sessionId = options.sessionId ?? randomBytes(16).toString("hex")
  const runRoot = path.join(root, "runs")
  fs.mkdirSync(path.join(root, "claude", "projects"), { recursive: true })
  const spawned = spawnBin(["--http"], {
    env: {
      ...process.env,
      CODEX_REPLAY_RUN_ROOT: runRoot,
      CODEX_REPLAY_CONTROLLER_PORT: String(port),
      CODEX_REPLAY_CONTROLLER_SESSION_ID: sessionId,
      CODEX_CLI_PATH: FAKE_CODEX,
      CLAUDE_CONFIG_DIR: path.join(root, "claude"),
      FAKE_CODEX_SESSIONS_DIR: path.join(root, "fake-sessions"),
      FAKE_CODEX_STATE_FILE: path.join(root, "fake-state"),
      ...options.env
    }
  })
  const child = spawned.child
  daemons.add(child)
  const output = spawned.output
  const exited = new Promise((resolve) => child.once("exit", resolve))
  const runtimePath = path.join(root, "controllers", sessionId, "controller-server.json")
  const apiToken = (): string => JSON.parse(fs.readFileSync(runtimePath, "utf8")).api_token
  const authorized = () => (fs.existsSync(runtimePath) ? { Authorization: `Bearer ${apiToken()}` } : {})
  const call = async (name: string, args: unknown = {}) => {
    const answer = await post(port, "/api/call", { name, arguments: args }, authorized())
    if (answer.status !== 200 || answer.json?.isError === true) {
      throw new Error(`${name} failed (${answer.status}): ${JSON.stringify(answer.json)}`)
    }
    return answer.json.structuredContent
  }
  const refused = async (name: string, args: unknown = {}) => {
    const answer = await post(port, "/api/call", { name, arguments: args }, authorized())
    if (answer.status === 200 && answer.json?.isError !== true) throw new Error(`${name} was accepted: ${JSON.stringify(answer.json)}`)
    return String(answer.json?.error ?? answer.json?.content?.[0]?.text ?? answer.json)
  }
  const ended = () => child.exitCode !== null || child.signalCode !== null
  const daemon: Daemon = {
    port,
    root,
    runRoot,
    sessionId,
    child,
    exited,
    output,
    call,
    refused,
    apiToken,
    launchUrl: () => `http://127.0.0.1:${port}/?token=${apiToken()}`,
    stop: async () => {
      try {
        await stopWithin(child, output)
      } finally {
        daemons.delete(child)
      }
    },
    kill9: async () => {
      if (!ended()) child.kill("SIGKILL")
      await exited
      daemons.delete(child)
    }
  }
  const deadline = Date.now() + 15_000
  for (;;) {
    if (ended()) throw new Error(`daemon exited early: ${output()}`)
    const ready = await post(port, "/api/call", { name: "get_state", arguments: {} }, authorized()).catch(() => undefined)
    if (ready?.status === 200) return daemon
    if (Date.now() > deadline) throw new Error(`daemon did not become ready: ${output()}`)
    await sleep(50)
  }
}

/** Kills the daemons a test file left running and answers how many there were (tests assert none). */
export const killAllDaemons = async () => {
  const left = [...daemons].filter((child) => child.exitCode === null && child.signalCode === null)
  for (const child of left) child.kill("SIGKILL")
  daemons.clear()
  return left.length
}

/** Polls until `check` answers a value, failing after `withinMs`. */
export const eventually = async <A>(check: () => Promise<A | undefined> | A | undefined, withinMs = 20_000, what = "condition") => {
  const deadline = Date.now() + withinMs
  for (;;) {
    const value = await check()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(100)
  }
}

export const TERMINAL = new Set(["completed", "failed", "cancelled"])

/** `get_run` until the run has ended. */
export const awaitTerminal = (daemon: Daemon, runId: string, withinMs = 40_000) =>
  eventually(async () => {
    const { run } = await daemon.call("get_run", { run_id: runId })
    return TERMINAL.has(run.status) ? run : undefined
  }, withinMs, `run ${runId} to end`).catch(async (error: unknown) => {
    // What the run was doing when it did not end: its phase, the end of its log, and its processes.
    const directory = path.join(daemon.runRoot, runId)
    const read = (name: string) => (fs.existsSync(path.join(directory, name)) ? fs.readFileSync(path.join(directory, name), "utf8") : "")
    const state = read("controller-state.json")
    const phase = state === "" ? "no state" : String(JSON.parse(state).phase)
    const log = read("run.log").split("\n").slice(-15).join("\n")
    const pids = await taggedPids(runId).catch(() => [])
    // The daemon logs where each of its Codex attempts is (AttemptReportLive).
    daemon.child.kill("SIGUSR2")
    await sleep(500)
    throw new Error(
      `${String(error)}; phase ${phase}; processes ${JSON.stringify(pids)}; daemon output:\n${daemon.output().slice(-3000)}\nrun.log:\n${log}\n${
        describeProcess(daemon.child.pid)
      }`
    )
  })

export const taggedPids = (tag: string) => pidsWithEnvironment(RUN_TAG_VARIABLE, tag)

/** The directories of the run root, read in one call: a run's temporary folder renamed meanwhile is no error. */
export const runDirectories = (runRoot: string) =>
  fs.existsSync(runRoot) ? fs.readdirSync(runRoot, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name) : []

export const readAttempt = (daemon: Daemon) =>
  JSON.parse(fs.readFileSync(path.join(daemon.root, "controllers", daemon.sessionId, "attempt.json"), "utf8"))

// ---------------------------------------------------------------------------------------------
// Configurations and repositories

export const HELLO_SAMPLE = "sample-hello-cli"

/** A non-git replay of the packaged hello-cli sample. */
export const nonGitConfig = (overrides: Record<string, unknown> = {}) => ({
  thread_id: HELLO_SAMPLE,
  request: "Create greet.py that prints a greeting.",
  beginning_kind: "non_git",
  ending_kind: "non_git",
  confirm_empty_beginning: true,
  model: MODELS[0],
  timeout_seconds: 600,
  ...overrides
})

/** git as the tests' author; with a `date`, commits carry it (the reflog records the committer date too). */
export const gitAt = (cwd: string, date: string | undefined, ...args: Array<string>) =>
  execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "Test",
      GIT_AUTHOR_EMAIL: "test@example.com",
      GIT_COMMITTER_NAME: "Test",
      GIT_COMMITTER_EMAIL: "test@example.com",
      // The tests' own `git status` must not refresh the index (racy-git entries would change what they compare).
      GIT_OPTIONAL_LOCKS: "0",
      ...(date === undefined ? {} : { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date })
    }
  }).trim()

const git = (cwd: string, ...args: Array<string>) => gitAt(cwd, undefined, ...args)

export interface TestRepository {
  /** An imported Claude thread whose recorded working directory is this repository. */
  readonly threadId: string
  readonly directory: string
  readonly baseline: string
  readonly ending: string
  readonly git: (...args: Array<string>) => string
}

/**
 * A repository with a baseline commit, Claude's ending commit after it, and a tag on the ending; and an
 * imported thread that worked in it, in `<root>/claude` (the Claude home `startDaemon({ root })` reads).
 */
export const makeRepository = (root: string, name = "project"): TestRepository => {
  const directory = path.join(root, name)
  fs.mkdirSync(directory, { recursive: true })
  git(directory, "init", "--quiet", "--initial-branch", "main")
  fs.writeFileSync(path.join(directory, "app.txt"), "baseline\n")
  git(directory, "add", ".")
  git(directory, "commit", "--quiet", "-m", "baseline")
  const baseline = git(directory, "rev-parse", "HEAD")
  fs.writeFileSync(path.join(directory, "app.txt"), "claude's answer\n")
  fs.writeFileSync(path.join(directory, "answer.txt"), "the secret solution\n")
  git(directory, "add", ".")
  git(directory, "commit", "--quiet", "-m", "claude's ending")
  const ending = git(directory, "rev-parse", "HEAD")
  git(directory, "tag", "solution")
  const threadId = randomUUID()
  writeChunkThread(path.join(root, "claude"), threadId, directory)
  return { threadId, directory, baseline, ending, git: (...args) => git(directory, ...args) }
}

export const gitConfig = (repository: TestRepository, overrides: Record<string, unknown> = {}) => ({
  thread_id: repository.threadId,
  request: "Update app.txt as requested.",
  repo: repository.directory,
  beginning_kind: "git",
  ending_kind: "git",
  baseline_commit: repository.baseline,
  ending_commit: repository.ending,
  model: MODELS[0],
  timeout_seconds: 600,
  ...overrides
})

export const readLog = (runRoot: string, runId: string) => fs.readFileSync(path.join(runRoot, runId, "run.log"), "utf8")

/** Prepares, approves and starts a configuration; answers the start result with its prepare token. */
export const approveAndStart = async (daemon: Daemon, config: Record<string, unknown>) => {
  const prepared = await daemon.call("prepare_run", config)
  if (prepared.status !== "ready_for_approval") {
    throw new Error(`The configuration is not ready: ${JSON.stringify(prepared.blockers ?? prepared)}`)
  }
  const started = await daemon.call("start_run", { ...config, approved: true, prepare_token: prepared.prepare_token })
  return { ...started, token: prepared.prepare_token as string }
}
