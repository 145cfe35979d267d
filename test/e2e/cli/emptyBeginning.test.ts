/**
 * `codex-replay replay` never accepts an empty beginning on the user's behalf when Claude changed files
 * that already existed (README, "Comparability"): it prints the questions the page shows and needs
 * `--accept-empty-beginning`. Real daemon, real CLI process, a real transcript (fixture) and the fake Codex CLI.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Daemon, startDaemon } from "../../rpc/support.js"
import { runCli, runDirectories } from "../../cli/support.js"

/** Claude modified CLAUDE.md of /path/to/Demo, which does not exist here: a non-git, empty beginning. */
const DEMO_THREAD = "5c0375b4-57a5-4f26-b12d-d022ee4e51b7"
const MODEL = "gpt-5.6-terra"

let daemon: Daemon

beforeAll(async () => {
  daemon = await startDaemon()
})

afterAll(async () => {
  await daemon?.stop()
})

describe("codex-replay replay and an empty beginning", () => {
  it("refuses without --accept-empty-beginning, after printing the questions and every file Claude changed; nothing is started", async () => {
    const result = await runCli(["replay", DEMO_THREAD, "--model", MODEL, "--yes"], daemon.env)
    expect(result.code).toBe(1)
    expect(result.stdout).toContain("Beginning:  non-git (empty directory)")
    expect(result.stdout).toContain("Files:      CLAUDE.md (modified)")
    expect(result.stdout).toContain(
      "Question: Claude modified 1 file(s) that existed before the session (CLAUDE.md). A non-git replay starts from an empty folder: " +
        "pass --repo PATH or fill “Repository folder” in Configure with the folder that holds the thread's repository now, " +
        "or accept the empty beginning (pass --accept-empty-beginning or tick “Start from an empty folder” in Configure)."
    )
    expect(result.stdout).toContain("Capability gap (may affect comparison fairness):")
    expect(result.stderr.trim()).toBe(
      "codex-replay: This replay would start from an empty folder although Claude modified 1 file(s) that existed before the session, " +
        "so it would not be like-for-like; nothing was started: pass --repo PATH or fill “Repository folder” in Configure with the folder " +
        "that holds the thread's repository now, or pass --accept-empty-beginning or tick “Start from an empty folder” in Configure to run it anyway."
    )
    expect(result.stderr).not.toContain("Approve")
    expect(runDirectories(daemon.runRoot)).toEqual([])
  })

  it("lists created files too, and asks for approval when Claude only created files", async () => {
    const result = await runCli(["replay", "sample-hello-cli", "--model", MODEL], daemon.env, { input: "n\n" })
    expect(result.code).toBe(1)
    expect(result.stdout).toContain("Files:      greet.py (created)")
    expect(result.stderr).toContain(`Approve a Codex replay of sample-hello-cli with ${MODEL}? [y/N]`)
    expect(result.stderr).toContain("codex-replay: The replay was not approved; nothing was started.")
  })

  it("with --accept-empty-beginning it runs, and the report says the verdict is not like-for-like", async () => {
    const result = await runCli(
      ["replay", DEMO_THREAD, "--model", MODEL, "--accept-empty-beginning", "--yes", "--json"],
      daemon.env,
      { timeoutMillis: 60_000 }
    )
    expect(result.stderr).not.toContain("codex-replay:")
    expect(result.code).toBe(0)
    const answer = JSON.parse(result.stdout) as { runs: ReadonlyArray<{ status: string; report_json: string }> }
    expect(answer.runs.map((run) => run.status)).toEqual(["completed"])
    const report = JSON.parse(fs.readFileSync(answer.runs[0]!.report_json, "utf8"))
    expect(report.comparability).toMatchObject({ beginning: "empty_with_existing_changes", like_for_like: false })
    const coordinatorRequest = JSON.parse(
      fs.readFileSync(path.join(path.dirname(answer.runs[0]!.report_json), "run.json"), "utf8")
    )
    expect(coordinatorRequest.configuration.confirm_empty_beginning).toBe(true)
  }, 90_000)

})
