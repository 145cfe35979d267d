import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runCli, spawnCli, waitUntil } from "../../cli/support.js"
import { BIN, type Daemon, scratch, startDaemon } from "../../rpc/support.js"

const MODEL = "gpt-5.6-terra"
/** Claude only created files: ready. */
const CREATED_ONLY = "c45af7b1-cb7c-4e51-93db-8cbb250a877a"
/** Claude modified a file that existed before (CLAUDE.md): blocked without a repository. */
const MODIFIED_EXISTING = "5c0375b4-57a5-4f26-b12d-d022ee4e51b7"
const MODIFIED_EXISTING_TITLE = "/orchestrator @CLAUDE.md を最新の状態にアップデートしてください"
const OTHER_READY = "1af7fc5e-8455-4414-9ccd-011d40f70b2a"

let daemon: Daemon

beforeAll(async () => {
  daemon = await startDaemon()
})

afterAll(async () => {
  await daemon?.stop()
})

describe("codex-replay batch", () => {
  it("replays the chosen threads as one batch, skips the blocked one and prints its portfolio (--yes --json)", async () => {
    const result = await runCli(["batch", "--threads", `${CREATED_ONLY},${MODIFIED_EXISTING}`, "--model", MODEL, "--yes", "--json"], daemon.env, {
      timeoutMillis: 90_000
    })
    expect(result.stderr).not.toContain("codex-replay:")
    expect(result.code).toBe(0)
    // The blocked thread with its title beside its id.
    expect(result.stderr).toContain(`Blocked: ${MODIFIED_EXISTING} (${MODIFIED_EXISTING_TITLE}): Claude modified 1 file(s) that existed before the session (CLAUDE.md)`)
    expect(result.stderr).toContain("Approve a batch of 1 Codex replay(s) of 1 thread(s), 4 at a time? yes (--yes)")
    expect(result.stderr).toMatch(/1 of 1 done \(1 completed, 0 failed\)/)
    const answer = JSON.parse(result.stdout)
    expect(answer.batch).toMatchObject({ status: "finished", total: 1, counts: { completed: 1 } })
    expect(answer.batch.blocked).toEqual([
      expect.objectContaining({ thread_id: MODIFIED_EXISTING })
    ])
    expect(answer.portfolio.run_ids).toEqual([answer.batch.items[0].run_id])
    // The replay's tokens and costs, recorded once it ended, reach the command line through the contract: the
    // tokens of all its calls, the same sums `runs` shows for that run.
    expect(answer.batch.items[0].tokens.input).toBeGreaterThan(0)
    expect(answer.batch.items[0].tokens.output).toBeGreaterThan(0)
    const listed = JSON.parse((await runCli(["runs", "--json", "--query", answer.batch.items[0].run_id], daemon.env)).stdout)
    expect(listed.runs.map((run: { tokens: unknown }) => run.tokens)).toEqual([answer.batch.items[0].tokens])
    expect(typeof answer.batch.items[0].codex_usd).toBe("number")
    // No reviewer named: one that is none of the batch's models, so no self-review; the batch and its portfolio carry
    // the run's caveats in the same words.
    expect(result.stderr).toContain("Reviewer:   gpt-5.6-sol\n")
    expect(answer.portfolio.models[0].self_reviews).toEqual({ count: 0, run_ids: [] })
    expect(Array.isArray(answer.batch.items[0].caveats)).toBe(true)
    expect(answer.batch.items[0].caveats.map((caveat: { kind: string }) => caveat.kind)).not.toContain("self_review")
    expect(answer.portfolio.models[0].runs[0].caveats).toEqual(answer.batch.items[0].caveats)
    expect(fs.existsSync(answer.batch.portfolio.portfolio_html)).toBe(true)
    // The batch's page address, printed as it starts and in --json.
    const { origin, search } = new URL(answer.controller_url)
    expect(answer.address).toBe(`${origin}/batches/${answer.batch_id}${search}`)
    expect(result.stderr).toContain(`Batch:      ${answer.batch_id}  ${answer.address}\n`)
  }, 120_000)

  it("on a terminal, rewrites one progress line in place, then prints the portfolio verdict per model", async () => {
    // `script` gives the command a pseudo-terminal, as a person's shell would.
    const command = [process.execPath, BIN, "batch", "--query", CREATED_ONLY.slice(0, 8), "--model", MODEL, "--yes"].map((word) => `'${word}'`).join(" ")
    const child = spawn("script", ["-qec", command, "/dev/null"], { env: daemon.env, stdio: ["ignore", "pipe", "pipe"] })
    let output = ""
    child.stdout.on("data", (chunk: Buffer) => void (output += chunk.toString("utf8")))
    const code = await new Promise<number | null>((resolve) => child.once("close", resolve))
    expect(code).toBe(0)
    expect(output).toMatch(/\r\x1b\[2K0 of 1 done \(0 completed, 0 failed\) · [01] running · [01] pending · /)
    // Costs with two decimals, as the tables show them.
    expect(output).toMatch(/\r\x1b\[2K1 of 1 done \(1 completed, 0 failed\) · 0 running · 0 pending · .* · Codex <?\$\d+\.\d\d · Claude <?\$\d+\.\d\d \(once per thread\)/)
    expect(output).toMatch(/Batch batch-\S+ finished in /)
    // The table (coloured on a terminal) gives the replay's Codex tokens and costs, and sums them in its totals row.
    // eslint-disable-next-line no-control-regex
    const plain = output.replace(/\u001b\[[0-9;]*m/g, "")
    expect(plain).toMatch(/│ +Input │ +Output │ +Codex │ Evaluation │/)
    expect(plain).toMatch(/│ Total +│ 1 thread\(s\) .*│ +[1-9][\d,]* │ +[1-9][\d,]* │ +<?\$\d+\.\d\d │ +(<?\$\d+\.\d\d|-) │/)
    expect(output).toContain("Portfolio of 1 completed run(s):")
    expect(output).toContain(`${MODEL}: `)
    expect(output).toMatch(/Report: {2}\S+portfolio\.html/)
    expect(output).toMatch(/Grid: {4}http:\/\/127\.0\.0\.1:\d+\/batches\/batch-\S+\?token=[0-9a-f]+ \(CSV: \S+portfolio\.csv\)/)
  }, 120_000)

  it("cancels the batch on Ctrl-C", async () => {
    const root = scratch("codex-replay-batch-cancel-")
    const hanging = await startDaemon({ FAKE_CODEX_SCENARIO: "hang", FAKE_CODEX_MARKER: path.join(root, "marker") })
    try {
      const cli = spawnCli(["batch", "--threads", `${CREATED_ONLY},${OTHER_READY}`, "--model", MODEL, "--yes"], hanging.env)
      await waitUntil("the batch's replays to run", () => / 2 running /.test(cli.stdout()), 30_000)
      const batchId = /Batch: +(batch-\S+)/.exec(cli.stdout())?.[1]
      cli.child.kill("SIGINT")
      const result = await cli.done
      expect(result.code).toBe(130)
      expect(result.stdout).toContain(`Cancelled ${batchId}.`)
      const record = JSON.parse(fs.readFileSync(path.join(hanging.runRoot, "batches", batchId!, "batch.json"), "utf8"))
      expect(record.status).toBe("cancelled")
      for (const item of record.items) {
        expect(JSON.parse(fs.readFileSync(path.join(hanging.runRoot, item.run_id, "controller-state.json"), "utf8")).status).toBe("cancelled")
      }
    } finally {
      await hanging.stop()
      fs.rmSync(root, { recursive: true, force: true })
    }
  }, 60_000)
})
