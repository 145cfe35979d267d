import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import {
  approveAndStart as start,
  awaitTerminal,
  type Daemon,
  eventually,
  killAllDaemons,
  MODELS,
  nonGitConfig,
  readAttempt,
  readLog,
  scratch,
  sleep,
  startDaemon,
  taggedPids
} from "../../runs/support.js"

// Every daemon was stopped by its test; none is left behind.
afterAll(async () => expect(await killAllDaemons()).toBe(0))

const implementationWindow = (daemon: Daemon, runId: string) => {
  const log = readLog(daemon.runRoot, runId)
  const at = (marker: string) => Date.parse(log.split("\n").find((line) => line.includes(marker))?.slice(0, 24) ?? "")
  return { started: at("[implementation] started"), finished: at("[implementation] finished") }
}

const phaseOf = async (daemon: Daemon, runId: string) => (await daemon.call("get_run", { run_id: runId })).run

describe("parallel models", () => {
  it("runs two models side by side, each in its own run", async () => {
    const daemon = await startDaemon({ env: { FAKE_CODEX_DELAY_MS: "80" } })
    try {
      const config = nonGitConfig({ model: undefined, models: [MODELS[0], MODELS[1]], request: "Create greet.py.\nfake-scenario: slow" })
      const prepared = await daemon.call("prepare_run", config)
      expect(prepared.approval_prompt).toMatch(/Approve 2 parallel Codex implementations/)
      expect(Object.keys(prepared.prepared_configuration_sha256_by_model)).toEqual([MODELS[0], MODELS[1]])
      const started = await daemon.call("start_run", { ...config, approved: true, prepare_token: prepared.prepare_token })
      expect(started.runs.map((run: { model: string }) => run.model)).toEqual([MODELS[0], MODELS[1]])
      const [first, second] = started.runs.map((run: { run_id: string }) => run.run_id) as [string, string]
      expect(first).not.toBe(second)
      expect(readAttempt(daemon).models.map((entry: { launch_status: string }) => entry.launch_status)).toEqual(["started", "started"])

      const runs = await Promise.all([awaitTerminal(daemon, first), awaitTerminal(daemon, second)])
      expect(runs.map((run) => [run.status, run.model])).toEqual([["completed", MODELS[0]], ["completed", MODELS[1]]])
      const [a, b] = [implementationWindow(daemon, first), implementationWindow(daemon, second)]
      expect(a.started).toBeLessThan(b.finished)
      expect(b.started).toBeLessThan(a.finished)
    } finally {
      await daemon.stop()
    }
  })

  it("runs at most four at once: a fifth start waits in queued until a slot frees", async () => {
    const root = scratch()
    const daemon = await startDaemon({ root, env: { FAKE_CODEX_MARKER: path.join(root, "marker"), FAKE_CODEX_MARKER_DELAY_MS: "60000" } })
    try {
      const four = await start(daemon, nonGitConfig({ model: undefined, models: [...MODELS], request: "Create greet.py.\nfake-scenario: hang" }))
      const ids = four.runs.map((run: { run_id: string }) => run.run_id) as Array<string>
      expect(ids).toHaveLength(4)
      await eventually(async () => {
        const states = await Promise.all(ids.map((id) => phaseOf(daemon, id)))
        return states.every((state) => state.phase === "implementing") ? true : undefined
      }, 20_000, "four runs implementing")

      const fifth = await start(daemon, nonGitConfig())
      await sleep(1500)
      const waiting = await phaseOf(daemon, fifth.run_id)
      expect(waiting).toMatchObject({ status: "running", phase: "queued" })
      expect(readLog(daemon.runRoot, fifth.run_id)).not.toContain("creating_workspace")
      const state = await daemon.call("get_state")
      expect(state.state.recent_runs.filter((run: { status: string }) => run.status === "running")).toHaveLength(5)

      await daemon.call("cancel_run", { run_id: ids[0] })
      const finished = await awaitTerminal(daemon, fifth.run_id)
      expect(finished.status).toBe("completed")
      for (const id of ids.slice(1)) expect((await phaseOf(daemon, id)).status).toBe("running")

      for (const id of ids.slice(1)) await daemon.call("cancel_run", { run_id: id })
      for (const id of [...ids, fifth.run_id]) expect(await taggedPids(id)).toEqual([])
    } finally {
      await daemon.stop()
    }
  })
})
