import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { batchHistory as historyOf, batchThreadId as threadId } from "../../runs/batchSupport.js"
import { eventually, killAllDaemons, MODELS, runDirectories, scratch, startDaemon } from "../../runs/support.js"

// Every daemon was stopped by its test; none is left behind.
afterAll(async () => expect(await killAllDaemons()).toBe(0))

const configuration = (n: number, confirmed = true) => ({
  thread_id: threadId(n),
  request: `Batch task ${n}: create notes.md.`,
  beginning_kind: "non_git",
  ending_kind: "non_git",
  confirm_empty_beginning: confirmed,
  models: [MODELS[0], MODELS[1]],
  timeout_seconds: 600
})

interface LoggedExec {
  readonly cwd: string
  readonly env: { readonly CODEX_REPLAY_RUN_TAG: string | null }
}

/** The implementations the fake Codex started, by run tag (= run id). */
const implementationStarts = (logFile: string) => {
  const starts = new Map<string, number>()
  if (!fs.existsSync(logFile)) return starts
  for (const line of fs.readFileSync(logFile, "utf8").split("\n").filter((entry) => entry.trim() !== "")) {
    const exec = JSON.parse(line) as LoggedExec
    if (!exec.cwd.endsWith(`${path.sep}workspaces${path.sep}codex`)) continue
    const tag = exec.env.CODEX_REPLAY_RUN_TAG ?? ""
    starts.set(tag, (starts.get(tag) ?? 0) + 1)
  }
  return starts
}

const batchFiles = (runRoot: string) => {
  const directory = path.join(runRoot, "batches")
  return fs.existsSync(directory) ? fs.readdirSync(directory) : []
}

describe("batches", () => {
  it("refuses a malformed batch in one sentence and writes nothing", async () => {
    const root = scratch()
    historyOf(root, 2)
    const daemon = await startDaemon({ root })
    try {
      const refusals = [
        [{ configurations: [] }, "configurations must list from 1 through 100 replay configurations."],
        [
          { configurations: Array.from({ length: 101 }, (_, index) => configuration(index + 1)) },
          "configurations must list from 1 through 100 replay configurations."
        ],
        [
          { configurations: [configuration(1)], ...configuration(2) },
          "Give either configurations (a batch) or one configuration, not both (remove thread_id, request, beginning_kind, ending_kind, confirm_empty_beginning, models, timeout_seconds)."
        ],
        [
          { configurations: [configuration(1), { ...configuration(2), request: "" }] },
          "configurations[1]: The task request (request) is required and must be a non-empty string."
        ],
        [{ configurations: [configuration(1), configuration(1)] }, `configurations[1]: thread ${threadId(1)} is already configurations[0]; give each thread once.`],
        [
          { configurations: [{ ...configuration(1), reviewer_model: "gpt-5.5" }] },
          "configurations[0]: every replay of a batch is reviewed by the batch's reviewer_model; give it once, beside configurations."
        ],
        [{ configurations: "all" }, "configurations must list from 1 through 100 replay configurations."]
      ] as const
      for (const [payload, message] of refusals) {
        expect(await daemon.refused("prepare_run", payload)).toBe(message)
      }
      expect(await daemon.refused("start_run", { configurations: [configuration(1)], prepare_token: "x".repeat(40) })).toBe(
        "Explicit approval (approved: true) is required before starting a replay."
      )
      expect(await daemon.refused("start_run", { configurations: [configuration(1)], approved: true, prepare_token: "x".repeat(40) })).toContain(
        "The prepare token is unknown to this controller"
      )
      expect(await daemon.refused("get_batch", { batch_id: "../etc" })).toBe("The batch ID is invalid.")
      expect(await daemon.refused("get_batch", { batch_id: "batch-20260101T000000Z-0123456789" })).toContain("No batch batch-20260101T000000Z-0123456789")
      expect(await daemon.refused("cancel_batch", {})).toBe("The batch ID is invalid.")
      expect(batchFiles(daemon.runRoot)).toEqual([])
      expect(runDirectories(daemon.runRoot)).toEqual([])
      expect((await daemon.call("get_state")).state.batch).toBeNull()
    } finally {
      await daemon.stop()
    }
  })

  it("12 threads × 2 models: 3 blocked and skipped; a kill -9 mid-batch and a restart resume it, starting no replay twice", async () => {
    const root = scratch()
    historyOf(root, 12)
    const log = path.join(root, "fake-codex.log")
    const env = { FAKE_CODEX_LOG: log }
    const first = await startDaemon({ root, env })
    const blockedThreads = [3, 7, 11]
    const configurations = Array.from({ length: 12 }, (_, index) => configuration(index + 1, !blockedThreads.includes(index + 1)))

    const started = Date.now()
    const prepared = await first.call("prepare_run", { configurations })
    expect(prepared).toMatchObject({ status: "ready_for_approval", batch: true, runs: 18, models: [MODELS[0], MODELS[1]] })
    // No reviewer named: the first model Codex lists that is none of the batch's models, as the batch then runs.
    expect(prepared).toMatchObject({ reviewer_model: MODELS[2], self_review_models: [] })
    expect(prepared.blocked.map((entry: { thread_id: string }) => entry.thread_id)).toEqual(blockedThreads.map(threadId))
    // The reason names the flag and the batch form's control that unblock it, never an API field.
    expect(prepared.blocked[0].reasons[0]).toBe(
      "Confirm that the replay starts from an empty folder: pass --accept-empty-beginning to `batch` or tick “Accept empty beginnings” in the batch form."
    )
    expect(prepared.ready_threads).toHaveLength(9)
    const { batch_id, batch } = await first.call("start_run", { configurations, approved: true, prepare_token: prepared.prepare_token })
    expect(batch).toMatchObject({ batch_id, status: "running", total: 18, threads: 9, reviewer_model: MODELS[2] })
    expect(batch.blocked).toHaveLength(3)
    // The same start again answers the same batch.
    expect((await first.call("start_run", { configurations, approved: true, prepare_token: prepared.prepare_token })).batch_id).toBe(batch_id)

    const recordPath = path.join(first.runRoot, "batches", batch_id, "batch.json")
    expect(fs.statSync(recordPath).mode & 0o777).toBe(0o600)
    expect(fs.statSync(path.dirname(recordPath)).mode & 0o777).toBe(0o700)

    // Mid-batch: some replays done, some running, some not started; never more than 4 at once.
    const midway = await eventually(async () => {
      const state = (await first.call("get_state")).state
      expect(state.batch.counts.running).toBeLessThanOrEqual(4)
      return state.batch.counts.completed >= 4 ? state.batch : undefined
    }, 120_000, "four completed replays")
    expect(midway.counts.pending).toBeGreaterThan(0)
    expect(midway.cost_usd.codex).toBeGreaterThan(0)
    expect(midway.elapsed_ms).toBeGreaterThan(0)
    expect(midway.estimate_remaining_ms).toBeGreaterThan(0)
    await first.kill9()

    const atKill = JSON.parse(fs.readFileSync(recordPath, "utf8"))
    expect(atKill.status).toBe("running")
    const launchedBefore = atKill.items.filter((item: { run_id: string | null }) => item.run_id !== null).length
    expect(launchedBefore).toBeLessThan(18)

    const second = await startDaemon({ root, env })
    try {
      // Generous: 18 replays of three Codex processes each, on a machine that may be shared.
      let seen = ""
      const finished = await eventually(async () => {
        const state = (await second.call("get_state")).state
        seen = JSON.stringify(state.batch?.counts ?? null)
        return state.batch?.batch_id === batch_id && state.batch.status === "finished" && state.batch.portfolio !== null ? state.batch : undefined
      }, 300_000, "the resumed batch to finish").catch((error) => {
        throw new Error(`${error.message}; last counts ${seen}; daemon log: ${second.output().slice(-2000)}`)
      })
      const wall = Date.now() - started
      expect(finished.resumed_by).toEqual([second.sessionId])
      expect(finished.counts.pending + finished.counts.running).toBe(0)
      expect(finished.counts.completed + finished.counts.failed).toBe(18)
      expect(finished.counts.completed).toBeGreaterThanOrEqual(18 - 4)

      // Every (thread, model) pair has one run, and no run was started twice.
      const runIds = finished.items.map((item: { run_id: string }) => item.run_id)
      expect(new Set(runIds).size).toBe(18)
      expect(runDirectories(second.runRoot).filter((name) => name.startsWith("run-")).sort()).toEqual([...runIds].sort())
      const starts = implementationStarts(log)
      for (const [tag, count] of starts) {
        expect(runIds).toContain(tag)
        expect(count).toBe(1)
      }
      for (const item of finished.items.filter((entry: { status: string }) => entry.status === "completed")) {
        expect(starts.get(item.run_id)).toBe(1)
      }
      // The replays the kill interrupted stay failed; none of the pairs is replayed again.
      for (const item of finished.items.filter((entry: { status: string }) => entry.status === "failed")) {
        expect((await second.call("get_run", { run_id: item.run_id })).run.interrupted).toBe(true)
      }
      expect(fs.existsSync(finished.portfolio.portfolio_html)).toBe(true)
      expect((await second.call("get_batch", { batch_id })).batch.counts).toEqual(finished.counts)
      console.log(
        `batch of 18 replays (zero-latency fake, one kill -9 and restart): ${wall} ms wall, ${(wall / 18).toFixed(0)} ms per replay`
      )
    } finally {
      await second.stop()
    }
  }, 480_000)

  it("cancel_batch stops the batch: nothing more starts and its runs in progress are cancelled", async () => {
    const root = scratch()
    historyOf(root, 6)
    const daemon = await startDaemon({ root, env: { FAKE_CODEX_SCENARIO: "hang", FAKE_CODEX_MARKER: path.join(root, "marker") } })
    try {
      const configurations = Array.from({ length: 6 }, (_, index) => configuration(index + 1))
      const prepared = await daemon.call("prepare_run", { configurations, reviewer_model: MODELS[3] })
      expect(prepared.reviewer_model).toBe(MODELS[3])
      const { batch_id } = await daemon.call("start_run", { configurations, reviewer_model: MODELS[3], approved: true, prepare_token: prepared.prepare_token })
      await eventually(async () => ((await daemon.call("get_batch", { batch_id })).batch.counts.running === 4 ? true : undefined), 30_000, "4 running")
      const cancelled = await daemon.call("cancel_batch", { batch_id })
      expect(cancelled.idempotent).toBe(false)
      expect(cancelled.batch).toMatchObject({ status: "cancelled" })
      expect(cancelled.batch.counts).toMatchObject({ running: 0, pending: 0, completed: 0, cancelled: 12 })
      expect(cancelled.batch.estimate_remaining_ms).toBe(0)
      expect((await daemon.call("cancel_batch", { batch_id })).idempotent).toBe(true)
      expect(runDirectories(daemon.runRoot).filter((name) => name.startsWith("run-"))).toHaveLength(4)
      expect((await daemon.call("get_state")).state.batch.status).toBe("cancelled")
    } finally {
      await daemon.stop()
    }
  }, 60_000)
})
