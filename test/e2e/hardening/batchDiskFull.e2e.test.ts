import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { batchHistory, batchThreadId } from "../../runs/batchSupport.js"
import { fill, mountTmpfs } from "../../support/smallDisk.js"
import { type Daemon, eventually, killAllDaemons, MODELS, runDirectories, scratch, startDaemon } from "../../runs/support.js"

afterAll(async () => expect(await killAllDaemons()).toBe(0))

/** The in-process test that covers the same ground where this machine cannot mount a tmpfs. */
const IN_PROCESS_TEST = path.join(import.meta.dirname, "../../programs/batchDiskSpace.test.ts")


const configuration = (n: number) => ({
  thread_id: batchThreadId(n),
  request: `Batch task ${n}: create notes.md.`,
  beginning_kind: "non_git",
  ending_kind: "non_git",
  confirm_empty_beginning: true,
  models: [MODELS[0], MODELS[1]],
  timeout_seconds: 600
})

interface Summary {
  readonly status: string
  readonly counts: Record<string, number>
  readonly waiting_for?: string | null
  readonly status_note?: string | null
  readonly portfolio: { readonly portfolio_json: string; readonly portfolio_html: string } | null
}

const batchOf = async (daemon: Daemon, batchId: string): Promise<Summary> => (await daemon.call("get_batch", { batch_id: batchId })).batch

/** The batch once it says it waits for disk space to write `what`. */
const waitingFor = (daemon: Daemon, batchId: string, what: string) =>
  eventually(async () => {
    const batch = await batchOf(daemon, batchId)
    return batch.waiting_for === "disk_space" && (batch.status_note ?? "").includes(what) ? batch : undefined
  }, 60_000, `the batch to wait for disk space for ${what}`)

describe("a batch on a full disk", () => {
  it("(needs root to mount a tmpfs) waits for space before its record, its runs, between replays and before its portfolio, then finishes with all its replays and its portfolio", async () => {
    const root = scratch()
    const runRoot = path.join(root, "runs")
    fs.mkdirSync(runRoot, { mode: 0o700 })
    const mounted: Array<string> = []
    const attempt = mountTmpfs(runRoot, "64m")
    if (attempt.status !== 0) {
      // No tmpfs here (not root): the in-process test makes the disk refuse the same writes.
      expect(fs.readFileSync(IN_PROCESS_TEST, "utf8")).toContain("waits for disk space")
      return
    }
    mounted.push(runRoot)
    // The batch records and the portfolios on disks of their own, so each can be full while the runs write.
    const batches = path.join(runRoot, "batches")
    const portfolios = path.join(runRoot, "portfolios")
    for (const directory of [batches, portfolios]) {
      fs.mkdirSync(directory, { mode: 0o700 })
      expect(mountTmpfs(directory, "1m").status).toBe(0)
      mounted.unshift(directory)
    }
    batchHistory(root, 3)
    const daemon = await startDaemon({ root, env: { FAKE_CODEX_DELAY_MS: "150" } })
    try {
      const configurations = [1, 2, 3].map(configuration)
      const prepared = await daemon.call("prepare_run", { configurations })
      expect(prepared).toMatchObject({ status: "ready_for_approval", batch: true, runs: 6 })

      // 1. Nothing can be written, neither the batch's record nor a run: the start answers, the batch waits.
      const freeBatches = fill(batches)
      const freeRuns = fill(runRoot)
      const freePortfolios = fill(portfolios)
      const { batch_id } = await daemon.call("start_run", { configurations, approved: true, prepare_token: prepared.prepare_token })
      const first = await waitingFor(daemon, batch_id, "the batch record")
      expect(first).toMatchObject({ status: "running", counts: { pending: 6, running: 0 } })
      expect(fs.existsSync(path.join(batches, batch_id, "batch.json"))).toBe(false)
      freeBatches()
      // 2. The record is written; the runs cannot be created yet.
      await waitingFor(daemon, batch_id, "the run ")
      expect(JSON.parse(fs.readFileSync(path.join(batches, batch_id, "batch.json"), "utf8")).status).toBe("running")
      expect(runDirectories(runRoot).filter((name) => name.startsWith("run-"))).toEqual([])
      freeRuns()

      // 3. Between replays: four run, the record is full again; the two others wait for a slot, the ended ones for the record.
      await eventually(async () => ((await batchOf(daemon, batch_id)).counts.running === 4 ? true : undefined), 60_000, "four replays running")
      const refillBatches = fill(batches)
      const between = await waitingFor(daemon, batch_id, "the batch record")
      expect(between).toMatchObject({ status: "running", counts: { pending: 2 } })
      await eventually(() => (runsWithStatus(runRoot, "completed") === 4 ? true : undefined), 60_000, "the first four replays to end")
      expect((await batchOf(daemon, batch_id)).counts.pending).toBe(2)
      refillBatches()

      // 4. Every replay ended; the portfolio cannot be written.
      const last = await waitingFor(daemon, batch_id, "portfolio")
      expect(last).toMatchObject({ status: "running", counts: { completed: 6, failed: 0, pending: 0, running: 0 }, portfolio: null })
      freePortfolios()

      const finished = await eventually(async () => {
        const batch = await batchOf(daemon, batch_id)
        return batch.status === "running" ? undefined : batch
      }, 60_000, "the batch to end")
      expect(finished).toMatchObject({ status: "finished", waiting_for: null, status_note: null, counts: { completed: 6, failed: 0, cancelled: 0, pending: 0, running: 0 } })
      expect(finished.portfolio).not.toBeNull()
      expect(JSON.parse(fs.readFileSync(finished.portfolio!.portfolio_json, "utf8")).run_ids).toHaveLength(6)
      expect(fs.statSync(finished.portfolio!.portfolio_html).size).toBeGreaterThan(0)
      expect(runsWithStatus(runRoot, "completed")).toBe(6)
      expect(JSON.parse(fs.readFileSync(path.join(batches, batch_id, "batch.json"), "utf8"))).toMatchObject({ status: "finished" })
    } finally {
      await daemon.stop()
      for (const directory of mounted) spawnSync("umount", ["-l", directory])
    }
  }, 240_000)
})

/** How many runs of the run root have `status` on disk. */
const runsWithStatus = (runRoot: string, status: string) =>
  runDirectories(runRoot).filter((name) => {
    const file = path.join(runRoot, name, "controller-state.json")
    return fs.existsSync(file) && JSON.parse(fs.readFileSync(file, "utf8")).status === status
  }).length
