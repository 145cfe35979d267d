import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { runCli } from "../../cli/support.js"
import { installEnv } from "../../rpc/support.js"
import { callTool, killAllDaemons, request, scratch, startDaemon, writeRun } from "../../support/daemon.js"

/**
 * What is not a regular file, planted where a run's file belongs: a FIFO would block a reader (or a writer) for
 * as long as nobody opens the other end, a live socket cannot be opened at all, a device may never end, and a
 * directory is not text. Each is refused with one sentence; nothing waits on it.
 */
const sockets: Array<net.Server> = []
const KINDS: ReadonlyArray<readonly [string, (file: string) => Promise<void> | void]> = [
  ["FIFO", (file) => void execFileSync("mkfifo", [file])],
  ["socket", (file) =>
    new Promise<void>((resolve) => {
      const server = net.createServer().listen(file, () => resolve())
      sockets.push(server)
    })],
  ["directory", (file) => fs.mkdirSync(file)],
  // An endless character device (/dev/zero); making one takes root.
  ...(process.getuid?.() === 0 ? [["device", (file: string) => void execFileSync("mknod", [file, "c", "1", "5"])] as const] : [])
]

afterAll(async () => {
  for (const server of sockets) server.close()
  await killAllDaemons()
})

const completed = (sessionId: string) => ({
  controller_session_id: sessionId,
  status: "completed",
  phase: "completed",
  thread_id: "sample-hello-cli",
  model: "gpt-5.6-terra",
  completed_at: new Date().toISOString()
})

describe.each(KINDS)("a %s where a run's file belongs", (kind, plant) => {
  it("is refused with one sentence; the daemon starts, lists the other runs, answers and stops on SIGTERM; `runs` answers", async () => {
    const root = scratch()
    const runRoot = path.join(root, "runs")
    const other = "c".repeat(32)
    writeRun(runRoot, "run-good", completed(other))
    fs.mkdirSync(path.join(runRoot, "run-planted-state"), { recursive: true })
    await plant(path.join(runRoot, "run-planted-state", "controller-state.json"))
    const withLog = writeRun(runRoot, "run-planted-log", completed(other))
    await plant(path.join(withLog, "run.log"))

    // startDaemon waits at most 10 s for /health.
    const daemon = await startDaemon({ root })
    try {
      expect((await request(daemon.port, "/health")).status).toBe(200)
      const listed = await callTool(daemon.port, "list_runs", {})
      expect(listed.status).toBe(200)
      expect(listed.json.structuredContent.runs.map((run: { run_id: string }) => run.run_id).sort()).toEqual(["run-good", "run-planted-log"])

      // A directory is damage of the controller's own files (500, the detail in its log); the others are refused
      // as a symbolic link is.
      const refusal = (name: string) =>
        kind === "directory"
          ? [500, "The local controller encountered an error."]
          : [400, `Cannot read ${name}: it is a symbolic link or not a regular file, which is never followed.`]
      const state = await callTool(daemon.port, "get_run", { run_id: "run-planted-state" })
      expect([state.status, state.json.error]).toEqual(refusal("controller-state.json"))
      const log = await callTool(daemon.port, "get_run", { run_id: "run-planted-log" })
      expect([log.status, log.json.error]).toEqual(refusal("run.log"))

      // The command line lists the run root on its own, with the planted file in it.
      const cli = await runCli(["runs", "--json"], installEnv(root, { CODEX_REPLAY_RUN_ROOT: runRoot }), { timeoutMillis: 60_000 })
      expect(cli.signal).toBeNull()
      expect(JSON.parse(cli.stdout).runs.map((run: { run_id: string }) => run.run_id).sort()).toEqual(["run-good", "run-planted-log"])
    } finally {
      // Within 20 s of SIGTERM, or the test fails with what the daemon was doing.
      await daemon.stop()
    }
    expect(fs.lstatSync(path.join(withLog, "run.log")).isFile()).toBe(false)
  }, 120_000)
})
