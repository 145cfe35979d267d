/**
 * Carried-forward files of a whole-thread replay through the real daemon: only files of the start that
 * Claude did not produce are accepted, at prepare and again at start, and a Git beginning takes them from
 * the starting commit, never from the user's working directory (which is in Claude's end state).
 * And a thread that ran in a `git worktree`: its agents are denied the enclosing repository and the cache.
 */
import { readableUnder } from "../../support/sandboxArgv.js"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { writeChunkThread } from "../../runs/chunkThread.js"
import {
  approveAndStart,
  awaitTerminal,
  type Daemon,
  gitAt,
  killAllDaemons,
  MODELS,
  runDirectories,
  scratch,
  startDaemon
} from "../../runs/support.js"

afterAll(async () => expect(await killAllDaemons()).toBe(0))

const THREAD = "3f0a9c11-2b3c-4d5e-8f60-7a8b9c0d1e2f"

/** A repository whose start holds keep.txt (untouched), app.txt (changed by Claude's commit), lib.py (Claude's Write) and a link out. */
const makeProject = (root: string) => {
  const directory = path.join(root, "project")
  fs.mkdirSync(directory)
  const git = (...args: Array<string>) => gitAt(directory, undefined, ...args)
  git("init", "--quiet", "--initial-branch", "main")
  fs.writeFileSync(path.join(directory, "keep.txt"), "kept as committed\n")
  fs.writeFileSync(path.join(directory, "app.txt"), "baseline\n")
  fs.writeFileSync(path.join(directory, "lib.py"), "# before Claude\n")
  fs.symlinkSync("/etc", path.join(directory, "out"))
  git("add", ".")
  git("commit", "--quiet", "-m", "baseline")
  const baseline = git("rev-parse", "HEAD")
  fs.writeFileSync(path.join(directory, "app.txt"), "claude's answer\n")
  git("commit", "--quiet", "-am", "claude's ending")
  const ending = git("rev-parse", "HEAD")
  writeChunkThread(path.join(root, "claude"), THREAD, directory)
  return { directory, baseline, ending }
}

describe("carried-forward files", () => {
  let daemon: Daemon
  let project: ReturnType<typeof makeProject>
  const gitReplay = (carried: Array<string>) => ({
    thread_id: THREAD,
    request: "Update app.txt.",
    repo: project.directory,
    beginning_kind: "git",
    ending_kind: "git",
    baseline_commit: project.baseline,
    ending_commit: project.ending,
    carried_forward_files: carried,
    model: MODELS[0]
  })
  const emptyReplay = (carried: Array<string>) => ({
    thread_id: THREAD,
    request: "Write the files.",
    repo: project.directory,
    beginning_kind: "non_git",
    ending_kind: "non_git",
    confirm_empty_beginning: true,
    carried_forward_files: carried,
    model: MODELS[0]
  })

  beforeAll(async () => {
    const root = scratch()
    project = makeProject(root)
    daemon = await startDaemon({ root })
  }, 30_000)
  afterAll(() => daemon.stop())

  it("refuses, for a Git beginning, a file Claude's commits changed between the starting and ending commits", async () => {
    expect(await daemon.refused("prepare_run", gitReplay(["app.txt"]))).toBe(
      "The carried-forward file app.txt was changed by Claude in the replayed range, so it is part of Claude's result, not of the start."
    )
  })

  const refusals: ReadonlyArray<readonly [string, string, RegExp]> = [
    ["a file Claude's transcript wrote", "lib.py", /^The carried-forward file lib\.py was changed by Claude in the replayed range/],
    ["an absolute path", "/etc/passwd", /^The carried-forward file \/etc\/passwd is not a path inside the repository\.$/],
    ["a path leaving the repository", "../x", /^carried_forward_files must not contain "\.\."\.$/],
    ["the repository's git directory", ".git/config", /is not a path inside the repository\.$/]
  ]

  it.each(refusals)("refuses %s for either beginning at prepare, in one sentence", async (_name, file, message) => {
    expect(await daemon.refused("prepare_run", gitReplay([file]))).toMatch(message)
    expect(await daemon.refused("prepare_run", emptyReplay([file]))).toMatch(message)
    expect(runDirectories(daemon.runRoot)).toEqual([])
  })

  it("refuses a link and a missing file, as the starting commit holds them or as the project directory does", async () => {
    expect(await daemon.refused("prepare_run", gitReplay(["out"]))).toBe("The carried-forward file out is a symbolic link in the starting commit.")
    expect(await daemon.refused("prepare_run", gitReplay(["out/passwd"]))).toBe("The carried-forward file out/passwd does not exist in the starting commit.")
    expect(await daemon.refused("prepare_run", gitReplay(["missing.txt"]))).toBe("The carried-forward file missing.txt does not exist in the starting commit.")
    expect(await daemon.refused("prepare_run", emptyReplay(["out/passwd"]))).toBe("The carried-forward file out/passwd is reached through a symbolic link.")
    expect(await daemon.refused("prepare_run", emptyReplay(["missing.txt"]))).toBe("The carried-forward file missing.txt does not exist in the project directory.")
    expect(runDirectories(daemon.runRoot)).toEqual([])
  })

  it("takes a Git beginning's untouched file from the starting commit, not from the working directory", async () => {
    fs.writeFileSync(path.join(project.directory, "keep.txt"), "changed after the start\n")
    try {
      const started = await approveAndStart(daemon, gitReplay(["keep.txt"]))
      const run = await awaitTerminal(daemon, started.run_id)
      expect(run.status).toBe("completed")
      expect(fs.readFileSync(path.join(run.workspace, "keep.txt"), "utf8")).toBe("kept as committed\n")
      expect(fs.readFileSync(path.join(run.workspace, "app.txt"), "utf8")).toBe("baseline\n")
    } finally {
      fs.writeFileSync(path.join(project.directory, "keep.txt"), "kept as committed\n")
    }
  }, 60_000)

  it("checks an empty beginning's files again at start: one turned into a link after approval is refused", async () => {
    const config = emptyReplay(["keep.txt"])
    const prepared = await daemon.call("prepare_run", config)
    expect(prepared.status).toBe("ready_for_approval")
    const before = runDirectories(daemon.runRoot)
    const keep = path.join(project.directory, "keep.txt")
    fs.renameSync(keep, `${keep}.saved`)
    fs.symlinkSync("/etc/passwd", keep)
    try {
      expect(await daemon.refused("start_run", { ...config, approved: true, prepare_token: prepared.prepare_token }))
        .toBe("The carried-forward file keep.txt is reached through a symbolic link.")
    } finally {
      fs.unlinkSync(keep)
      fs.renameSync(`${keep}.saved`, keep)
    }
    expect(runDirectories(daemon.runRoot)).toEqual(before)
  })
})

describe("a thread that ran in a git worktree", () => {
  it("denies its agents the worktree, the enclosing repository, its main worktree and the whole cache", async () => {
    const root = scratch()
    const codexLog = path.join(root, "codex-calls.jsonl")
    // The repositories live outside the controller's cache, as a user's do.
    const outside = scratch()
    const main = path.join(outside, "main")
    fs.mkdirSync(main)
    const git = (cwd: string, ...args: Array<string>) => gitAt(cwd, undefined, ...args)
    git(main, "init", "--quiet", "--initial-branch", "main")
    fs.writeFileSync(path.join(main, "app.txt"), "baseline\n")
    git(main, "add", ".")
    git(main, "commit", "--quiet", "-m", "baseline")
    const baseline = git(main, "rev-parse", "HEAD")
    const worktree = path.join(outside, "feature")
    git(main, "worktree", "add", "--quiet", "-b", "feature", worktree)
    fs.writeFileSync(path.join(worktree, "app.txt"), "claude's answer\n")
    git(worktree, "commit", "--quiet", "-am", "claude's ending")
    const ending = git(worktree, "rev-parse", "HEAD")
    writeChunkThread(path.join(root, "claude"), THREAD, worktree)
    const daemon = await startDaemon({ root, env: { FAKE_CODEX_LOG: codexLog } })
    try {
      const started = await approveAndStart(daemon, {
        thread_id: THREAD,
        request: "Update app.txt.",
        repo: worktree,
        beginning_kind: "git",
        ending_kind: "git",
        baseline_commit: baseline,
        ending_commit: ending,
        model: MODELS[0]
      })
      const run = await awaitTerminal(daemon, started.run_id)
      expect(run.status).toBe("completed")
      // What the run pipeline passes on as hidden, besides the cache root and run root it always adds.
      const request = JSON.parse(fs.readFileSync(path.join(daemon.runRoot, started.run_id, "coordinator-request.json"), "utf8"))
      const commonDir = path.join(main, ".git")
      expect(request.workspace.hiddenRoots).toEqual(expect.arrayContaining([worktree, main, commonDir, path.join(commonDir, "worktrees", "feature")]))
      // And what each agent's sandbox was given (the implementer and both reviewers): an allow-list that
      // grants none of them, nor any folder holding them.
      const calls = fs.readFileSync(codexLog, "utf8").trim().split("\n").map((line) => JSON.parse(line) as { argv: Array<string> })
      expect(calls.length).toBeGreaterThanOrEqual(3)
      for (const call of calls) {
        for (const hidden of [main, commonDir, worktree, root, daemon.runRoot, path.dirname(daemon.runRoot)]) {
          expect(readableUnder(call.argv, hidden), hidden).toBe(false)
        }
      }
    } finally {
      await daemon.stop()
    }
  }, 60_000)
})
