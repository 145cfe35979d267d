import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { RUN_TAG_VARIABLE } from "../../../src/domain/product.js"
import { isAlive } from "../../support/daemon.js"
import {
  approveAndStart,
  type Daemon,
  eventually,
  killAllDaemons,
  nonGitConfig,
  readLog,
  scratch,
  startDaemon,
  taggedPids
} from "../../runs/support.js"

afterAll(async () => expect(await killAllDaemons()).toBe(0))

/** The grandchild of the tool command writes the marker this long after it starts, unless it was ended. */
const MARKER_DELAY_MS = 6000

const hangingRun = async (daemon: Daemon, root: string) => {
  const { run_id } = await approveAndStart(daemon, nonGitConfig({ request: "Create greet.py.\nfake-scenario: hang" }))
  await eventually(() => (readLog(root + "/runs", run_id).includes("\"command_execution\"") ? true : undefined), 30_000, "the tool command")
  const started = Date.now()
  const processes = await taggedPids(run_id)
  expect(processes.length).toBeGreaterThan(1)
  return { runId: run_id, processes, markerDue: started + MARKER_DELAY_MS }
}

const stateOf = (root: string, runId: string) =>
  JSON.parse(fs.readFileSync(path.join(root, "runs", runId, "controller-state.json"), "utf8"))

const environment = (root: string) => ({ FAKE_CODEX_MARKER: path.join(root, "marker"), FAKE_CODEX_MARKER_DELAY_MS: String(MARKER_DELAY_MS) })

/** What the next daemon must leave: none of the run's processes, and no marker once it was due. */
const expectNothingLeft = async (root: string, run: Awaited<ReturnType<typeof hangingRun>>) => {
  await eventually(async () => ((await taggedPids(run.runId)).length === 0 ? true : undefined), 15_000, "the run's processes to end")
  expect(run.processes.filter(isAlive)).toEqual([])
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, run.markerDue + 1500 - Date.now())))
  expect(fs.existsSync(path.join(root, "marker"))).toBe(false)
}

describe("a cancel is a promise kept across crashes", () => {
  // The daemon is killed after `cancel_run` wrote `cancelled` and before it swept: the state file as it left it.
  it.each(["the same", "a new"])("%s controller session started next ends the processes of a run a crash left cancelled", async (which) => {
    const root = scratch()
    const first = await startDaemon({ root, env: environment(root) })
    let next: Daemon | undefined
    try {
      const run = await hangingRun(first, root)
      await first.kill9()
      const file = path.join(root, "runs", run.runId, "controller-state.json")
      fs.writeFileSync(file, JSON.stringify({ ...stateOf(root, run.runId), status: "cancelled", summary: "The run was cancelled by the user." }))
      expect((await taggedPids(run.runId)).length).toBeGreaterThan(1)

      next = await startDaemon({ root, env: environment(root), ...(which === "the same" ? { sessionId: first.sessionId } : {}) })
      await expectNothingLeft(root, run)
      expect(stateOf(root, run.runId).status).toBe("cancelled")
    } finally {
      await next?.stop()
    }
  }, 120_000)

  // Real timing: before the `cancelled` write, between the write and the sweep, or after it.
  it.each([15])("a daemon killed %i ms into cancel_run leaves nothing alive once the next daemon started", async (delay) => {
    const root = scratch()
    const first = await startDaemon({ root, env: environment(root) })
    let next: Daemon | undefined
    try {
      const run = await hangingRun(first, root)
      const cancelling = first.call("cancel_run", { run_id: run.runId }).catch(() => undefined)
      await new Promise((resolve) => setTimeout(resolve, delay))
      await first.kill9()
      await cancelling

      // The same controller session starts again, as the page's "open" would.
      next = await startDaemon({ root, sessionId: first.sessionId, env: environment(root) })
      await expectNothingLeft(root, run)
      expect(["cancelled", "failed"]).toContain(stateOf(root, run.runId).status)
    } finally {
      await next?.stop()
      await first.kill9()
    }
  }, 120_000)

  it("cancel_run asked again of an ended run sweeps again, and says it had already ended; kill -USR2 says where attempts are", async () => {
    const root = scratch()
    const daemon = await startDaemon({ root, env: environment(root) })
    try {
      const run = await hangingRun(daemon, root)
      // Where its attempt is, on request: waiting for Codex's next event after the tool command started.
      daemon.child.kill("SIGUSR2")
      await eventually(() => (/Codex attempt [0-9a-f]{24} \(implementation, [^,]+, since [0-9T:.-]+Z\): waiting for an event; \d+ event\(s\), the last item\.started\./.test(daemon.output()) ? true : undefined), 10_000, "the attempt report")
      expect((await daemon.call("cancel_run", { run_id: run.runId })).idempotent).toBe(false)
      daemon.child.kill("SIGUSR2")
      await eventually(() => (daemon.output().includes("No Codex attempt is under way.") ? true : undefined), 10_000, "the empty report")
      expect(await taggedPids(run.runId)).toEqual([])
      // Something of the run that the first sweep could not have seen (it started later).
      const late = spawn("sleep", ["3600"], { detached: true, stdio: "ignore", env: { ...process.env, [RUN_TAG_VARIABLE]: run.runId } })
      late.unref()
      expect(isAlive(late.pid!)).toBe(true)
      const again = await daemon.call("cancel_run", { run_id: run.runId })
      expect(again).toMatchObject({ idempotent: true, run: { status: "cancelled" } })
      await eventually(() => (isAlive(late.pid!) ? undefined : true), 5_000, "the late process to end")
    } finally {
      await daemon.stop()
    }
  }, 90_000)
})
