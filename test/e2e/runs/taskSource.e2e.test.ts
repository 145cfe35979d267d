/**
 * The task comes from the user (docs/history.md), through the real daemon over HTTP with the fake Codex
 * CLI and a real Claude transcript: listing and opening a thread call no model; reconstruction runs only
 * when asked, from the user's messages only, and once per thread file and range (cached 0600 in a 0700
 * folder); prepare_run flags a prompt unrelated to those messages; the report keeps the messages.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { CLAUDE_HOME } from "../../support/fixtures.js"
import { approveAndStart, awaitTerminal, type Daemon, killAllDaemons, scratch, startDaemon } from "../../runs/support.js"

/** A real seven-prompt session (b3edadab): Claude reports its work ("Done! I've created `test-file.txt`…") and once asks a question. */
const THREAD = "b3edadab-bca0-4054-9b41-f7ffa6941260"
const FAITHFUL = "Create a test file with some content, then edit it to add more content. Use a task agent to add further content. Look at the new content that was added. Then ultrathink and come up with a chain of cause and effect relationships spanning at least 20 steps."

afterAll(async () => expect(await killAllDaemons()).toBe(0))

const config = (request: string) => ({
  thread_id: THREAD,
  request,
  beginning_kind: "non_git",
  ending_kind: "non_git",
  confirm_empty_beginning: true,
  confirm_file_selection: true,
  model: "gpt-5.6-sol",
  timeout_seconds: 600
})

describe("the task prompt comes from the user's messages, only when asked", () => {
  let daemon: Daemon
  let root: string
  let log: string
  /** The fake codex's `exec` invocations so far (one JSON line each). */
  const execs = () => (fs.existsSync(log) ? fs.readFileSync(log, "utf8").trim().split("\n").filter(Boolean).map((line) => JSON.parse(line)) : [])

  beforeAll(async () => {
    root = scratch()
    log = path.join(root, "codex-exec.jsonl")
    fs.cpSync(path.join(CLAUDE_HOME, "projects", "-Users-user-project"), path.join(root, "claude", "projects", "-Users-user-project"), { recursive: true })
    daemon = await startDaemon({ root, env: { FAKE_CODEX_LOG: log, FAKE_CODEX_FINAL_JSON: JSON.stringify({ request: FAITHFUL }) } })
  })
  afterAll(() => daemon.stop())

  it("lists and opens the thread without any model call, and shows the user's messages it would be written from", async () => {
    const listed = await daemon.call("list_threads", {})
    expect(listed.threads.map((thread: { imported_thread_id: string }) => thread.imported_thread_id)).toContain(THREAD)
    const inspected = await daemon.call("inspect_thread", { thread_id: THREAD })
    await daemon.call("inspect_thread", { thread_id: THREAD })
    expect(inspected.thread.request_generation.method).toBe("pending")
    expect(inspected.thread.task_source.map((message: { text: string }) => message.text.slice(0, 12))).toEqual([
      "Hello I want", "ok edit it a", "Ok now make ", "Ok in the fu", "Hi", "Ok ultrathin", "Ok ultrathin"
    ])
    expect(execs()).toEqual([])
  })

  it("asked twice, reconstructs once from the user's messages and the question Claude asked, then answers from a private cache", async () => {
    const first = await daemon.call("synthesize_request", { thread_id: THREAD })
    const second = await daemon.call("synthesize_request", { thread_id: THREAD })
    const calls = execs()
    expect(calls).toHaveLength(1)
    // What the model read: the user's words and Claude's question, never Claude's account of its work.
    expect(calls[0].prompt).toContain("Hello I want to have some test conversation")
    expect(calls[0].prompt).toContain("What can I help you with?")
    expect(calls[0].prompt).not.toMatch(/test-file\.txt|Done|Task agent successfully|Enigma/)
    for (const answer of [first, second]) {
      expect(answer.request).toBe(FAITHFUL)
      expect(answer.request_generation).toMatchObject({ method: "llm_synthesis", model: "gpt-5.6-terra" })
      expect(answer.synthesis).toEqual({ model: "gpt-5.6-terra", usage: { input: 1200, cached_input: 400, cache_write: 0, output: 300, reasoning_output: 120 } })
      expect(answer.source_messages).toHaveLength(7)
      expect(answer.overlap).toMatchObject({ flagged: false, threshold: 0.5 })
      expect(answer.overlap.share).toBeGreaterThanOrEqual(0.5)
    }
    expect([first.cached, second.cached]).toEqual([false, true])
    const folder = path.join(root, "reconstructions")
    expect(fs.statSync(folder).mode & 0o777).toBe(0o700)
    const files = fs.readdirSync(folder)
    expect(files).toHaveLength(1)
    expect(fs.statSync(path.join(folder, files[0]!)).mode & 0o777).toBe(0o600)
    // A chunk is another range: its own call, from its own messages only.
    const points = (await daemon.call("inspect_thread", { thread_id: THREAD })).chunks.split_points
    const chunk = await daemon.call("synthesize_request", { thread_id: THREAD, range_start: points[4].message_id, range_end: points[6].message_id })
    expect(chunk.source_messages.map((message: { text: string }) => message.text.slice(0, 12))).toEqual(["Hi", "Ok ultrathin", "Ok ultrathin"])
    expect(chunk.earlier_requests).toHaveLength(4)
    expect(execs()).toHaveLength(2)
    expect(await daemon.refused("synthesize_request", { thread_id: THREAD, range_start: points[4].message_id })).toBe("A chunk needs both range_start and range_end.")
    expect(execs()).toHaveLength(2)
  })

  it("prepare_run flags a prompt unrelated to the user's messages, and passes the reconstructed one", async () => {
    const unrelated = await daemon.call("prepare_run", config("Implement a REST API in Go with JWT authentication and a PostgreSQL database layer."))
    expect(unrelated.task_check.overlap).toMatchObject({ share: 0, flagged: true })
    expect(unrelated.task_check.message).toMatch(/^The task prompt shares 0% of its words with your messages in the thread \(below 50%\)/)
    expect(unrelated.task_check.source_messages).toHaveLength(7)
    expect(unrelated.task_check.synthesis).toBeNull()
    const faithful = await daemon.call("prepare_run", config(FAITHFUL))
    expect(faithful.task_check.overlap.flagged).toBe(false)
    // The prompt is the cached reconstruction: the call that wrote it comes with it.
    expect(faithful.task_check.synthesis).toMatchObject({ model: "gpt-5.6-terra", usage: { input: 1200, output: 300 } })
  })

  it("keeps the prompt and the messages it came from in the run's report", async () => {
    const started = await approveAndStart(daemon, config(FAITHFUL))
    await awaitTerminal(daemon, started.run_id, 60_000)
    const report = JSON.parse(fs.readFileSync(path.join(daemon.runRoot, started.run_id, "report.json"), "utf8"))
    expect(report.original_request).toBe(FAITHFUL)
    expect(report.task_source.messages).toHaveLength(7)
    expect(report.task_source.messages[5].asked).toBe("What can I help you with?")
    expect(report.task_source.overlap.flagged).toBe(false)
    expect(report.task_source.synthesis).toMatchObject({ model: "gpt-5.6-terra", usage: { input: 1200, output: 300 } })
    const html = fs.readFileSync(path.join(daemon.runRoot, started.run_id, "report.html"), "utf8")
    expect(html).toContain("Where the task came from")
    expect(html).toContain("Hello I want to have some test conversation with you create some file for me")
    expect(html).toContain("The prompt was reconstructed from these messages by gpt-5.6-terra (1,200 input and 300 output tokens).")
  }, 90_000)

  it("counts the cached reconstruction in one run only: a second replay of the same prompt is not charged for it", async () => {
    const ledger = (runId: string) => {
      const record = JSON.parse(fs.readFileSync(path.join(daemon.runRoot, runId, "run.json"), "utf8"))
      return (record.spend.calls as Array<{ purpose: string }>).map((call) => call.purpose)
    }
    const runs = fs.readdirSync(daemon.runRoot).filter((name) => fs.existsSync(path.join(daemon.runRoot, name, "run.json")))
    // The run above was the first to replay the reconstruction: it carries the call.
    expect(runs.map(ledger).filter((purposes) => purposes.includes("reconstruction"))).toHaveLength(1)
    const again = await approveAndStart(daemon, config(FAITHFUL))
    await awaitTerminal(daemon, again.run_id, 60_000)
    expect(ledger(again.run_id)).not.toContain("reconstruction")
    expect(ledger(again.run_id)).toContain("implementation")
    const report = JSON.parse(fs.readFileSync(path.join(daemon.runRoot, again.run_id, "report.json"), "utf8"))
    expect(report.task_source.synthesis).toMatchObject({ model: "gpt-5.6-terra" })
  }, 90_000)
})
