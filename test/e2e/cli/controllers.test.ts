import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { installEnv, runtimeFiles, scratch, startDaemon, stopControllers } from "../../rpc/support.js"
import { runCli as runCliWithin } from "../../cli/support.js"
import { isAlive } from "../../support/daemon.js"

/** The machine may be busy: a command gets a minute and a half before it counts as hung. */
const runCli = (args: ReadonlyArray<string>, env: Record<string, string>) => runCliWithin(args, env, { timeoutMillis: 90_000 })

const roots: Array<string> = []
afterAll(() => {
  for (const root of roots) fs.rmSync(root, { recursive: true, force: true })
})

describe("one controller per settings, and codex-replay stop", () => {
  it("reuses a controller only for the same history folder, says why, and stops them (one, then all)", { timeout: 600_000 }, async () => {
    const daemon = await startDaemon()
    try {
      const reused = await runCli(["open"], daemon.env)
      expect(reused.code).toBe(0)
      expect(reused.stdout).toBe(`${daemon.launchUrl}\n`)
      expect(reused.stderr).toContain(`Reused controller ${daemon.sessionId}: it reads ${daemon.env.CLAUDE_CONFIG_DIR}/projects`)

      // Another history folder: a new controller, and the reason the running one was not reused.
      const elsewhere = path.join(daemon.root, "elsewhere")
      fs.mkdirSync(path.join(elsewhere, "projects"), { recursive: true })
      const otherEnv = { ...daemon.env, CLAUDE_CONFIG_DIR: elsewhere, CODEX_REPLAY_CONTROLLER_SESSION_ID: "" }
      const started = await runCli(["open"], otherEnv)
      expect(started.code).toBe(0)
      expect(started.stdout).not.toBe(`${daemon.launchUrl}\n`)
      expect(started.stderr).toMatch(
        new RegExp(`^Started controller [a-f0-9]{32} for ${elsewhere}/projects \\(controller ${daemon.sessionId} is running but it reads another history folder`)
      )
      const files = runtimeFiles(daemon.env)
      expect(files).toHaveLength(2)
      const other = files.find((file) => file.controller_session_id !== daemon.sessionId)!
      expect((await runCli(["open"], otherEnv)).stdout).toBe(`http://127.0.0.1:${other.port}/?token=${other.api_token}\n`)
      // The page and the CLI agree: the new controller lists the other folder's threads.
      const threads = await fetch(`http://127.0.0.1:${other.port}/api/call`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Origin: `http://127.0.0.1:${other.port}`, Authorization: `Bearer ${other.api_token}` },
        body: JSON.stringify({ name: "list_threads", arguments: { source: "imported" } })
      }).then((response) => response.json())
      expect(threads.structuredContent.empty_history).toBe(`No Claude Code threads in ${elsewhere}/projects.`)

      // A controller with an active run refuses to stop and is named; exit code 1.
      const busyRun = path.join(daemon.runRoot, "run-busy")
      fs.mkdirSync(busyRun, { recursive: true })
      const now = new Date().toISOString()
      fs.writeFileSync(path.join(busyRun, "controller-state.json"), JSON.stringify({
        schema_version: 1, controller_session_id: daemon.sessionId, run_id: "run-busy", status: "running", phase: "implementing",
        phases: [], events: [], coordinator_pid: daemon.child.pid, started_at: now, updated_at: now, error: null
      }))
      // The controller sees the run once its watch of the run root has (no fixed wait: a loaded machine is slower).
      const activeRuns = () =>
        fetch(`${daemon.origin}/health`, { headers: { Authorization: `Bearer ${daemon.apiToken}` } })
          .then((response) => response.json() as Promise<{ active_runs?: number }>)
          .then((health) => health.active_runs ?? 0)
      for (let waited = 0; (await activeRuns()) === 0 && waited < 10_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50))
      const refused = await runCli(["stop", "--session", daemon.sessionId], daemon.env)
      expect(refused.code).toBe(1)
      expect(refused.stdout).toContain(`Controller ${daemon.sessionId} (${daemon.origin}/) is running a replay and was not stopped`)
      expect(isAlive(daemon.child.pid!)).toBe(true)
      fs.rmSync(busyRun, { recursive: true })
      await new Promise((resolve) => setTimeout(resolve, 400))

      const one = await runCli(["stop", "--session", other.controller_session_id], daemon.env)
      expect(one.code).toBe(0)
      expect(one.stdout).toBe(`Stopped controller ${other.controller_session_id} (http://127.0.0.1:${other.port}/).\n`)
      expect(runtimeFiles(daemon.env).map((file) => file.controller_session_id)).toEqual([daemon.sessionId])

      const all = await runCli(["stop", "--json"], daemon.env)
      expect(all.code).toBe(0)
      expect(JSON.parse(all.stdout)).toEqual({
        controllers: [{ controller_session_id: daemon.sessionId, url: `${daemon.origin}/`, outcome: "stopped" }]
      })
      expect(runtimeFiles(daemon.env)).toEqual([])
      const none = await runCli(["stop"], daemon.env)
      expect(none.stdout).toBe("No controller of this installation is running.\n")
      const unknown = await runCli(["stop", "--session", "c".repeat(32)], daemon.env)
      expect(unknown.code).toBe(1)
      expect(unknown.stderr).toContain(`No running controller with session ${"c".repeat(32)}`)
      const invalid = await runCli(["stop", "--session", "nope"], daemon.env)
      expect(invalid.code).toBe(1)
      expect(invalid.stderr).toContain("--session must be a controller session id (32 lowercase hexadecimal characters).")
    } finally {
      await stopControllers(daemon.env)
      await daemon.stop()
    }
  })

  it("a controller whose runtime file cannot be read: stop names it and fails, open starts no second one", { timeout: 200_000 }, async () => {
    const root = scratch("codex-replay-cli-unreadable-runtime-")
    roots.push(root)
    const env = installEnv(root)
    const controllers = path.join(path.dirname(env.CODEX_REPLAY_RUN_ROOT!), "controllers")
    const session = "d".repeat(32)
    const file = path.join(controllers, session, "controller-server.json")
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 })
    fs.writeFileSync(file, "{\"port\": ", { mode: 0o600 })
    const sentence = `Cannot read the runtime file of controller ${session} (${file}), so it may still be running and was not stopped`

    const stop = await runCli(["stop"], env)
    expect(stop.code).toBe(1)
    expect(stop.stderr).toContain(sentence)
    const json = await runCli(["stop", "--json"], env)
    expect(json.code).toBe(1)
    expect(JSON.parse(json.stdout)).toEqual({ controllers: [], unreadable: [{ controller_session_id: session, runtime_file: file }] })
    expect((await runCli(["stop", "--session", session], env)).stderr).toContain(sentence)

    const open = await runCli(["open"], env)
    expect(open.code).toBe(1)
    expect(open.stderr).toContain(`Cannot read the runtime file of controller ${session} (${file}), which may still be running`)
    expect(fs.readdirSync(controllers)).toEqual([session])
  })

  it("names an empty or missing history folder in threads", { timeout: 200_000 }, async () => {
    const root = scratch("codex-replay-cli-empty-history-")
    roots.push(root)
    const env = installEnv(root, { CLAUDE_CONFIG_DIR: path.join(root, "no-claude") })
    const imported = await runCli(["threads", "--source", "imported"], env)
    expect(imported.code).toBe(0)
    expect(imported.stdout).toBe(
      `No Claude Code threads in ${root}/no-claude/projects. Try the packaged samples: codex-replay threads --source sample\n`
    )
    const fallback = await runCli(["threads"], env)
    expect(fallback.stdout.split("\n")[0]).toBe(`No Claude Code threads in ${root}/no-claude/projects. Showing the packaged samples.`)
    expect(fallback.stdout).toContain("sample-hello-cli")
  })
})
