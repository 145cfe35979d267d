import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { RUN_TAG_VARIABLE } from "../../../src/domain/product.js"
import { isAlive } from "../../support/daemon.js"
import { approveAndStart, type Daemon, eventually, killAllDaemons, nonGitConfig, readLog, scratch, startDaemon, taggedPids } from "../../runs/support.js"

afterAll(async () => expect(await killAllDaemons()).toBe(0))

const hangEnvironment = (root: string) => ({
  FAKE_CODEX_MARKER: path.join(root, "marker"),
  FAKE_CODEX_MARKER_DELAY_MS: "600000",
  FAKE_CODEX_PIDFILE: path.join(root, "pids")
})

const stateOf = (daemon: Daemon, runId: string) =>
  JSON.parse(fs.readFileSync(path.join(daemon.runRoot, runId, "controller-state.json"), "utf8"))

/** A hanging replay whose tool command runs, plus a `sleep 3600` of its own session carrying the run's tag. */
const hangingRun = async (daemon: Daemon) => {
  const { run_id } = await approveAndStart(
    daemon,
    nonGitConfig({ request: "Create greet.py.\nfake-scenario: hang" })
  )
  await eventually(() => (readLog(daemon.runRoot, run_id).includes("\"command_execution\"") ? true : undefined), 30_000, "the tool command")
  const sleeper = spawn("sleep", ["3600"], { detached: true, stdio: "ignore", env: { ...process.env, [RUN_TAG_VARIABLE]: run_id } })
  sleeper.unref()
  return { runId: run_id, sleeper: sleeper.pid! }
}

describe("any daemon of the installation cleans up after a daemon that died", () => {
  it("a daemon with another session marks the dead daemon's runs interrupted and ends their processes, and leaves a live daemon's runs alone", async () => {
    const root = scratch()
    const env = hangEnvironment(root)
    const dying = await startDaemon({ root, env })
    const living = await startDaemon({ root, env })
    let cleaner: Daemon | undefined
    try {
      const dead = await hangingRun(dying)
      const alive = await hangingRun(living)
      const leftBehind = await taggedPids(dead.runId)
      expect(leftBehind).toContain(dead.sleeper)
      await dying.kill9()
      expect((await taggedPids(dead.runId)).length).toBeGreaterThan(0)

      // What a killed daemon left of a run it was making (its staging directory): removed once it is old enough.
      const staging = (name: string, ageMs: number) => {
        const directory = path.join(dying.runRoot, `.creating-${name}`)
        fs.mkdirSync(directory, { mode: 0o700 })
        const at = new Date(Date.now() - ageMs)
        fs.utimesSync(directory, at, at)
        return directory
      }
      const abandoned = staging("run-abandoned", 11 * 60 * 1000)
      const recent = staging("run-recent", 1000)

      cleaner = await startDaemon({ root, env })
      expect(cleaner.sessionId).not.toBe(dying.sessionId)
      expect(fs.existsSync(abandoned)).toBe(false)
      expect(fs.existsSync(recent)).toBe(true)
      expect(stateOf(dying, dead.runId)).toMatchObject({
        status: "failed",
        interrupted: true,
        failure_diagnostic: { controller_code: "coordinator_stopped" }
      })
      expect(await taggedPids(dead.runId)).toEqual([])
      expect(leftBehind.filter(isAlive)).toEqual([])

      // The live daemon's run is untouched, and so are its processes.
      expect(stateOf(living, alive.runId).status).toBe("running")
      expect(isAlive(alive.sleeper)).toBe(true)

      // A daemon that dies while the cleaner runs is cleaned up by it, periodically.
      await living.kill9()
      await eventually(() => (stateOf(living, alive.runId).status === "failed" ? true : undefined), 45_000, "the periodic clean-up")
      expect(stateOf(living, alive.runId)).toMatchObject({ interrupted: true })
      await eventually(async () => ((await taggedPids(alive.runId)).length === 0 ? true : undefined), 10_000, "the processes to end")
      expect(isAlive(alive.sleeper)).toBe(false)
    } finally {
      await cleaner?.stop()
      await living.kill9()
      await dying.kill9()
    }
  }, 120_000)
})
