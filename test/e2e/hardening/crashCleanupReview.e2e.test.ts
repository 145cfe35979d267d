import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { isAlive } from "../../support/daemon.js"
import { fakeCodexPids, leftBehind } from "../../support/fakeCodexPids.js"
import { approveAndStart, eventually, killAllDaemons, nonGitConfig, scratch, startDaemon } from "../../runs/support.js"

afterAll(async () => expect(await killAllDaemons()).toBe(0))

const stateOf = (runRoot: string, runId: string) =>
  JSON.parse(fs.readFileSync(path.join(runRoot, runId, "controller-state.json"), "utf8"))

describe("a daemon killed while a reviewer works", () => {
  it("leaves a private folder holding both candidates and live processes; the next daemon on the run root removes the one and ends the others", async () => {
    const root = scratch()
    const pidfile = path.join(root, "pids")
    const env = {
      FAKE_CODEX_READ_ONLY_SCENARIO: "hang",
      FAKE_CODEX_PIDFILE: pidfile,
      FAKE_CODEX_MARKER: path.join(root, "marker"),
      FAKE_CODEX_MARKER_DELAY_MS: "600000"
    }
    const dying = await startDaemon({ root, env })
    let next: Awaited<ReturnType<typeof startDaemon>> | undefined
    try {
      const { run_id } = await approveAndStart(dying, nonGitConfig())
      await eventually(() => (fs.existsSync(pidfile) ? true : undefined), 30_000, "the hanging reviewer")
      expect((await dying.call("get_run", { run_id })).run.phase).toBe("reviewing")

      // The reviewer works in <tmp>/private-XXXXXX/workspace-XXXXXX, which holds both candidates.
      const pids = fakeCodexPids(pidfile)
      const workspace = fs.readlinkSync(`/proc/${pids[0]}/cwd`)
      const privateFolder = path.dirname(workspace)
      expect(path.basename(privateFolder)).toMatch(/^private-/)
      expect(fs.readdirSync(workspace).sort()).toEqual(expect.arrayContaining(["candidate-a.json", "candidate-b.json"]))
      expect(fs.readFileSync(path.join(privateFolder, ".owner"), "utf8")).toContain(`"pid":${dying.child.pid}`)

      await dying.kill9()
      // What the killed daemon left: the folder, its reviewer and the reviewer's tool command.
      expect(fs.existsSync(privateFolder)).toBe(true)
      const orphans = leftBehind(pidfile, pids)
      expect(orphans.length).toBeGreaterThanOrEqual(2)

      next = await startDaemon({ root, env: {} })
      await eventually(() => (fs.existsSync(privateFolder) ? undefined : true), 20_000, "the private folder to be removed")
      await eventually(() => (leftBehind(pidfile, pids).length === 0 ? true : undefined), 20_000, "the orphaned processes to end")
      expect(orphans.filter(isAlive)).toEqual([])
      expect(stateOf(dying.runRoot, run_id)).toMatchObject({ status: "failed", interrupted: true })
    } finally {
      await next?.stop()
      await dying.kill9()
    }
  }, 120_000)
})
