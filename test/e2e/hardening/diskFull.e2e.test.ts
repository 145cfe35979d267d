import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { request } from "../../support/daemon.js"
import { fill, mountTmpfs } from "../../support/smallDisk.js"
import { approveAndStart, type Daemon, eventually, killAllDaemons, nonGitConfig, scratch, startDaemon } from "../../runs/support.js"

afterAll(async () => expect(await killAllDaemons()).toBe(0))

const mounted: Array<string> = []
afterAll(() => {
  for (const directory of mounted) spawnSync("umount", ["-l", directory])
})

/** A small tmpfs as the run root, or why there cannot be one on this machine. */
const smallDisk = (root: string): string | { readonly skipped: string } => {
  const runRoot = path.join(root, "runs")
  fs.mkdirSync(runRoot, { mode: 0o700 })
  const mount = mountTmpfs(runRoot, "4m")
  if (mount.status !== 0) return { skipped: `mount -t tmpfs is not allowed here (${(mount.stderr || mount.error?.message || "").trim()})` }
  mounted.push(runRoot)
  return runRoot
}


const stateOnDisk = (daemon: Daemon, runId: string) =>
  JSON.parse(fs.readFileSync(path.join(daemon.runRoot, runId, "controller-state.json"), "utf8"))

const activeRuns = async (daemon: Daemon) =>
  (await request(daemon.port, "/health", { host: `127.0.0.1:${daemon.port}`, token: daemon.apiToken() })).json.active_runs

const shutdown = (daemon: Daemon) => {
  const token = JSON.parse(fs.readFileSync(path.join(daemon.root, "controllers", daemon.sessionId, "controller-server.json"), "utf8")).control_token
  return request(daemon.port, "/api/shutdown", { method: "POST", headers: { "X-Codex-Replay-Control": token }, token: daemon.apiToken() })
}

const runningOnDisk = (daemon: Daemon) =>
  fs.readdirSync(daemon.runRoot).filter((name) => {
    const file = path.join(daemon.runRoot, name, "controller-state.json")
    return fs.existsSync(file) && JSON.parse(fs.readFileSync(file, "utf8")).status === "running"
  })

describe("a full disk under the run root", () => {
  it.for([0, 8192])("a start that fails (%i bytes left) leaves no active run, and the daemon can still shut down", async (leaveBytes, context) => {
    const root = scratch()
    const runRoot = smallDisk(root)
    if (typeof runRoot !== "string") return context.skip(runRoot.skipped)
    const daemon = await startDaemon({ root })
    try {
      const prepared = await daemon.call("prepare_run", nonGitConfig())
      const giveBack = fill(runRoot, leaveBytes)
      const refused = await request(daemon.port, "/api/call", {
        method: "POST",
        host: `127.0.0.1:${daemon.port}`,
        token: daemon.apiToken(),
        headers: { "Content-Type": "application/json", Origin: `http://127.0.0.1:${daemon.port}` },
        body: JSON.stringify({ name: "start_run", arguments: { ...nonGitConfig(), approved: true, prepare_token: prepared.prepare_token } })
      })
      // The machine's failure, not the caller's: a 5xx with a sentence, never a 4xx.
      expect(refused.status).toBeGreaterThanOrEqual(500)
      expect(refused.json).toMatchObject({ isError: true, content: [{ type: "text", text: expect.any(String) }] })
      expect(await activeRuns(daemon)).toBe(0)
      // A run that was created ended at once, in memory, with the reason; on disk once space returns.
      for (const runId of runningOnDisk(daemon)) {
        expect((await daemon.call("get_run", { run_id: runId })).run).toMatchObject({
          status: "failed",
          failure_diagnostic: { controller_code: "launch_failed" }
        })
      }
      giveBack()
      await eventually(() => (runningOnDisk(daemon).length === 0 ? true : undefined), 10_000, "no running state on disk")
      expect((await shutdown(daemon)).status).toBe(200)
      await daemon.exited
    } finally {
      await daemon.stop()
    }
  })

  it("a disk that fills while implementing ends the run failed with storage_error, in memory at once and on disk once space returns", async (context) => {
    const root = scratch()
    const runRoot = smallDisk(root)
    if (typeof runRoot !== "string") return context.skip(runRoot.skipped)
    const daemon = await startDaemon({
      root,
      env: { FAKE_CODEX_DELAY_MS: "400", FAKE_CODEX_WRITE_FILE: path.join(root, "agent-output.md") }
    })
    try {
      const { run_id } = await approveAndStart(daemon, nonGitConfig({ request: "Create greet.py.\nfake-scenario: slow" }))
      await eventually(async () => ((await daemon.call("get_run", { run_id })).run.phase === "implementing" ? true : undefined), 30_000, "implementing")
      const giveBack = fill(runRoot)
      const ended = await eventually(async () => {
        const { run } = await daemon.call("get_run", { run_id }).catch(() => ({ run: undefined }))
        return run !== undefined && run.status !== "running" ? run : undefined
      }, 30_000, "the run to end")
      expect(ended).toMatchObject({ status: "failed", failure_diagnostic: { controller_code: "storage_error" } })
      expect(await eventually(async () => ((await activeRuns(daemon)) === 0 ? true : undefined), 5_000, "no active run")).toBe(true)
      expect(stateOnDisk(daemon, run_id).status).toBe("running")
      giveBack()
      await eventually(() => (stateOnDisk(daemon, run_id).status === "failed" ? true : undefined), 10_000, "the state on disk")
      expect(stateOnDisk(daemon, run_id)).toMatchObject({ failure_diagnostic: { controller_code: "storage_error" } })
      expect((await shutdown(daemon)).status).toBe(200)
      await daemon.exited
    } finally {
      await daemon.stop()
    }
  })
})
