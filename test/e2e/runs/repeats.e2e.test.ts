import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { batchHistory, batchThreadId } from "../../runs/batchSupport.js"
import { awaitTerminal, eventually, killAllDaemons, MODELS, nonGitConfig, runDirectories, scratch, startDaemon } from "../../runs/support.js"

// Every daemon was stopped by its test; none is left behind.
afterAll(async () => expect(await killAllDaemons()).toBe(0))

const REFUSAL = "repeats must be a whole number from 1 through 5."

const stateOf = (runRoot: string, runId: string) => JSON.parse(fs.readFileSync(path.join(runRoot, runId, "controller-state.json"), "utf8"))

describe("repeats", () => {
  it("refuses 0, 6, 2.5 and \"x\" in one sentence, for a replay and a batch, and creates nothing", async () => {
    const root = scratch()
    batchHistory(root, 1)
    const daemon = await startDaemon({ root })
    try {
      const batch = { thread_id: batchThreadId(1), request: "Create notes.md.", beginning_kind: "non_git", ending_kind: "non_git", confirm_empty_beginning: true, models: [MODELS[0]] }
      for (const repeats of [0, 6, 2.5, "x"]) {
        expect(await daemon.refused("prepare_run", nonGitConfig({ repeats }))).toBe(REFUSAL)
        expect(await daemon.refused("start_run", { ...nonGitConfig({ repeats }), approved: true, prepare_token: "x".repeat(40) })).toBe(REFUSAL)
        expect(await daemon.refused("prepare_run", { configurations: [batch], repeats })).toBe(REFUSAL)
        expect(await daemon.refused("prepare_run", { configurations: [{ ...batch, repeats }] })).toBe(`configurations[0]: ${REFUSAL}`)
      }
      expect(await daemon.refused("prepare_run", { configurations: [{ ...batch, repeats: 3 }], repeats: 2 })).toBe(
        "configurations[0]: every replay of a batch is repeated the batch's repeats times; give it once, beside configurations."
      )
      expect(runDirectories(daemon.runRoot)).toEqual([])
      expect(fs.existsSync(path.join(daemon.runRoot, "batches"))).toBe(false)
    } finally {
      await daemon.stop()
    }
  })

  it("runs each model k times from the same start, each repeat its own labelled run; Results shows the k outcomes and the portfolio one observation", async () => {
    const daemon = await startDaemon()
    try {
      const config = nonGitConfig({ repeats: 2 })
      const prepared = await daemon.call("prepare_run", config)
      expect(prepared).toMatchObject({ status: "ready_for_approval", repeats: 2 })
      expect(prepared.approval_prompt).toBe("Approve 2 parallel Codex implementations (each model 2 times) using this configuration?")
      // The estimate prices every repeat as a run.
      expect(prepared.estimate.parts).toHaveLength(2)
      expect(prepared.estimate.text).toContain("for 2 runs")
      const started = await daemon.call("start_run", { ...config, approved: true, prepare_token: prepared.prepare_token })
      const runIds: Array<string> = started.runs.map((run: { run_id: string }) => run.run_id)
      expect(runIds).toHaveLength(2)
      expect(new Set(runIds).size).toBe(2)
      const labels = runIds.map((runId) => stateOf(daemon.runRoot, runId).repeat)
      expect(labels.map(({ index, of }) => [index, of])).toEqual([[1, 2], [2, 2]])
      expect(labels[0].group).toBe(labels[1].group)
      // Each repeat has its own workspace copy.
      for (const runId of runIds) expect(fs.existsSync(path.join(daemon.runRoot, runId))).toBe(true)
      for (const runId of runIds) expect((await awaitTerminal(daemon, runId)).status).toBe("completed")

      const { repeats } = await daemon.call("get_run", { run_id: runIds[1] })
      expect(repeats.outcomes.map((outcome: { run_id: string; status: string; address: string }) => [outcome.run_id, outcome.status, outcome.address])).toEqual(
        runIds.map((runId) => [runId, "completed", `/runs/${runId}`])
      )
      expect(repeats.text).toMatch(new RegExp(`^Repeats: 2 of ${MODELS[0]} from this start — [A-Z][^,]*, [A-Z][^,]* \\([12] of 2 agree\\)$`))
      const listed = (await daemon.call("list_runs", {})).runs
      expect(listed.map((row: { repeat?: { index: number } }) => row.repeat?.index).sort()).toEqual([1, 2])
      for (const runId of runIds) {
        const report = JSON.parse(fs.readFileSync(path.join(daemon.runRoot, runId, "report.json"), "utf8"))
        expect(report.repeats.outcomes.map((outcome: { run_id: string }) => outcome.run_id)).toEqual(runIds)
        const html = fs.readFileSync(path.join(daemon.runRoot, runId, "report.html"), "utf8")
        expect(html).toContain(`<h2 id="repeats-heading">Repeats</h2>`)
        for (const other of runIds) expect(html).toContain(`href="/runs/${other}"`)
      }
      // Once both have completed, each report (the first to finish too) is brought up to date with both outcomes.
      const reportOf = (runId: string) => JSON.parse(fs.readFileSync(path.join(daemon.runRoot, runId, "report.json"), "utf8"))
      await eventually(() =>
        runIds.every((runId) => reportOf(runId).repeats.outcomes.every((outcome: { winner: string | null }) => outcome.winner !== null)) || undefined,
        20_000, "both reports to show both outcomes")
      for (const runId of runIds) {
        const report = reportOf(runId)
        const html = fs.readFileSync(path.join(daemon.runRoot, runId, "report.html"), "utf8")
        expect(html).toContain(report.repeats.text.replaceAll("&", "&amp;"))
        expect(html.match(/id="repeats-heading"/g)).toHaveLength(1)
        expect(html).not.toContain("</a>: running")
      }

      const { portfolio } = await daemon.call("make_portfolio", { run_ids: runIds })
      expect(portfolio.run_ids).toEqual(runIds)
      expect(portfolio.models[0].runs).toHaveLength(1)
      expect(portfolio.models[0].runs[0].repeats.run_ids).toEqual(runIds)
      expect(portfolio.models[0].repeat_agreement).toMatchObject({ cells: 1 })
      // A start again with the same token answers the same two runs.
      expect((await daemon.call("start_run", { ...config, approved: true, prepare_token: prepared.prepare_token })).runs.map((run: { run_id: string }) => run.run_id)).toEqual(runIds)
    } finally {
      await daemon.stop()
    }
  }, 120_000)

  it("a batch replays every (thread, model) k times and its portfolio counts each thread once", async () => {
    const root = scratch()
    batchHistory(root, 2)
    const daemon = await startDaemon({ root })
    try {
      const configurations = [1, 2].map((n) => ({
        thread_id: batchThreadId(n),
        request: `Batch task ${n}: create notes.md.`,
        beginning_kind: "non_git",
        ending_kind: "non_git",
        confirm_empty_beginning: true,
        models: [MODELS[0]],
        timeout_seconds: 600
      }))
      const prepared = await daemon.call("prepare_run", { configurations, repeats: 2 })
      expect(prepared).toMatchObject({ status: "ready_for_approval", runs: 4, repeats: 2 })
      expect(prepared.approval_prompt).toContain("a batch of 4 Codex replay(s) of 2 thread(s)")
      expect(prepared.estimate.parts).toHaveLength(4)
      const { batch_id } = await daemon.call("start_run", { configurations, repeats: 2, approved: true, prepare_token: prepared.prepare_token })
      const finished = await eventually(async () => {
        const { batch } = await daemon.call("get_batch", { batch_id })
        return batch.status === "finished" ? batch : undefined
      }, 120_000, "the batch to finish")
      expect(finished.total).toBe(4)
      const record = JSON.parse(fs.readFileSync(path.join(daemon.runRoot, "batches", batch_id, "batch.json"), "utf8"))
      expect(record.items.map((item: { configuration_index: number; repeat: { index: number; of: number } }) => [item.configuration_index, item.repeat.index, item.repeat.of])).toEqual([
        [0, 1, 2], [0, 2, 2], [1, 1, 2], [1, 2, 2]
      ])
      for (const item of record.items) expect(stateOf(daemon.runRoot, item.run_id).repeat).toMatchObject(item.repeat)
      const portfolio = JSON.parse(fs.readFileSync(record.portfolio.portfolio_json, "utf8"))
      expect(portfolio.run_ids).toHaveLength(4)
      const model = portfolio.models[0]
      expect(model.runs).toHaveLength(2)
      expect(model.repeat_agreement.cells).toBe(2)
      expect(model.overall.wins.count + model.overall.ties.count + model.overall.losses.count + model.overall.not_counted.count).toBe(2)
      // Costs sum every repeat.
      const items: Array<number> = record.items.map((item: { codex_usd: number }) => item.codex_usd)
      expect(items.every((usd) => typeof usd === "number" && usd > 0)).toBe(true)
      expect(model.cost_usd.codex.total).toBeCloseTo(items.reduce((sum, usd) => sum + usd, 0))
      expect(fs.readFileSync(record.portfolio.portfolio_html, "utf8")).toContain("<dt>Repeats agree</dt>")
    } finally {
      await daemon.stop()
    }
  }, 150_000)
})
