/**
 * No dead ends on the command line, with the real CLI against a real controller and the fake Codex CLI:
 * Codex is checked (it runs, it is logged in) before any approval is asked; `replay --repo` points a
 * thread at its repository's new place; `batch --accept-empty-beginning` accepts empty beginnings with
 * the warning a single replay gives. Every refusal is one sentence naming the flag and the page control.
 */
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runCli, runDirectories } from "../../cli/support.js"
import { type Daemon, scratch, startDaemon } from "../../rpc/support.js"
import { at, CHUNK_TIMES, commitAt, makeChunkProject, writeChunkThread } from "../../runs/chunkThread.js"

const MODEL = "gpt-5.6-terra"
/** Claude modified a file that existed before (CLAUDE.md) of a folder that is not on this machine. */
const MODIFIED_EXISTING = "5c0375b4-57a5-4f26-b12d-d022ee4e51b7"
/** Its title, named beside its id in `batch`'s lines. */
const MODIFIED_EXISTING_TITLE = "/orchestrator @CLAUDE.md を最新の状態にアップデートしてください"

describe("preflight: before any approval, a Codex that runs and is logged in", () => {
  let daemon: Daemon
  beforeAll(async () => {
    daemon = await startDaemon({ FAKE_CODEX_LOGIN: "logged_out" })
  })
  afterAll(async () => {
    await daemon?.stop()
  })

  it("replay and batch stop with one sentence saying to run `codex login`; nothing is asked or started", async () => {
    for (const args of [["replay", "sample-hello-cli", "--model", MODEL], ["batch", "--threads", "sample-hello-cli", "--model", MODEL]]) {
      const result = await runCli(args, daemon.env, { input: "y\n" })
      expect(result.code).toBe(1)
      expect(result.stderr.trim().split("\n").at(-1)).toBe("codex-replay: Codex is not logged in: run `codex login` (or set CODEX_API_KEY), then try again.")
      expect(result.stderr).not.toContain("Approve")
    }
    expect(runDirectories(daemon.runRoot)).toEqual([])
  })

})

describe("replay --repo and batch --accept-empty-beginning", () => {
  let daemon: Daemon
  let home: string
  let moved: string
  let initial: string
  const threadId = randomUUID()

  beforeAll(async () => {
    home = scratch("codex-replay-cli-moved-")
    const project = makeChunkProject(home, "project")
    initial = project.initial
    commitAt(project.directory, at(CHUNK_TIMES[2], 120_000), { "lib.py": "def one():\n    return 1\n", "notes.txt": "n\n", "two.txt": "two\n", "three.txt": "three\n" }, "claude")
    // The thread lives in a Claude home of its own beside the fixtures' threads.
    const claude = path.join(home, "claude")
    fs.cpSync(path.resolve(import.meta.dirname, "../../fixtures/claude-home"), claude, { recursive: true })
    writeChunkThread(claude, threadId, project.directory)
    moved = path.join(home, "elsewhere")
    fs.renameSync(project.directory, moved)
    daemon = await startDaemon({ CLAUDE_CONFIG_DIR: claude })
  })
  afterAll(async () => {
    await daemon?.stop()
    fs.rmSync(home, { recursive: true, force: true })
  })

  it("without --repo, the empty beginning of a moved thread is offered --repo; a folder that is not a repository is one sentence", async () => {
    const plain = await runCli(["replay", threadId, "--model", MODEL], daemon.env, { input: "n\n" })
    expect(plain.code).toBe(1)
    expect(plain.stdout).toContain("Beginning:  non-git (empty directory)")
    expect(plain.stdout).toContain(`Question: The thread's folder ${path.join(home, "project")} is not on this machine; if its repository moved, pass --repo PATH`)
    const notGit = path.join(home, "plain-folder")
    fs.mkdirSync(notGit)
    const refused = await runCli(["replay", threadId, "--model", MODEL, "--yes", "--repo", notGit], daemon.env)
    expect(refused.code).toBe(1)
    expect(refused.stderr.trim().split("\n").at(-1)).toBe(
      `codex-replay: The folder ${notGit} is not a Git repository: pass --repo PATH or fill “Repository folder” in Configure with the folder that holds the thread's repository now.`
    )
    expect(runDirectories(daemon.runRoot)).toEqual([])
  })

  it("--repo PATH replays from the repository's new place", async () => {
    const result = await runCli(["replay", threadId, "--model", MODEL, "--yes", "--json", "--repo", path.relative(process.cwd(), moved)], daemon.env, { timeoutMillis: 60_000 })
    expect(result.stderr).not.toContain("codex-replay:")
    expect(result.code).toBe(0)
    expect(result.stderr).toContain(`Relocated:  ${moved}, from git ${initial.slice(0, 12)}`)
    const answer = JSON.parse(result.stdout) as { runs: ReadonlyArray<{ status: string; report_json: string }> }
    expect(answer.runs.map((run) => run.status)).toEqual(["completed"])
    const report = JSON.parse(fs.readFileSync(answer.runs[0]!.report_json, "utf8"))
    expect(report.comparability.relocated_repository).toEqual({ recorded: path.join(home, "project"), used: moved })
  }, 90_000)

  it("batch is blocked by an empty beginning until --accept-empty-beginning, which warns as a single replay does", async () => {
    const blocked = await runCli(["batch", "--threads", MODIFIED_EXISTING, "--model", MODEL, "--yes"], daemon.env)
    expect(blocked.code).toBe(1)
    expect(blocked.stdout).toContain(
      `Blocked: ${MODIFIED_EXISTING} (${MODIFIED_EXISTING_TITLE}): Claude modified 1 file(s) that existed before the session (CLAUDE.md), so a replay from an empty folder is not like-for-like: ` +
        "replay the thread alone with --repo PATH (or “Repository folder” in Configure), or accept it anyway (pass --accept-empty-beginning to `batch` or tick “Accept empty beginnings” in the batch form)."
    )
    const accepted = await runCli(["batch", "--threads", MODIFIED_EXISTING, "--model", MODEL, "--yes", "--accept-empty-beginning", "--json"], daemon.env, { timeoutMillis: 90_000 })
    expect(accepted.stderr).not.toContain("codex-replay:")
    expect(accepted.code).toBe(0)
    expect(accepted.stderr).toContain(
      `Warning for ${MODIFIED_EXISTING} (${MODIFIED_EXISTING_TITLE}): Claude modified 1 file(s) that existed before the session (CLAUDE.md), so a replay from an empty folder is not like-for-like.`
    )
    const answer = JSON.parse(accepted.stdout)
    expect(answer.batch).toMatchObject({ total: 1, counts: { completed: 1 } })
    expect(answer.batch.items[0].caveats.map((caveat: { kind: string }) => caveat.kind)).toContain("not_like_for_like")
  }, 120_000)
})
