import * as fs from "node:fs"
import * as http from "node:http"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { apiTokenOf, bearer, callTool, killAllDaemons, scratch, sleep, startDaemon } from "../../support/daemon.js"
import { runBin } from "../../support/spawnBin.js"
import { fixturePath } from "../../support/fixtures.js"

afterAll(killAllDaemons)

/** A `/api/call` whose client gives up (destroys its socket) after `afterMs`. */
const giveUp = (port: number, name: string, args: unknown, afterMs: number) =>
  new Promise<void>((resolve) => {
    const body = JSON.stringify({ name, arguments: args })
    const req = http.request({
      host: "127.0.0.1",
      port,
      path: "/api/call",
      method: "POST",
      agent: false,
      headers: { "Content-Type": "application/json", Origin: `http://127.0.0.1:${port}`, ...bearer(apiTokenOf(port)) }
    })
    req.on("error", () => resolve())
    req.on("close", () => resolve())
    req.end(body)
    setTimeout(() => req.destroy(), afterMs)
  })

const SPOTTER = fixturePath("claude-home", "projects", "-home-marco-projects-spotter", "55604662-cf2a-4331-851a-ec234028f8ca.jsonl")

/** A history with one real thread, a symlink loop and sessions that are not threads. */
const troubledHistory = () => {
  const root = scratch()
  const project = path.join(root, "claude", "projects", "-home-user-project")
  fs.mkdirSync(project, { recursive: true })
  fs.copyFileSync(SPOTTER, path.join(project, "55604662-cf2a-4331-851a-ec234028f8ca.jsonl"))
  fs.symlinkSync("loop.jsonl", path.join(project, "loop.jsonl"))
  fs.symlinkSync("agent-loop.jsonl", path.join(project, "agent-loop.jsonl"))
  const notThreads: Record<string, string | Buffer> = {
    empty: "",
    "summary-only": `${JSON.stringify({ type: "summary", summary: "A summary", leafUuid: "x" })}\n`,
    "snapshot-only": `${JSON.stringify({ type: "file-history-snapshot", messageId: "m", snapshot: {}, isSnapshotUpdate: false })}\n`,
    garbage: "this is not JSON {{{\n",
    "message-five": `${JSON.stringify({ type: "user", message: 5 })}\n`,
    "cut-at-1599": fs.readFileSync(SPOTTER).subarray(0, 1599)
  }
  for (const [name, content] of Object.entries(notThreads)) fs.writeFileSync(path.join(project, `${name}.jsonl`), content)
  return { root, notThreads: Object.keys(notThreads) }
}

describe("a history with unreadable entries and sessions that are not threads", () => {
  it("list_threads skips a symlink loop and says so in diagnostics; the other threads are listed", async () => {
    const { root } = troubledHistory()
    const daemon = await startDaemon({ root })
    try {
      const answer = await callTool(daemon.port, "list_threads", {})
      expect(answer.status).toBe(200)
      const result = answer.json.structuredContent
      expect(result.threads.map((thread: { imported_thread_id: string }) => thread.imported_thread_id)).toEqual([
        "55604662-cf2a-4331-851a-ec234028f8ca"
      ])
      expect(result.diagnostics).toEqual([
        "Skipped the unreadable Claude history entry agent-loop.jsonl (ELOOP).",
        "Skipped the unreadable Claude history entry loop.jsonl (ELOOP)."
      ])
      expect(daemon.output()).not.toMatch(/ERROR/)
    } finally {
      await daemon.stop()
    }
  })

  it("`threads --json` prints the listing with the diagnostic, and no stack trace", async () => {
    const { root } = troubledHistory()
    const out = await runBin(["threads", "--json"], {
      env: { ...process.env, CLAUDE_CONFIG_DIR: path.join(root, "claude"), CODEX_REPLAY_RUN_ROOT: path.join(root, "runs") }
    })
    expect(out.stderr).not.toMatch(/ELOOP|\n\s+at /)
    expect(out.code).toBe(0)
    const result = JSON.parse(out.stdout)
    expect(result.total).toBe(1)
    expect(result.diagnostics).toContain("Skipped the unreadable Claude history entry loop.jsonl (ELOOP).")
  })

  it("inspect_thread of a session that is not a thread answers 400 saying so, never a 500", async () => {
    const { root, notThreads } = troubledHistory()
    const daemon = await startDaemon({ root })
    try {
      for (const threadId of notThreads) {
        const answer = await callTool(daemon.port, "inspect_thread", { thread_id: threadId })
        expect([threadId, answer.status]).toEqual([threadId, 400])
        expect(answer.json.error).toBe(`The Claude session ${threadId} holds no human request, so it is not a thread.`)
      }
      expect((await callTool(daemon.port, "inspect_thread", { thread_id: "55604662-cf2a-4331-851a-ec234028f8ca" })).status).toBe(200)
      expect(daemon.output()).not.toMatch(/ERROR|message=\{\}/)
    } finally {
      await daemon.stop()
    }
  })
})

describe("a client that gives up", () => {
  it("a list_threads abandoned after 20 ms does not poison later list_threads and sample inspect_thread calls", async () => {
    const daemon = await startDaemon()
    try {
      await giveUp(daemon.port, "list_threads", {}, 20)
      await sleep(200)
      const listed = await callTool(daemon.port, "list_threads", {})
      expect(listed.status).toBe(200)
      expect(listed.json.structuredContent.sample_total).toBe(2)
      const inspected = await callTool(daemon.port, "inspect_thread", { thread_id: "sample-hello-cli" })
      expect(inspected.status).toBe(200)
      expect(inspected.json.structuredContent.thread.imported_thread_id).toBe("sample-hello-cli")
    } finally {
      await daemon.stop()
    }
  })
})
