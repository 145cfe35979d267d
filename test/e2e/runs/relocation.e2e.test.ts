/**
 * A thread whose repository moved, pointed at its new place over the real daemon's HTTP API
 * (`repository_path`): the beginning is found there and the report says the repository was relocated;
 * a folder that is missing, not a Git repository or without the thread's start is refused in one
 * sentence naming the flag and the page control, and nothing is written.
 */
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { at, CHUNK_TIMES, commitAt, makeChunkProject, writeChunkThread } from "../../runs/chunkThread.js"
import { approveAndStart, awaitTerminal, type Daemon, gitAt, killAllDaemons, MODELS, runDirectories, scratch, startDaemon } from "../../runs/support.js"

const HINT = "pass --repo PATH or fill “Repository folder” in Configure with the folder that holds the thread's repository now."

let daemon: Daemon
let root: string
/** The user's folders, outside the controller's cache. */
let home: string
const threadId = randomUUID()
let recorded: string
let moved: string
let initial: string
let ending: string

beforeAll(async () => {
  root = scratch("codex-replay-relocation-")
  home = scratch("codex-replay-relocation-home-")
  const project = makeChunkProject(home, "project")
  initial = project.initial
  // Claude's work, committed in the session's window.
  ending = commitAt(project.directory, at(CHUNK_TIMES[2], 120_000), { "lib.py": "def one():\n    return 1\n", "notes.txt": "n\n", "two.txt": "two\n", "three.txt": "three\n" }, "claude")
  recorded = project.directory
  writeChunkThread(path.join(root, "claude"), threadId, recorded)
  // The repository moves after the session: the thread still records its old place.
  moved = path.join(home, "moved", "project")
  fs.mkdirSync(path.dirname(moved), { recursive: true })
  fs.renameSync(recorded, moved)
  daemon = await startDaemon({ root })
})

afterAll(async () => {
  await daemon?.stop()
  fs.rmSync(home, { recursive: true, force: true })
  expect(await killAllDaemons()).toBe(0)
})

/** The configuration a page or the CLI builds from the inspection of a thread whose folder is gone: an empty beginning. */
const fromInspection = (overrides: Record<string, unknown> = {}) => ({
  thread_id: threadId,
  request: "Create lib.py, notes.txt, two.txt and three.txt.",
  repo: null,
  beginning_kind: "non_git",
  ending_kind: "non_git",
  model: MODELS[0],
  timeout_seconds: 600,
  ...overrides
})

describe("a thread whose repository moved", () => {
  it("is offered --repo and “Repository folder” when inspected, and its empty beginning names both ways out", async () => {
    const inspection = await daemon.call("inspect_thread", { thread_id: threadId })
    expect(inspection.baseline.beginning_kind).toBe("non_git")
    expect(inspection.questions[0]).toBe(`The thread's folder ${recorded} is not on this machine; if its repository moved, ${HINT.replace(/\.$/, ".")}`)
    const blocked = await daemon.call("prepare_run", fromInspection())
    expect(blocked).toMatchObject({ ready: false, prepare_token: null })
    expect(blocked.blockers).toEqual(["Confirm that the replay starts from an empty folder: pass --accept-empty-beginning or tick “Start from an empty folder” in Configure."])
    expect(blocked.blockers.join(" ")).not.toMatch(/confirm_empty_beginning/)
  })

  it("prepares from its new place: the start and end commits are found there", async () => {
    const prepared = await daemon.call("prepare_run", fromInspection({ repository_path: moved }))
    expect(prepared).toMatchObject({ status: "ready_for_approval", ready: true, preflight: { ready: true, status: "ready" } })
    expect(prepared.run_config).toMatchObject({
      repo: moved,
      repository_path: moved,
      beginning_kind: "git",
      ending_kind: "git",
      baseline_commit: initial,
      ending_commit: ending,
      confirm_repository_selection: true
    })
  })

  it("refuses, in one sentence and without writing anything, a folder that is missing, not a repository or without the thread's start", async () => {
    const notGit = path.join(home, "not-git")
    fs.mkdirSync(notGit)
    const newer = path.join(home, "newer")
    fs.mkdirSync(newer)
    gitAt(newer, undefined, "init", "--quiet", "--initial-branch", "main")
    commitAt(newer, "2026-06-01T00:00:00.000Z", { "README.md": "later\n" }, "made after the session")
    const before = fs.readdirSync(daemon.runRoot).sort()
    expect(await daemon.refused("prepare_run", fromInspection({ repository_path: path.join(home, "gone") })))
      .toBe(`The folder ${path.join(home, "gone")} does not exist: ${HINT}`)
    expect(await daemon.refused("prepare_run", fromInspection({ repository_path: notGit })))
      .toBe(`The folder ${notGit} is not a Git repository: ${HINT}`)
    expect(await daemon.refused("prepare_run", fromInspection({ repository_path: newer })))
      .toBe(`The folder ${newer} holds no commit from before the thread started, so it does not contain the thread's start commit: ${HINT}`)
    // A configuration that names its commits (Configure showed them) is checked against them.
    const named = { beginning_kind: "git", ending_kind: "git", baseline_commit: initial, ending_commit: ending, repo: recorded }
    expect(await daemon.refused("prepare_run", fromInspection({ ...named, repository_path: newer })))
      .toBe(`The folder ${newer} does not contain the thread's start commit ${initial.slice(0, 12)}: ${HINT}`)
    expect(await daemon.refused("prepare_run", fromInspection({ repository_path: "moved/project" })))
      .toBe("The repository folder must be an absolute path: fill “Repository folder” in Configure with the folder's whole path (such as /home/me/project), or pass --repo PATH.")
    expect(await daemon.refused("start_run", { ...fromInspection({ repository_path: notGit }), approved: true, prepare_token: "x".repeat(43) }))
      .toBe("The prepare token is unknown to this controller or has expired. Prepare and approve the run again.")
    expect(fs.readdirSync(daemon.runRoot).sort()).toEqual(before)
    expect(runDirectories(daemon.runRoot)).toEqual([])
  })

  it("a batch accepts empty beginnings with accept_empty_beginning; malformed fields are one sentence and change nothing", async () => {
    const batch = { configurations: [fromInspection({ repo: undefined })] }
    const blocked = await daemon.call("prepare_run", batch)
    expect(blocked).toMatchObject({ ready: false, prepare_token: null, preflight: { ready: true } })
    expect(blocked.blocked[0].reasons).toEqual([
      "Confirm that the replay starts from an empty folder: pass --accept-empty-beginning to `batch` or tick “Accept empty beginnings” in the batch form."
    ])
    const accepted = await daemon.call("prepare_run", { ...batch, accept_empty_beginning: true })
    expect(accepted).toMatchObject({ ready: true, blocked: [], ready_threads: [{ index: 0, thread_id: threadId, warnings: [] }] })
    const before = fs.readdirSync(daemon.root).sort()
    expect(await daemon.refused("prepare_run", { ...batch, accept_empty_beginning: "yes" })).toBe("accept_empty_beginning must be true or false.")
    expect(await daemon.refused("prepare_run", fromInspection({ repository_path: 7 }))).toBe("repository_path must be a string.")
    expect(fs.readdirSync(daemon.root).sort()).toEqual(before)
    expect(runDirectories(daemon.runRoot)).toEqual([])
  })

  it("replays from the new place, and the report records that the repository was relocated", async () => {
    const started = await approveAndStart(daemon, fromInspection({ repository_path: moved }))
    const run = await awaitTerminal(daemon, started.run_id, 60_000)
    expect(run.status).toBe("completed")
    const report = JSON.parse(fs.readFileSync(path.join(daemon.runRoot, started.run_id, "report.json"), "utf8"))
    expect(report.comparability).toMatchObject({ beginning: "same_commit", relocated_repository: { recorded, used: moved } })
    expect(fs.readFileSync(path.join(daemon.runRoot, started.run_id, "report.html"), "utf8"))
      .toContain(`Relocated: recorded at ${recorded}, replayed from ${moved}`)
  }, 90_000)
})
