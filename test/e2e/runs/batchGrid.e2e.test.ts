/**
 * A real batch of 3 threads × 2 models through the real daemon and the fake Codex: each thread's runs share
 * a start group of their own, get_batch answers the grid, the portfolio writes its CSV beside its page, the
 * CSV downloads over HTTP, and portfolio.html keeps every link working once copied anywhere else.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { request } from "../../support/daemon.js"
import { parseCsv } from "../../support/csv.js"
import { batchHistory, batchThreadId } from "../../runs/batchSupport.js"
import { eventually, killAllDaemons, MODELS, scratch, startDaemon } from "../../runs/support.js"

afterAll(async () => expect(await killAllDaemons()).toBe(0))

const configuration = (n: number) => ({
  thread_id: batchThreadId(n),
  request: `Batch task ${n}: create notes.md.`,
  beginning_kind: "non_git",
  ending_kind: "non_git",
  confirm_empty_beginning: true,
  models: [MODELS[0], MODELS[1]],
  timeout_seconds: 600
})

interface Listed {
  readonly run_id: string
  readonly thread_id: string
  readonly model: string
  readonly start_group: string | null
}

describe("a batch as a grid", () => {
  it("3 threads × 2 models: a start group per thread, the grid in get_batch, a CSV beside a portfolio whose links work anywhere", async () => {
    const root = scratch()
    batchHistory(root, 3)
    const daemon = await startDaemon({ root })
    try {
      const configurations = [1, 2, 3].map(configuration)
      const prepared = await daemon.call("prepare_run", { configurations })
      const { batch_id } = await daemon.call("start_run", { configurations, approved: true, prepare_token: prepared.prepare_token })
      const finished = await eventually(async () => {
        const { batch } = await daemon.call("get_batch", { batch_id })
        return batch.status === "finished" && batch.portfolio !== null ? batch : undefined
      }, 240_000, "the batch to finish")
      expect(finished.counts.completed).toBe(6)

      // Results of one run shows its own thread only: runs of different threads never share a start group.
      const listed: ReadonlyArray<Listed> = (await daemon.call("list_runs", { limit: 100 })).runs
      expect(listed).toHaveLength(6)
      const groups = new Map<string, Set<string>>()
      for (const run of listed) {
        expect(run.start_group).toMatch(/^[0-9a-f]{16}$/)
        groups.set(run.start_group!, new Set([...(groups.get(run.start_group!) ?? []), run.thread_id]))
      }
      expect(groups.size).toBe(3)
      for (const threads of groups.values()) expect(threads.size).toBe(1)
      for (const n of [1, 2, 3]) {
        const ofThread = listed.filter((run) => run.thread_id === batchThreadId(n))
        expect(new Set(ofThread.map((run) => run.model))).toEqual(new Set([MODELS[0], MODELS[1]]))
        expect(new Set(ofThread.map((run) => run.start_group)).size).toBe(1)
      }

      // get_batch answers the grid: a row per thread, titled, a cell per model linking to the run's address.
      const { grid } = await daemon.call("get_batch", { batch_id })
      expect(grid.models).toEqual([MODELS[0], MODELS[1]])
      expect(grid.rows.map((row: { thread_id: string }) => row.thread_id)).toEqual([1, 2, 3].map(batchThreadId))
      for (const row of grid.rows) {
        expect(typeof row.title).toBe("string")
        expect(row.title.length).toBeGreaterThan(0)
        for (const cell of row.cells) {
          expect(cell.runs).toHaveLength(1)
          const [run] = cell.runs
          const item = finished.items.find((each: { thread_id: string; model: string }) => each.thread_id === row.thread_id && each.model === cell.model)
          expect(run.run_id).toBe(item.run_id)
          expect(run.address).toBe(`/runs/${item.run_id}`)
        }
      }
      // Statistics from the batch's portfolio, above the grid.
      expect(grid.statistics.map((figures: { model: string }) => figures.model)).toEqual([MODELS[0], MODELS[1]])
      for (const figures of grid.statistics) expect(figures.wins + figures.ties + figures.losses + figures.not_counted).toBe(3)

      // The CSV beside portfolio.html, and the same over HTTP.
      const directory = path.dirname(finished.portfolio.portfolio_html)
      const csvFile = path.join(directory, "portfolio.csv")
      const csv = fs.readFileSync(csvFile, "utf8")
      const [header, ...records] = parseCsv(csv)
      expect(header).toEqual(["thread_id", "title", "model", "run_id", "status", "verdict", "caveats", "checks", "address"])
      expect(records).toHaveLength(6)
      expect(records.map((record) => record[8])).toEqual(
        grid.rows.flatMap((row: { cells: ReadonlyArray<{ runs: ReadonlyArray<{ address: string }> }> }) =>
          row.cells.map((cell) => `http://127.0.0.1:${daemon.port}${cell.runs[0]!.address}`))
      )
      const headers = { "Content-Type": "application/json", Origin: `http://127.0.0.1:${daemon.port}`, Authorization: `Bearer ${daemon.apiToken()}` }
      const downloaded = await request(daemon.port, "/api/download", {
        method: "POST",
        headers,
        token: null,
        body: JSON.stringify({ portfolio_id: finished.portfolio.portfolio_id, format: "csv" })
      })
      expect(downloaded.status).toBe(200)
      expect(downloaded.headers["content-type"]).toBe("text/csv; charset=utf-8")
      expect(downloaded.headers["content-disposition"]).toBe(`attachment; filename="codex-replay-${finished.portfolio.portfolio_id}.csv"`)
      expect(downloaded.text).toBe(csv)
      for (const [body, status] of [
        [{ portfolio_id: "../etc", format: "csv" }, 400],
        [{ portfolio_id: finished.portfolio.portfolio_id, format: "exe" }, 400],
        [{ portfolio_id: "portfolio-20260101T000000Z-0123456789", format: "csv" }, 404]
      ] as const) {
        expect((await request(daemon.port, "/api/download", { method: "POST", headers, token: null, body: JSON.stringify(body) })).status).toBe(status)
      }

      // The page copied to a fresh folder: every in-file link finds its target; the only others are the runs' addresses.
      const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), "codex-replay-saved-"))
      const copy = path.join(elsewhere, "saved.html")
      fs.copyFileSync(finished.portfolio.portfolio_html, copy)
      const html = fs.readFileSync(copy, "utf8")
      const ids = new Set([...html.matchAll(/ id="([^"]+)"/g)].map((match) => match[1]!))
      const hrefs = [...html.matchAll(/ href="([^"]+)"/g)].map((match) => match[1]!)
      expect(hrefs.length).toBeGreaterThan(10)
      for (const href of hrefs) {
        if (href.startsWith("#")) expect(ids.has(decodeURIComponent(href.slice(1))), href).toBe(true)
        else expect(href, href).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${daemon.port}/runs/run-[A-Za-z0-9-]+$`))
      }
      for (const item of finished.items) {
        expect(hrefs).toContain(`#report-${item.run_id}`)
        expect(ids.has(`report-${item.run_id}`)).toBe(true)
        expect(ids.has(`report-${item.run_id}-evaluation-heading`)).toBe(true)
      }
      expect(html).not.toMatch(/<(script|img|link|iframe|object|embed)\b|\ssrc="/i)
      fs.rmSync(elsewhere, { recursive: true, force: true })

      // Each run's own report.html links to the run's address in the controller that wrote it.
      for (const item of finished.items) {
        const reportHtml = fs.readFileSync(path.join(daemon.runRoot, item.run_id, "report.html"), "utf8")
        expect(reportHtml).toContain(`<a href="http://127.0.0.1:${daemon.port}/runs/${item.run_id}">`)
      }

      // Figures: get_batch with its grid (titles looked up each time), and the page's size per embedded report.
      const calls = Date.now()
      for (let index = 0; index < 10; index++) await daemon.call("get_batch", { batch_id })
      console.log(`get_batch with its grid: ${((Date.now() - calls) / 10).toFixed(0)} ms per call over HTTP; portfolio.html ${
        (fs.statSync(finished.portfolio.portfolio_html).size / 1024).toFixed(0)} KiB for 6 runs`)

      // The batch's address opens the page.
      const page = await request(daemon.port, `/batches/${batch_id}`, { headers: { Cookie: `codex_replay_${daemon.port}=${daemon.apiToken()}` }, token: null })
      expect(page.status).toBe(200)
    } finally {
      await daemon.stop()
    }
  }, 300_000)
})
