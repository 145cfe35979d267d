import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { approveAndStart, awaitTerminal, eventually, killAllDaemons, nonGitConfig, readLog, scratch, startDaemon } from "../../runs/support.js"

afterAll(async () => expect(await killAllDaemons()).toBe(0))

/** A `sleep` with an argument no other process has, so that it can be counted in the process table. */
const uniqueSleep = () => `${100000 + Math.floor(Math.random() * 800000)}.${process.pid}`

/** Live processes (not zombies) whose command line is `sleep <argument>`, however `sleep` was named. */
const sleepers = (argument: string) =>
  fs.readdirSync("/proc").filter((entry) => /^\d+$/.test(entry)).filter((entry) => {
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8")
      const [program = "", ...rest] = fs.readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0")
      return path.basename(program) === "sleep" && rest.join(" ").trim() === argument && !stat.slice(stat.lastIndexOf(")")).startsWith(") Z")
    } catch {
      return false
    }
  }).map(Number)

/**
 * An agent's tool command that escapes every way a process can: a new session with no environment at
 * all, and a new session without the run tag. Each escapee first appends a line to `started`, so the
 * test knows both ran before it counts what is left.
 */
const escapingCommand = (argument: string, started: string) =>
  [
    `setsid env -i /bin/sh -c 'echo env-i >> "${started}"; exec /bin/sleep ${argument}' &`,
    `env -u CODEX_REPLAY_RUN_TAG setsid /bin/sh -c 'echo untagged >> "${started}"; exec /bin/sleep ${argument}' &`,
    "sleep 0.3; exit 0"
  ].join(" ")

const linesOf = (file: string) => (fs.existsSync(file) ? fs.readFileSync(file, "utf8").trim().split("\n").filter(Boolean).length : 0)

describe("an agent's escaped processes, through the real daemon", () => {
  it("are gone after a completed, a failed and a cancelled run", async () => {
    const root = scratch()
    const argument = uniqueSleep()
    const started = path.join(root, "escapees-started")
    const daemon = await startDaemon({ root, env: { FAKE_CODEX_COMMAND: escapingCommand(argument, started) } })
    try {
      // Completed: the implementer and both reviewers ran the command.
      const completed = await approveAndStart(daemon, nonGitConfig())
      expect((await awaitTerminal(daemon, completed.run_id)).status).toBe("completed")
      expect(linesOf(started)).toBeGreaterThanOrEqual(2)
      expect(sleepers(argument)).toEqual([])

      // Failed: a non-retryable failure after the command ran.
      const before = linesOf(started)
      const failed = await approveAndStart(daemon, nonGitConfig({ request: "Create greet.py.\nfake-scenario: bad_request" }))
      expect((await awaitTerminal(daemon, failed.run_id)).status).toBe("failed")
      expect(linesOf(started)).toBe(before + 2)
      expect(sleepers(argument)).toEqual([])

      // Cancelled: while it hangs both escapees are alive; once cancel_run answers, neither is.
      const hanging = await approveAndStart(daemon, nonGitConfig({ request: "Create greet.py.\nfake-scenario: hang" }))
      await eventually(() => (readLog(daemon.runRoot, hanging.run_id).includes("\"command_execution\"") ? true : undefined), 20_000, "the tool command")
      await eventually(() => (sleepers(argument).length === 2 ? true : undefined), 5_000, "both escapees")
      const cancelled = await daemon.call("cancel_run", { run_id: hanging.run_id })
      expect(cancelled.run.status).toBe("cancelled")
      expect(sleepers(argument)).toEqual([])
      const records = path.join(daemon.runRoot, hanging.run_id, "processes")
      expect(fs.existsSync(records) ? fs.readdirSync(records) : []).toEqual([])
    } finally {
      await daemon.stop()
      for (const pid of sleepers(argument)) process.kill(pid, "SIGKILL")
    }
  }, 120_000)
})
