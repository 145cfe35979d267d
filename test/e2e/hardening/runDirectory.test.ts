import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { browserHeaders, callTool, type Daemon, killAllDaemons, readState, request, scratch, startDaemon, writeRun } from "../../support/daemon.js"

const SECRET = "root:$6$secret-hash:19000:0:99999:7:::\n"

describe("files of a run directory are never followed through symlinks", () => {
  let daemon: Daemon
  let outside: string
  beforeAll(async () => {
    daemon = await startDaemon()
    outside = path.join(scratch(), "shadow")
    fs.writeFileSync(outside, SECRET, { mode: 0o600 })
  })
  afterAll(async () => {
    await daemon?.stop()
    await killAllDaemons()
  })

  it("get_run does not read a run.log that is a symlink to a file outside", async () => {
    const directory = writeRun(daemon.runRoot, "run-log-link", { controller_session_id: daemon.sessionId, status: "completed" })
    fs.symlinkSync(outside, path.join(directory, "run.log"))
    const answer = await callTool(daemon.port, "get_run", { run_id: "run-log-link" })
    expect(answer.text).not.toContain("secret-hash")
    expect(answer.status).toBe(400)
    expect(answer.json.error).toBe("Cannot read run.log: it is a symbolic link or not a regular file, which is never followed.")
  })

  it("get_run does not read a controller-state.json that is a symlink", async () => {
    const elsewhere = writeRun(scratch(), "run-real", { controller_session_id: daemon.sessionId, status: "completed" })
    const directory = path.join(daemon.runRoot, "run-state-link")
    fs.mkdirSync(directory, { mode: 0o700 })
    fs.symlinkSync(path.join(elsewhere, "controller-state.json"), path.join(directory, "controller-state.json"))
    const answer = await callTool(daemon.port, "get_run", { run_id: "run-state-link" })
    expect(answer.status).toBe(400)
    expect(answer.json.error).toMatch(/symbolic link/)
  })

  it("cancel_run does not append to a file outside through a run.log symlink", async () => {
    const directory = writeRun(daemon.runRoot, "run-cancel-link", { controller_session_id: daemon.sessionId, status: "running" })
    fs.symlinkSync(outside, path.join(directory, "run.log"))
    await callTool(daemon.port, "cancel_run", { run_id: "run-cancel-link" })
    expect(fs.readFileSync(outside, "utf8")).toBe(SECRET)
    expect(readState(daemon.runRoot, "run-cancel-link").status).toBe("cancelled")
    expect(fs.lstatSync(path.join(directory, "run.log")).isSymbolicLink()).toBe(true)
  })
})

describe("a report is served only for a completed run", () => {
  let daemon: Daemon
  beforeAll(async () => {
    daemon = await startDaemon()
  })
  afterAll(async () => {
    await daemon?.stop()
  })

  const withReport = (runId: string, state: Record<string, unknown>) => {
    const directory = writeRun(daemon.runRoot, runId, { controller_session_id: daemon.sessionId, ...state })
    fs.writeFileSync(path.join(directory, "report.json"), JSON.stringify({ run_id: runId, winner: "codex" }))
    fs.writeFileSync(path.join(directory, "report.html"), "<html>half</html>")
  }

  it.each([
    ["killed while reporting, then marked interrupted", { status: "failed", phase: "reporting", interrupted: true }],
    ["still reporting", { status: "running", phase: "reporting" }],
    ["cancelled while reporting", { status: "cancelled", phase: "reporting" }]
  ])("a run %s that left report files has no report", async (_what, state) => {
    const runId = `run-${Object.values(state).join("-")}`
    withReport(runId, state)
    const answer = await callTool(daemon.port, "get_report", { run_id: runId })
    expect(answer.status).toBe(409)
    expect(answer.json.error).toBe("The replay report is not ready.")
    const html = await callTool(daemon.port, "get_report", { run_id: runId, format: "html" })
    expect(html.json.error).toBe("The replay report is not ready.")
    const download = await request(daemon.port, "/api/download", {
      method: "POST",
      headers: browserHeaders(daemon.port),
      body: JSON.stringify({ run_id: runId, format: "json" })
    })
    expect(download.status).toBe(409)
  })

  it("the same files of a completed run are served", async () => {
    withReport("run-completed", { status: "completed", phase: "reporting" })
    const answer = await callTool(daemon.port, "get_report", { run_id: "run-completed" })
    expect(answer.status).toBe(200)
    expect(answer.json.structuredContent.report.winner).toBe("codex")
  })
})
