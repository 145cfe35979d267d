import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, expect, it } from "vitest"
import { runCli } from "../../cli/support.js"
import { installEnv } from "../../rpc/support.js"
import { callTool, killAllDaemons, request, scratch, startDaemon, writeRun } from "../../support/daemon.js"

afterAll(async () => {
  await killAllDaemons()
})

/**
 * Run states and a runtime file that do not decode, planted in the run root and the controllers folder: a
 * `running` state whose `started_at` is a number (once, every daemon of the installation exited at start), one
 * whose `phases` is null (once, `list_runs` answered 500), and another controller's runtime file whose port is
 * text. The daemon starts, lists the good run and names the others, answers each by id with a sentence, and
 * stops; `codex-replay runs` does the same on its own.
 */
it("a damaged state or runtime file never stops a daemon from starting or another run from being listed", async () => {
  const root = scratch()
  const runRoot = path.join(root, "runs")
  const gone = "d".repeat(32)
  const now = new Date().toISOString()
  writeRun(runRoot, "run-good", { controller_session_id: gone, status: "completed", started_at: now })
  writeRun(runRoot, "run-numeric-start", { controller_session_id: gone, status: "running", coordinator_pid: 999_999, started_at: 5 })
  writeRun(runRoot, "run-null-phases", { controller_session_id: gone, status: "completed", phases: null })
  fs.mkdirSync(path.join(root, "controllers", gone), { recursive: true, mode: 0o700 })
  fs.writeFileSync(path.join(root, "controllers", gone, "controller-server.json"), JSON.stringify({ port: "eighty", control_token: "x" }))

  const daemon = await startDaemon({ root })
  try {
    expect((await request(daemon.port, "/health")).status).toBe(200)
    const listed = await callTool(daemon.port, "list_runs", {})
    expect(listed.status).toBe(200)
    expect(listed.json.structuredContent.runs.map((run: { run_id: string }) => run.run_id)).toEqual(["run-good"])
    expect(listed.json.structuredContent.diagnostics).toEqual([
      "Run run-null-phases: controller-state.json: phases has the wrong type or value.",
      "Run run-numeric-start: controller-state.json: started_at has the wrong type or value."
    ])

    const asked = await callTool(daemon.port, "get_run", { run_id: "run-numeric-start" })
    expect(asked.status).toBe(500)
    expect(asked.json.error).toMatch(/^The state of run run-numeric-start is damaged \(controller-state\.json: started_at has the wrong type or value\.\)$/)
    const phases = await callTool(daemon.port, "get_run", { run_id: "run-null-phases" })
    expect(phases.status).toBe(500)
    expect(phases.json.error).toMatch(/^The state of run run-null-phases is damaged \(controller-state\.json: phases has the wrong type or value\.\)$/)
    expect((await callTool(daemon.port, "get_run", { run_id: "run-good" })).status).toBe(200)

    // The daemon names each damaged run once in its log.
    expect(daemon.output()).toContain("Run run-numeric-start is left out of the run history: controller-state.json: started_at")
    expect(daemon.output().split("Run run-null-phases is left out").length - 1).toBe(1)

    // The command line reads the run root on its own: the good run on stdout, the others named on stderr.
    const cli = await runCli(["runs", "--json"], installEnv(root, { CODEX_REPLAY_RUN_ROOT: runRoot }), { timeoutMillis: 60_000 })
    expect(cli.code).toBe(0)
    expect(JSON.parse(cli.stdout).runs.map((run: { run_id: string }) => run.run_id)).toEqual(["run-good"])
    expect(cli.stderr).toContain("Skipped: Run run-null-phases: controller-state.json: phases")
    expect(cli.stderr).toContain("Skipped: Run run-numeric-start: controller-state.json: started_at")
  } finally {
    await daemon.stop()
  }
  // Nothing was rewritten: the damaged files are the user's to look at.
  expect(JSON.parse(fs.readFileSync(path.join(runRoot, "run-numeric-start", "controller-state.json"), "utf8")).started_at).toBe(5)
}, 120_000)
