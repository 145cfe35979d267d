import { readableUnder } from "../../support/sandboxArgv.js"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { treeSnapshot } from "../../support/daemon.js"
import {
  approveAndStart as start,
  awaitTerminal,
  type Daemon,
  gitConfig,
  killAllDaemons,
  makeRepository,
  MODELS,
  nonGitConfig,
  readAttempt,
  readLog,
  runDirectories,
  scratch,
  startDaemon,
  taggedPids,
  type TestRepository
} from "../../runs/support.js"

// Every daemon was stopped by its test; none is left behind.
afterAll(async () => expect(await killAllDaemons()).toBe(0))

describe("a non-git replay through the real daemon", () => {
  let daemon: Daemon
  let codexLog: string
  beforeAll(async () => {
    const root = scratch()
    codexLog = path.join(root, "codex-calls.jsonl")
    daemon = await startDaemon({ root, env: { FAKE_CODEX_LOG: codexLog } })
  })
  afterAll(() => daemon.stop())

  it("prepares with digests, starts, and completes with a report", async () => {
    const config = nonGitConfig()
    const prepared = await daemon.call("prepare_run", config)
    expect(prepared.ready).toBe(true)
    expect(prepared.prepare_token).toMatch(/^[A-Za-z0-9_-]{32,}$/)
    expect(prepared.historical_result_sha256).toMatch(/^[a-f0-9]{64}$/)
    expect(prepared.prepared_configuration_sha256_by_model[MODELS[0]]).toMatch(/^[a-f0-9]{64}$/)
    expect(runDirectories(daemon.runRoot)).toEqual([])

    const started = await daemon.call("start_run", { ...config, approved: true, prepare_token: prepared.prepare_token })
    expect(started.idempotent).toBe(false)
    expect(started.models).toEqual([MODELS[0]])
    expect(started.errors).toEqual([])
    const run = await awaitTerminal(daemon, started.run_id)
    expect(run.status).toBe("completed")
    expect(run.error).toBeNull()
    // No check was approved: the checking phase was passed over.
    expect(run.phases.map((phase: { id: string; status: string }) => `${phase.id}:${phase.status}`)).toEqual([
      "preparing:complete", "queued:complete", "creating_workspace:complete", "implementing:complete", "collecting:complete",
      "checking:skipped", "reviewing:complete", "reporting:complete"
    ])
    expect(run.run_tag).toBe(started.run_id)
    expect(run.report_summary.winner).toBeTypeOf("string")
    expect(run.report_summary.evaluation.reviews).toHaveLength(2)

    const directory = path.join(daemon.runRoot, started.run_id)
    expect(run.report_json).toBe(path.join(directory, "report.json"))
    const report = JSON.parse(fs.readFileSync(run.report_json, "utf8"))
    expect(report.original_request).toBe(config.request)
    // The fake CLI really wrote a file: the Codex patch holds it as a new file.
    expect(report.candidates.codex.patch).toContain("+++ b/FAKE_CODEX_OUTPUT.md")
    expect(report.candidates.claude.patch).toContain("greet.py")
    expect(fs.readFileSync(run.report_html, "utf8")).toContain("<html")
    expect(fs.existsSync(path.join(directory, "workspaces", "codex", "FAKE_CODEX_OUTPUT.md"))).toBe(true)
    expect((fs.statSync(directory).mode & 0o777).toString(8)).toBe("700")
    expect(JSON.parse(fs.readFileSync(path.join(directory, "coordinator-request.json"), "utf8")).request).toBe(config.request)

    const log = readLog(daemon.runRoot, started.run_id)
    expect(log).toMatch(/\[controller\] run approved/)
    expect(log).toMatch(/\[implementation\] started/)
    expect(log).toMatch(/\[implementation\] finished with exit code 0/)
    expect(log).toMatch(/\[controller\] reporting \[completed\]: The replay report is ready\./)
    expect(log).not.toContain("Create greet.py that prints a greeting.\n[review")

    // The task reaches Codex as data on stdin, never on a command line; every process carries the run's tag.
    const calls = fs.readFileSync(codexLog, "utf8").trim().split("\n").map((line) => JSON.parse(line))
    const implementation = calls.filter((call) => call.prompt === config.request)
    expect(implementation).toHaveLength(1)
    for (const call of calls) {
      expect(call.argv.join(" ")).not.toContain("greet.py")
      expect(call.env.CODEX_REPLAY_RUN_TAG).toBe(started.run_id)
    }
    // The implementer writes only its workspace, under the permission profile that hides the run root.
    const argv = implementation[0].argv.join(" ")
    expect(argv).toContain(`${JSON.stringify(path.join(fs.realpathSync(directory), "workspaces", "codex"))} = "write"`)
    // Nothing else of the run root, the cache or the system's temporary directory is granted.
    for (const hidden of [path.join(fs.realpathSync(directory), "run.json"), daemon.runRoot, fs.realpathSync(os.tmpdir())]) {
      expect(readableUnder(implementation[0].argv, hidden), hidden).toBe(false)
    }
    expect(argv).toContain(`permissions.codex_replay.network={"enabled" = true}`)
    expect(argv).not.toContain("--sandbox")

    expect(readAttempt(daemon).models).toEqual([{ model: MODELS[0], launch_status: "started", run_id: started.run_id }])
    expect(await taggedPids(started.run_id)).toEqual([])

    // The same token again: the same run, nothing new on disk.
    const again = await daemon.call("start_run", { ...config, approved: true, prepare_token: prepared.prepare_token })
    expect(again.idempotent).toBe(true)
    expect(again.run_id).toBe(started.run_id)
    expect(runDirectories(daemon.runRoot)).toEqual([started.run_id])

    // A thread may be replayed again: a new approval starts a new run beside the first.
    const rerun = await start(daemon, config)
    expect(rerun.run_id).not.toBe(started.run_id)
    expect((await awaitTerminal(daemon, rerun.run_id)).status).toBe("completed")
    expect(runDirectories(daemon.runRoot).sort()).toEqual([started.run_id, rerun.run_id].sort())
  })
})

describe("a git replay", () => {
  let daemon: Daemon
  let repository: TestRepository
  beforeAll(async () => {
    const root = scratch()
    repository = makeRepository(root)
    daemon = await startDaemon({ root })
  })
  afterAll(() => daemon.stop())

  it("runs in a workspace at the starting commit that holds no object from after it", async () => {
    const refsBefore = repository.git("for-each-ref")
    const statusBefore = repository.git("status", "--porcelain", "--ignored")
    const objectsBefore = repository.git("count-objects", "-v")
    const started = await start(daemon, gitConfig(repository))
    const run = await awaitTerminal(daemon, started.run_id)
    expect(run.status).toBe("completed")

    const workspace = path.join(daemon.runRoot, started.run_id, "workspaces", "codex")
    expect(run.workspace).toBe(workspace)
    const inWorkspace = (...args: Array<string>) => execFileSync("git", args, { cwd: workspace, encoding: "utf8" }).trim()
    expect(inWorkspace("rev-parse", "HEAD")).toBe(repository.baseline)
    expect(() => execFileSync("git", ["cat-file", "-e", repository.ending], { cwd: workspace, stdio: "ignore" })).toThrow()
    expect(inWorkspace("log", "--all", "--format=%H")).toBe(repository.baseline)
    expect(inWorkspace("tag")).toBe("")
    expect(fs.readFileSync(path.join(workspace, "app.txt"), "utf8")).toBe("baseline\n")
    expect(fs.existsSync(path.join(workspace, "answer.txt"))).toBe(false)

    // The user's repository was only read.
    expect(repository.git("for-each-ref")).toBe(refsBefore)
    expect(repository.git("status", "--porcelain", "--ignored")).toBe(statusBefore)
    expect(repository.git("count-objects", "-v")).toBe(objectsBefore)
    expect(repository.git("rev-parse", "HEAD")).toBe(repository.ending)

    const report = JSON.parse(fs.readFileSync(run.report_json, "utf8"))
    expect(report.candidates.claude.patch).toContain("+claude's answer")
    expect(report.candidates.claude.patch).toContain("answer.txt")
    expect(report.candidates.codex.patch).toContain("+++ b/FAKE_CODEX_OUTPUT.md")
    expect(report.candidates.codex.patch).not.toContain("answer.txt")
  })
})

describe("the packaged git sample", () => {
  let daemon: Daemon
  beforeAll(async () => {
    daemon = await startDaemon()
  })
  afterAll(() => daemon.stop())

  it("replays sample-word-count from its inspected baseline to a report", async () => {
    const inspected = await daemon.call("inspect_thread", { thread_id: "sample-word-count" })
    const { repository, commit, ending_commit } = inspected.baseline
    expect(commit).toMatch(/^[0-9a-f]{40}$/)
    const started = await start(daemon, {
      thread_id: "sample-word-count",
      request: inspected.thread.request,
      repo: repository,
      beginning_kind: "git",
      ending_kind: "git",
      baseline_commit: commit,
      ending_commit,
      model: MODELS[1]
    })
    const run = await awaitTerminal(daemon, started.run_id)
    expect(run.status).toBe("completed")
    const report = JSON.parse(fs.readFileSync(run.report_json, "utf8"))
    expect(report.candidates.claude.patch).toContain("wc.py")
    expect(report.candidates.codex.model).toBe(MODELS[1])
    expect(() => execFileSync("git", ["cat-file", "-e", ending_commit], { cwd: run.workspace, stdio: "ignore" })).toThrow()
  })
})

describe("bad input", () => {
  let daemon: Daemon
  let repository: TestRepository
  beforeAll(async () => {
    const root = scratch()
    repository = makeRepository(root)
    daemon = await startDaemon({ root })
  })
  afterAll(() => daemon.stop())

  const rejections: ReadonlyArray<readonly [string, Record<string, unknown>, RegExp]> = [
    ["a git replay without its commit", { baseline_commit: undefined }, /historical Git commit \(baseline_commit\)/],
    ["a git replay without its ending commit", { ending_commit: undefined }, /historical ending Git commit \(ending_commit\)/],
    ["a malformed commit", { baseline_commit: "not a commit" }, /historical Git commit \(baseline_commit\) is invalid/],
    ["a state kind that is not text", { beginning_kind: ["git"] }, /Git or Non-Git/],
    ["an unknown state kind", { ending_kind: "svn" }, /Git or Non-Git/],
    ["a git beginning with a non-git end", { ending_kind: "non_git" }, /requires a Git end state/],
    ["an unknown model", { model: "gpt-imaginary" }, /Unknown Codex model: gpt-imaginary/],
    ["more than 4 models", { model: undefined, models: [...MODELS, "gpt-5.6-sol-2"] }, /At most 4 models/],
    ["no model", { model: undefined }, /Choose a Codex model/],
    ["a missing request", { request: "  " }, /task request \(request\)/],
    ["a commit the repository does not have", { ending_commit: "f".repeat(40) }, /does not exist in/],
    ["a repository that is not there", { repo: "/nonexistent/project" }, /is unavailable/],
    ["a bad timeout", { timeout_seconds: -1 }, /timeout_seconds/]
  ]

  it.each(rejections)("rejects %s with a clear message and writes nothing", async (_name, change, message) => {
    const before = treeSnapshot(daemon.runRoot)
    expect(await daemon.refused("prepare_run", { ...gitConfig(repository), ...change })).toMatch(message)
    expect(treeSnapshot(daemon.runRoot)).toEqual(before)
    expect(runDirectories(daemon.runRoot)).toEqual([])
  })

  it("refuses starts without approval, without a token, with another token or a changed configuration", async () => {
    const config = gitConfig(repository)
    const prepared = await daemon.call("prepare_run", config)
    const token = prepared.prepare_token as string
    const before = treeSnapshot(daemon.runRoot)
    expect(await daemon.refused("start_run", { ...config, prepare_token: token })).toMatch(/Explicit approval/)
    expect(await daemon.refused("start_run", { ...config, approved: true })).toMatch(/prepare_token/)
    expect(await daemon.refused("start_run", { ...config, approved: true, prepare_token: "x".repeat(43) })).toMatch(
      /unknown to this controller/
    )
    expect(await daemon.refused("start_run", { ...config, request: "Something else.", approved: true, prepare_token: token }))
      .toMatch(/approved configuration changed/)
    expect(await daemon.refused("start_run", { ...config, timeout_seconds: 5, approved: true, prepare_token: token }))
      .toMatch(/approved configuration changed/)

    // A token of another controller means nothing here.
    const other = await startDaemon()
    try {
      const foreign = await other.call("prepare_run", nonGitConfig())
      expect(await daemon.refused("start_run", { ...nonGitConfig(), approved: true, prepare_token: foreign.prepare_token }))
        .toMatch(/unknown to this controller/)
    } finally {
      await other.stop()
    }
    expect(treeSnapshot(daemon.runRoot)).toEqual(before)
    expect(runDirectories(daemon.runRoot)).toEqual([])
  })

  it("refuses a start when the repository moved since preparation", async () => {
    const config = gitConfig(repository)
    const prepared = await daemon.call("prepare_run", config)
    const moved = `${repository.directory}-moved`
    fs.renameSync(repository.directory, moved)
    try {
      expect(await daemon.refused("start_run", { ...config, approved: true, prepare_token: prepared.prepare_token }))
        .toMatch(/repository .* is unavailable/)
    } finally {
      fs.renameSync(moved, repository.directory)
    }
    expect(runDirectories(daemon.runRoot)).toEqual([])
  })

  it("refuses a start when the repository behind the configured path changed since preparation", async () => {
    const link = path.join(path.dirname(repository.directory), "project-link")
    // A folder of the user's own choice (outside the controller's cache, which holds this test's repository).
    const copy = path.join(scratch(), "project-copy")
    execFileSync("git", ["clone", "--quiet", repository.directory, copy])
    fs.symlinkSync(repository.directory, link)
    const config = gitConfig(repository, { repo: link, confirm_repository_selection: true })
    const prepared = await daemon.call("prepare_run", config)
    fs.unlinkSync(link)
    fs.symlinkSync(copy, link)
    expect(await daemon.refused("start_run", { ...config, approved: true, prepare_token: prepared.prepare_token }))
      .toMatch(/repository changed since preparation/)
    expect(runDirectories(daemon.runRoot)).toEqual([])
  })

  it("answers a blocked configuration without a token", async () => {
    const prepared = await daemon.call("prepare_run", nonGitConfig({ confirm_empty_beginning: false }))
    expect(prepared.status).toBe("blocked")
    expect(prepared.prepare_token).toBeNull()
    // The reason names what unblocks it (the flag, the page control), never the API field.
    expect(prepared.blockers).toEqual(["Confirm that the replay starts from an empty folder: pass --accept-empty-beginning or tick “Start from an empty folder” in Configure."])
    expect(runDirectories(daemon.runRoot)).toEqual([])
  })
})
