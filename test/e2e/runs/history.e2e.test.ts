import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { listTree } from "../../support/daemon.js"
import {
  approveAndStart as start,
  awaitTerminal,
  eventually,
  HELLO_SAMPLE,
  killAllDaemons,
  MODELS,
  nonGitConfig,
  readLog,
  scratch,
  startDaemon
} from "../../runs/support.js"

// Every daemon was stopped by its test; none is left behind.
afterAll(async () => expect(await killAllDaemons()).toBe(0))

describe("run history across controllers", () => {
  it("keeps every run in the run root: reruns, list_runs, reports and downloads after a restart; only the supervisor cancels", async () => {
    const root = scratch()
    const first = await startDaemon({ root })
    let firstRuns: Array<string>
    try {
      const one = await start(first, nonGitConfig())
      expect((await awaitTerminal(first, one.run_id)).status).toBe("completed")
      // The same thread again: a new run, then a cancelled one, then another after the cancel.
      const two = await start(first, nonGitConfig({ models: [MODELS[0], MODELS[1]], model: undefined }))
      expect(two.runs).toHaveLength(2)
      for (const run of two.runs) expect((await awaitTerminal(first, run.run_id)).status).toBe("completed")
      firstRuns = [one.run_id, ...two.runs.map((run: { run_id: string }) => run.run_id)]
    } finally {
      await first.stop()
    }

    const second = await startDaemon({ root })
    const hanging = await startDaemon({
      root,
      env: { FAKE_CODEX_MARKER: path.join(root, "marker"), FAKE_CODEX_MARKER_DELAY_MS: "60000" }
    })
    try {
      const listed = await second.call("list_runs", {})
      expect(listed.total).toBe(3)
      expect(listed.runs.map((run: { run_id: string }) => run.run_id).sort()).toEqual([...firstRuns].sort())
      const newestFirst = listed.runs.map((run: { started_at: string }) => run.started_at)
      expect([...newestFirst].sort().reverse()).toEqual(newestFirst)
      for (const run of listed.runs) {
        expect(run).toMatchObject({ thread_id: HELLO_SAMPLE, status: "completed", report_ready: true })
        expect(typeof run.winner).toBe("string")
        expect(run.dimensions.won + run.dimensions.tied + run.dimensions.lost).toBe(6)
        expect(run.supervision).toMatchObject({ this_controller: false, live: false, read_only: false })
      }

      // Reports and downloads of a run the previous controller ran.
      const report = await second.call("get_report", { run_id: firstRuns[0] })
      expect(report.report.run_id).toBe(firstRuns[0])
      const html = await second.call("get_report", { run_id: firstRuns[0], format: "html" })
      expect(html.artifact_content).toContain("<html")
      const run = (await second.call("get_run", { run_id: firstRuns[0] })).run
      expect(run.status).toBe("completed")

      // A rerun from the new controller, then a run another live controller executes: read-only here.
      const rerun = await start(second, nonGitConfig())
      expect((await awaitTerminal(second, rerun.run_id)).status).toBe("completed")
      const busy = await start(hanging, nonGitConfig({ request: "Create greet.py.\nfake-scenario: hang" }))
      await eventually(() => (readLog(root + "/runs", busy.run_id).includes("\"command_execution\"") ? true : undefined))
      const seen = (await second.call("get_run", { run_id: busy.run_id })).run
      expect(seen.supervision).toMatchObject({
        controller_session_id: hanging.sessionId,
        this_controller: false,
        live: true,
        read_only: true,
        controller_url: `http://127.0.0.1:${hanging.port}/`
      })
      expect(await second.refused("cancel_run", { run_id: busy.run_id })).toMatch(
        new RegExp(`different controller session \\(${hanging.sessionId}\\); only that controller can change it`)
      )
      expect((await hanging.call("get_run", { run_id: busy.run_id })).run.status).toBe("running")

      // Filters and pages.
      expect((await second.call("list_runs", { status: "running" })).runs.map((r: { run_id: string }) => r.run_id)).toEqual([busy.run_id])
      expect((await second.call("list_runs", { query: MODELS[1] })).total).toBe(1)
      expect((await second.call("list_runs", { query: hanging.sessionId })).total).toBe(1)
      const page = await second.call("list_runs", { limit: 2, offset: 1 })
      expect(page).toMatchObject({ total: 5, offset: 1, limit: 2, has_more: true })
      expect(page.runs).toHaveLength(2)
      const all = await second.call("list_runs", {})
      const someWinner = all.runs.find((r: { winner: string | null }) => r.winner !== null).winner
      const byWinner = await second.call("list_runs", { winner: someWinner })
      expect(byWinner.runs.every((r: { winner: string }) => r.winner === someWinner)).toBe(true)
      expect(byWinner.total).toBeGreaterThan(0)

      // Bad arguments: one sentence, nothing written.
      const before = listTree(root + "/runs")
      expect(await second.refused("list_runs", { status: "done" })).toBe("status: must be one of running, completed, failed, cancelled.")
      expect(await second.refused("list_runs", { limit: 0 })).toBe("limit: must be a whole number from 1 through 200.")
      expect(await second.refused("list_runs", { offset: -1 })).toBe("offset: must be a whole number from 0 through 1000000.")
      expect(await second.refused("list_runs", { winner: "nobody" })).toBe("winner: must be one of codex, claude, tie, inconclusive.")
      expect(await second.refused("list_runs", { query: 7 })).toMatch(/^query: /)
      expect(listTree(root + "/runs")).toEqual(before)

      expect((await hanging.call("cancel_run", { run_id: busy.run_id })).run.status).toBe("cancelled")
    } finally {
      await hanging.stop()
      await second.stop()
    }
    expect(fs.existsSync(path.join(root, "marker"))).toBe(false)
  }, 150_000)
})
