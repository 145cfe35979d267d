import { it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { expect } from "vitest"
import { CodexWorker } from "../../../src/services/CodexWorker.js"
import { Settings } from "../../../src/services/Settings.js"
import type { ResolvedSettings } from "../../../src/domain/settings.js"
import { FAKE_CODEX, fakeCodexLayer, freshTag, implementationRequest, readLog, scratch, taggedPids } from "../../worker/support.js"

it.live("a successful run writes a real file, answers the final message and streams every event to run.log", () =>
  Effect.gen(function*() {
    const worker = yield* CodexWorker
    const request = implementationRequest()
    const result = yield* worker.run(request)
    const written = path.join(request.workingDirectory, "FAKE_CODEX_OUTPUT.md")
    expect(fs.readFileSync(written, "utf8")).toContain("Add a greeting to the README.")
    expect(result.final_response).toBe("Done: the requested change is in place.")
    expect(result.thread_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/)
    expect(result.worktree).toBe(request.workingDirectory)
    expect(result.usage).toEqual({ input: 1200, cached_input: 400, cache_write: 0, output: 300, reasoning_output: 120 })
    expect(result.items.map((item) => item.type)).toEqual(["reasoning", "command_execution", "file_change", "agent_message"])
    expect(result.output).toBeUndefined()
    expect(result.elapsed_ms).toBeGreaterThan(0)
    const log = readLog(request.runDirectory)
    expect(log).toMatch(/\[implementation\] started \(implementation, model gpt-5.6-terra\)/)
    expect(log.match(/\[implementation:stdout\] \{"type":/g)).toHaveLength(9)
    expect(log).toContain(`[implementation:stdout] {"type":"turn.completed"`)
    expect(log).toMatch(/\[implementation\] finished with exit code 0\n$/)
  }).pipe(Effect.provide(fakeCodexLayer())))

it.live("each purpose maps to its permission profile, network and reasoning flags; the prompt goes to stdin", () =>
  Effect.gen(function*() {
    const worker = yield* CodexWorker
    const offline = `permissions.codex_replay.network={"enabled" = false}`
    const expectations = {
      implementation: [`permissions.codex_replay.network={"enabled" = true}`],
      evaluation: [offline, `model_reasoning_effort="medium"`],
      prompt_synthesis: [offline],
      working_directory_inference: [offline, `web_search="disabled"`]
    } as const
    for (const [purpose, flags] of Object.entries(expectations)) {
      const request = implementationRequest({ purpose: purpose as keyof typeof expectations, prompt: "fake-scenario: echo\nhello $(rm -rf /)" })
      const result = yield* worker.run(request)
      const echoed = JSON.parse(result.final_response) as { argv: string[]; prompt: string; cwd: string }
      const argv = echoed.argv.join(" ")
      for (const flag of flags) expect(argv).toContain(flag)
      expect(argv).toContain(`--config default_permissions="codex_replay"`)
      // An allow-list: the minimal system, then the working directory (writable only for an implementation).
      expect(argv).toContain(`filesystem={":minimal" = "read", `)
      expect(argv).toContain(`${JSON.stringify(request.workingDirectory)} = "${purpose === "implementation" ? "write" : "read"}"`)
      expect(argv).not.toContain(`":root"`)
      expect(argv).toContain(`shell_environment_policy={"inherit" = "none", "set" = {`)
      expect(argv).not.toContain("--sandbox")
      expect(argv).toContain(`approval_policy="never"`)
      expect(argv).toContain("--model gpt-5.6-terra")
      expect(argv).toContain(`--cd ${request.workingDirectory}`)
      expect(argv.includes("medium")).toBe(purpose === "evaluation")
      expect(echoed.prompt).toBe("fake-scenario: echo\nhello $(rm -rf /)")
      expect(echoed.cwd).toBe(request.workingDirectory)
    }
  }).pipe(Effect.provide(fakeCodexLayer())))

it.live("Codex inherits the user's environment and CODEX_HOME plus the run tag; nothing is left running", () =>
  Effect.gen(function*() {
    const worker = yield* CodexWorker
    const runTag = freshTag()
    const result = yield* worker.run(implementationRequest({ prompt: "fake-scenario: echo", runTag }))
    const echoed = JSON.parse(result.final_response) as { run_tag: string; codex_home: string; originator: string }
    expect(echoed.run_tag).toBe(runTag)
    expect(echoed.codex_home).toBe("/home/someone/.codex-for-test")
    expect(echoed.originator).toBe("codex_sdk_ts")
    expect(yield* taggedPids(runTag)).toEqual([])
  }).pipe(Effect.provide(fakeCodexLayer({ CODEX_HOME: "/home/someone/.codex-for-test" }))))

it.live("a git workspace keeps the repository check; a plain directory (even below a stray empty .git) skips it", () =>
  Effect.gen(function*() {
    const worker = yield* CodexWorker
    const plain = implementationRequest({ prompt: "fake-scenario: echo" })
    const repository = scratch("worker-git-")
    fs.mkdirSync(path.join(repository, ".git"))
    fs.writeFileSync(path.join(repository, ".git", "HEAD"), "ref: refs/heads/main\n")
    const stray = scratch("worker-stray-git-")
    fs.mkdirSync(path.join(stray, ".git"))
    fs.mkdirSync(path.join(stray, "workspace"))
    const underEmptyGit = { ...plain, workingDirectory: path.join(stray, "workspace") }
    const inRepository = { ...plain, workingDirectory: repository }
    const argvOf = (text: string) => (JSON.parse(text) as { argv: string[] }).argv
    expect(argvOf((yield* worker.run(plain)).final_response)).toContain("--skip-git-repo-check")
    expect(argvOf((yield* worker.run(inRepository)).final_response)).not.toContain("--skip-git-repo-check")
    expect(argvOf((yield* worker.run(underEmptyGit)).final_response)).toContain("--skip-git-repo-check")
  }).pipe(Effect.provide(fakeCodexLayer())))

it.live("reviewer output never reaches the run log", () =>
  Effect.gen(function*() {
    const worker = yield* CodexWorker
    const request = implementationRequest({ purpose: "evaluation", label: "review:ab", prompt: "fake-response: SECRET VERDICT" })
    const result = yield* worker.run(request)
    expect(result.final_response).toBe("SECRET VERDICT")
    const log = readLog(request.runDirectory)
    expect(log).not.toContain("SECRET VERDICT")
    expect(log.match(/\[review:ab:stdout\] \[reviewer output omitted\]/g)?.length).toBeGreaterThanOrEqual(4)
    expect(log).toContain("[review:ab] finished with exit code 0")
  }).pipe(Effect.provide(fakeCodexLayer())))

it.live("unknown event and item types are logged and ignored", () =>
  Effect.gen(function*() {
    const worker = yield* CodexWorker
    const request = implementationRequest({ prompt: "fake-scenario: unknown_events" })
    const result = yield* worker.run(request)
    expect(result.final_response).toBe("Done: the requested change is in place.")
    const log = readLog(request.runDirectory)
    expect(log).toContain(`[implementation] ignoring unknown event type "turn.progress"`)
    expect(log).toContain(`[implementation] ignoring unknown item type "collab_tool_call"`)
  }).pipe(Effect.provide(fakeCodexLayer())))

const orphanPidfile = path.join(scratch("worker-orphan-"), "pids")

it.live("leftovers of a finished attempt end with it, whatever tag the caller gave: they were in Codex's pid namespace", () =>
  Effect.gen(function*() {
    const worker = yield* CodexWorker
    yield* worker.run(implementationRequest())
    expect(fs.readFileSync(orphanPidfile, "utf8").trim().split("\n")[1]).toMatch(/^\d+$/)

    const runTag = freshTag()
    yield* worker.run(implementationRequest({ runTag }))
    expect(fs.readFileSync(orphanPidfile, "utf8").trim().split("\n")[0]).toBe("1")
    expect(yield* taggedPids(runTag)).toEqual([])
  }).pipe(Effect.provide(fakeCodexLayer({ FAKE_CODEX_LEAVE_ORPHAN: "1", FAKE_CODEX_PIDFILE: orphanPidfile }))))

const settingsWith = (codexCliPath: string | undefined): ResolvedSettings => {
  const root = scratch("worker-settings-")
  return {
    runRoot: path.join(root, "runs"),
    cacheRoot: root,
    controllersRoot: path.join(root, "controllers"),
    preferredPort: 43118,
    idleTimeoutMillis: 60_000,
    controllerSessionId: "0123456789abcdef0123456789abcdef" as ResolvedSettings["controllerSessionId"],
    codexCliPath,
    claudeConfigDir: path.join(root, "claude"),
    inheritedSocketFd: undefined
  }
}

it.live("CodexWorker.Default takes the CLI from Settings (CODEX_CLI_PATH) and refuses a missing one", () =>
  Effect.gen(function*() {
    const viaSettings = (cliPath: string | undefined) =>
      Effect.flatMap(CodexWorker, (worker) => worker.run(implementationRequest())).pipe(
        Effect.provide(CodexWorker.Default.pipe(Layer.provide(Settings.layer(settingsWith(cliPath)))))
      )
    expect((yield* viaSettings(FAKE_CODEX)).final_response).toBe("Done: the requested change is in place.")
    const missing = yield* Effect.flip(viaSettings("/nonexistent/codex"))
    expect([missing.code, missing.diagnostic.worker_stage]).toEqual(["cli_unavailable", "request"])
  }))
