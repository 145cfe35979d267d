import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import {
  approveAndStart as start,
  awaitTerminal,
  type Daemon,
  eventually,
  HELLO_SAMPLE,
  killAllDaemons,
  nonGitConfig,
  readLog,
  runDirectories,
  scratch,
  sleep,
  startDaemon,
  taggedPids
} from "../../runs/support.js"
import { isAlive } from "../../support/daemon.js"
import { describeLeftBehind, fakeCodexPids } from "../../support/fakeCodexPids.js"

// Every daemon was stopped by its test; none is left behind.
afterAll(async () => expect(await killAllDaemons()).toBe(0))

/** Waits until the hanging fake has started its tool command (in its own session, like real Codex). */
const awaitHangingTool = (daemon: Daemon, runId: string) =>
  eventually(() => (readLog(daemon.runRoot, runId).includes("\"command_execution\"") ? true : undefined), 20_000, "the tool command")

/** The marker's 4 s are past what a busy machine takes from the tool's start to a cancellation, and are waited out after one. */
const hangEnvironment = (root: string, markerDelayMs = 4000) => ({
  FAKE_CODEX_MARKER: path.join(root, "marker"),
  FAKE_CODEX_MARKER_DELAY_MS: String(markerDelayMs),
  FAKE_CODEX_PIDFILE: path.join(root, "pids")
})

describe("retries", () => {
  it("retries a retryable failure twice in fresh workspaces, then succeeds", async () => {
    const daemon = await startDaemon({ env: { FAKE_CODEX_FAIL_TIMES: "2" } })
    try {
      const { run_id } = await start(daemon, nonGitConfig({ request: "Create greet.py.\nfake-scenario: flaky" }))
      const run = await awaitTerminal(daemon, run_id)
      expect(run.status).toBe("completed")
      expect(run.implementation_attempt).toBe(3)
      expect(run.failure_diagnostic).toBeNull()
      const workspaces = fs.readdirSync(path.join(daemon.runRoot, run_id, "workspaces")).filter((name) => name.startsWith("codex"))
      expect(workspaces.sort()).toEqual(["codex", "codex-attempt-1-failed", "codex-attempt-2-failed", "codex-snapshot.git"])
      const log = readLog(daemon.runRoot, run_id)
      expect(log).toContain("starting retry 1 of 3")
      expect(log).toContain("starting retry 2 of 3")
      expect(log).not.toContain("starting retry 3 of 3")
      expect(log).toContain("[implementation:retry-2] finished with exit code 0")
      expect(await taggedPids(run_id)).toEqual([])
    } finally {
      await daemon.stop()
    }
  })

  it("a Codex CLI that is not there: the built-in models are offered, and the replay is blocked before approval, saying what to do", async () => {
    const missing = "/nonexistent/bin/codex"
    const daemon = await startDaemon({ env: { CODEX_CLI_PATH: missing } })
    try {
      const state = (await daemon.call("get_state", {})).state
      expect(state.models.length).toBeGreaterThan(0)
      expect(state.diagnostics[0].message).toContain(missing)
      const prepared = await daemon.call("prepare_run", nonGitConfig())
      const sentence = `The Codex CLI ${missing} does not exist or is not executable: ` +
        "install Codex (npm install -g @openai/codex) or set CODEX_CLI_PATH to its executable, then run `codex login`."
      expect(prepared).toMatchObject({
        status: "blocked",
        ready: false,
        prepare_token: null,
        blockers: [sentence],
        preflight: { status: "codex_missing", ready: false, codex_path: null, message: sentence }
      })
      expect(await daemon.refused("start_run", { ...nonGitConfig(), approved: true, prepare_token: "x".repeat(43) }))
        .toBe("The prepare token is unknown to this controller or has expired. Prepare and approve the run again.")
      expect(runDirectories(daemon.runRoot)).toEqual([])
    } finally {
      await daemon.stop()
    }
  })

  it("does not retry a non-retryable failure", async () => {
    const daemon = await startDaemon()
    try {
      const { run_id } = await start(daemon, nonGitConfig({ request: "Create greet.py.\nfake-scenario: bad_request" }))
      const run = await awaitTerminal(daemon, run_id)
      expect(run.status).toBe("failed")
      expect(run.implementation_attempt).toBe(1)
      expect(run.failure_diagnostic).toMatchObject({ worker_code: "bad_request", retryable: false, retry_count: 0 })
      expect(run.error).toMatch(/./)
      expect(fs.readdirSync(path.join(daemon.runRoot, run_id, "workspaces"))).not.toContain("codex-attempt-1-failed")
      expect(readLog(daemon.runRoot, run_id)).not.toContain("starting retry")
    } finally {
      await daemon.stop()
    }
  })
})

describe("cancellation", () => {
  it("cancels during implementing: no process left, state cancelled, idempotent, other controllers refused", async () => {
    const root = scratch()
    const daemon = await startDaemon({ root, env: hangEnvironment(root) })
    try {
      const { run_id } = await start(daemon, nonGitConfig({ request: "Create greet.py.\nfake-scenario: hang" }))
      await awaitHangingTool(daemon, run_id)
      expect((await daemon.call("get_run", { run_id })).run.phase).toBe("implementing")
      const pidfile = path.join(root, "pids")
      const pids = [...(await taggedPids(run_id)), ...fakeCodexPids(pidfile)]
      expect(pids.length).toBeGreaterThan(1)
      expect(pids.every(isAlive)).toBe(true)

      const cancelled = await daemon.call("cancel_run", { run_id })
      expect(cancelled.idempotent).toBe(false)
      expect(cancelled.run.status).toBe("cancelled")
      // Everything the run started is gone by the time cancel_run answers.
      expect(await taggedPids(run_id)).toEqual([])
      expect(describeLeftBehind(pidfile, pids)).toEqual([])

      const state = (await daemon.call("get_run", { run_id })).run
      expect(state).toMatchObject({ status: "cancelled", error: "Cancelled by user.", cancellation_reason: "user_requested" })
      const log = readLog(daemon.runRoot, run_id)
      expect(log).toContain("The run was cancelled by the user.")
      expect(log).toContain("cancelled; Codex and its processes were stopped")

      const again = await daemon.call("cancel_run", { run_id })
      expect(again.idempotent).toBe(true)
      expect(again.run.status).toBe("cancelled")

      const other = await startDaemon({ root })
      try {
        expect(await other.refused("cancel_run", { run_id })).toMatch(/different controller session/)
      } finally {
        await other.stop()
      }
      await sleep(4000)
      expect(fs.existsSync(path.join(root, "marker"))).toBe(false)
      expect((await daemon.call("get_run", { run_id })).run.status).toBe("cancelled")
    } finally {
      await daemon.stop()
    }
  })

  it("marks a running replay interrupted when the daemon shuts down", async () => {
    const root = scratch()
    const daemon = await startDaemon({ root, env: hangEnvironment(root) })
    const { run_id } = await start(daemon, nonGitConfig({ request: "Create greet.py.\nfake-scenario: hang" }))
    await awaitHangingTool(daemon, run_id)
    await daemon.stop()
    const state = JSON.parse(fs.readFileSync(path.join(daemon.runRoot, run_id, "controller-state.json"), "utf8"))
    expect(state).toMatchObject({ status: "failed", interrupted: true })
    expect(await taggedPids(run_id)).toEqual([])
  })
})

describe("recovery after kill -9", () => {
  it("marks the orphaned run interrupted, ends its processes, changes nothing else, and stays idempotent", async () => {
    const root = scratch()
    // Until a daemon is back, what the run left behind keeps running: the grandchild must not write before the sweep.
    const first = await startDaemon({ root, env: hangEnvironment(root, 60_000) })
    const finishedConfig = nonGitConfig()
    const finished = await start(first, finishedConfig)
    expect((await awaitTerminal(first, finished.run_id)).status).toBe("completed")
    const finishedStatePath = path.join(first.runRoot, finished.run_id, "controller-state.json")
    const finishedState = fs.readFileSync(finishedStatePath, "utf8")

    const hangingConfig = nonGitConfig({ request: "Create greet.py.\nfake-scenario: hang" })
    const hanging = await start(first, hangingConfig)
    await awaitHangingTool(first, hanging.run_id)
    await first.kill9()
    const leftBehind = await taggedPids(hanging.run_id)
    expect(leftBehind.length).toBeGreaterThan(0)

    const second = await startDaemon({ root, sessionId: first.sessionId, env: hangEnvironment(root, 60_000) })
    try {
      const run = (await second.call("get_run", { run_id: hanging.run_id })).run
      expect(run).toMatchObject({
        status: "failed",
        interrupted: true,
        failure_diagnostic: { controller_code: "coordinator_stopped", worker_stage: "outside_worker" }
      })
      expect(await taggedPids(hanging.run_id)).toEqual([])
      expect(leftBehind.filter(isAlive)).toEqual([])
      expect(fs.readFileSync(finishedStatePath, "utf8")).toBe(finishedState)

      // The same tokens after the restart: the same runs, idempotent, nothing new on disk.
      const again = await second.call("start_run", { ...hangingConfig, approved: true, prepare_token: hanging.token })
      expect(again).toMatchObject({ idempotent: true, run_id: hanging.run_id })
      const againFinished = await second.call("start_run", { ...finishedConfig, approved: true, prepare_token: finished.token })
      expect(againFinished).toMatchObject({ idempotent: true, run_id: finished.run_id })
      expect(await second.refused("start_run", { ...finishedConfig, timeout_seconds: 7, approved: true, prepare_token: finished.token }))
        .toMatch(/approved configuration changed/)
      expect(runDirectories(second.runRoot).sort()).toEqual([finished.run_id, hanging.run_id].sort())
      expect(fs.existsSync(path.join(root, "marker"))).toBe(false)
      expect(HELLO_SAMPLE).toBe(run.thread_id)
    } finally {
      await second.stop()
    }
  })
})
