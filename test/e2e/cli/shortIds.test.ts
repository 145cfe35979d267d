/**
 * `#N` end to end: the listing's number names the thread that a real controller then replays with the fake
 * codex, and the controller's `list_runs` (what the page's Runs filter asks) shows and searches its title.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { daemonsOf, runCli } from "../../cli/support.js"
import { type Daemon, startDaemon } from "../../rpc/support.js"

const MODEL = "gpt-5.6-terra"
let daemon: Daemon

beforeAll(async () => {
  daemon = await startDaemon()
})

afterAll(async () => {
  await daemon?.stop()
})

const listRuns = async (args: Record<string, unknown>) => {
  const answer = await fetch(`${daemon.origin}/api/call`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: daemon.origin, Authorization: `Bearer ${daemon.apiToken}` },
    body: JSON.stringify({ name: "list_runs", arguments: args })
  }).then((response) => response.json())
  return answer.structuredContent as { runs: ReadonlyArray<{ run_id: string; thread_id: string; thread_title: string | null; tokens?: { input: number } }> }
}

describe("#N of the last listing, through a real controller", () => {
  it("replays the thread #1 of `threads --source sample --query words` and lists it by title", async () => {
    const listing = await runCli(["threads", "--source", "sample", "--query", "words"], daemon.env, { timeoutMillis: 60_000 })
    expect(listing.stdout).toMatch(/│ +#1 │ .* │ Sample: add a --words option \(git\) +│/)
    const result = await runCli(["replay", "#1", "--model", MODEL, "--yes", "--json"], daemon.env, { timeoutMillis: 90_000 })
    expect(result.stderr).not.toContain("codex-replay:")
    expect(result.code).toBe(0)
    const answer = JSON.parse(result.stdout) as { thread_id: string; runs: ReadonlyArray<{ run_id: string; status: string }> }
    expect(answer.thread_id).toBe("sample-word-count")
    expect(answer.runs.map((run) => run.status)).toEqual(["completed"])
    const runId = answer.runs[0]!.run_id
    // The controller that ran it is the one found by its run root (what dailyUse.test.ts counts as none).
    expect(daemonsOf(daemon.runRoot)).toEqual([String(daemon.child.pid)])

    // The controller's runs listing carries the title and searches it, as the page's Runs filter does.
    const found = await listRuns({ query: "WORDS OPTION" })
    expect(found.runs.map((run) => [run.run_id, run.thread_title])).toEqual([[runId, "Sample: add a --words option (git)"]])
    expect(found.runs[0]!.tokens?.input).toBeGreaterThan(0)
    expect((await listRuns({ query: "no such title anywhere" })).runs).toEqual([])
    const today = new Date()
    const day = `${today.getFullYear()}${String(today.getMonth() + 1).padStart(2, "0")}${String(today.getDate()).padStart(2, "0")}`
    expect((await listRuns({ since: day })).runs.map((run) => run.run_id)).toEqual([runId])
    expect((await listRuns({ until: "2000-01-01" })).runs).toEqual([])

    // The run by a unique start of its id.
    const report = await runCli(["report", runId.slice(0, -3)], daemon.env, { timeoutMillis: 60_000 })
    expect(report.code).toBe(0)
    expect(report.stdout.split("\n")[0]).toBe(`Run:     ${runId} (${MODEL}, thread sample-word-count)`)
  }, 180_000)
})
