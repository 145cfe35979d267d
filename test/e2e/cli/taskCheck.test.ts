/**
 * `codex-replay replay` says before its approval prompt how much the task prompt shares with the user's
 * messages, and flags one that may not be theirs (docs/history.md, "The task comes from the user"). Real
 * daemon, real CLI process, a real seven-prompt transcript (fixture) and the fake Codex CLI, whose
 * reconstruction ("fake", from the output schema) has nothing in common with the user's messages.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Daemon, startDaemon } from "../../rpc/support.js"
import { runCli, runDirectories } from "../../cli/support.js"

const THREAD = "b3edadab-bca0-4054-9b41-f7ffa6941260"

let daemon: Daemon
let log: string

beforeAll(async () => {
  log = path.join(fs.mkdtempSync(path.join(process.env.TMPDIR ?? "/tmp", "codex-replay-cli-task-")), "exec.jsonl")
  daemon = await startDaemon({ FAKE_CODEX_LOG: log })
})

afterAll(async () => {
  await daemon?.stop()
})

describe("codex-replay replay and the task's source", () => {
  it("prints the overlap and flags the approval prompt of a prompt unrelated to the user's messages; a second replay reconstructs nothing", async () => {
    const result = await runCli(["replay", THREAD, "--model", "gpt-5.6-sol", "--accept-empty-beginning"], daemon.env, { input: "n\n" })
    expect(result.code).toBe(1)
    expect(result.stdout).toContain("Reconstructing the task prompt…")
    expect(result.stdout).toContain(
      "Task:       The task prompt shares 0% of its words with your messages in the thread (below 50%): check that it is the task you asked for before approving."
    )
    expect(result.stderr).toContain(
      `The task prompt may not be yours (0% of its words are in your messages). Approve a Codex replay of ${THREAD} with gpt-5.6-sol? [y/N]`
    )
    expect(runDirectories(daemon.runRoot)).toEqual([])
    const calls = () => fs.readFileSync(log, "utf8").trim().split("\n").length
    expect(calls()).toBe(1)
    const again = await runCli(["replay", THREAD, "--model", "gpt-5.6-sol", "--accept-empty-beginning"], daemon.env, { input: "n\n" })
    expect(again.stderr).toContain("The task prompt may not be yours")
    expect(calls()).toBe(1)
  }, 60_000)
})
