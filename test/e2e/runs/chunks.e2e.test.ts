/**
 * Chunks of a long thread through the real daemon over HTTP, with the fake Codex CLI and real git
 * repositories made here: a synthetic three-chunk transcript (test/runs/chunkThread.ts), its second
 * chunk replayed. Its workspace starts from the state after the first chunk, its prompt names the
 * first chunk as completed background, and Claude's side counts only the second chunk's work.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { BACKGROUND_HEADING, CHUNK_TASK_HEADING } from "../../../src/domain/history/chunks.js"
import {
  at,
  CHUNK_ACTIVE_MS,
  CHUNK_PROMPTS,
  CHUNK_TIMES,
  CHUNK_USAGE,
  LIB_AFTER_ONE,
  LIB_AFTER_TWO,
  commitAt,
  makeChunkProject,
  NOTES,
  writeChunkThread
} from "../../runs/chunkThread.js"
import {
  approveAndStart,
  awaitTerminal,
  type Daemon,
  killAllDaemons,
  MODELS,
  runDirectories,
  scratch,
  startDaemon
} from "../../runs/support.js"

afterAll(async () => expect(await killAllDaemons()).toBe(0))

const CARRIED_THREAD = "7c1d0e52-3a4b-4c5d-8e6f-0a1b2c3d4e5f"
const COMMITTED_THREAD = "8d2e1f63-4b5c-4d6e-9f70-1b2c3d4e5f60"

const workspaceFiles = (directory: string) =>
  fs.readdirSync(directory, { recursive: true, encoding: "utf8" })
    .filter((name) => !name.split(path.sep).includes(".git") && fs.statSync(path.join(directory, name)).isFile())
    .sort()

describe("the second of three chunks, replayed through the real daemon", () => {
  let daemon: Daemon
  let codexLog: string
  let carried: { directory: string; initial: string; ids: Array<string> }
  let committed: { directory: string; initial: string; boundary: string; ids: Array<string> }

  beforeAll(async () => {
    const root = scratch()
    codexLog = path.join(root, "codex-calls.jsonl")
    const claudeHome = path.join(root, "claude")
    // Claude committed nothing during this thread: its earlier work is carried forward from the transcript.
    const first = makeChunkProject(root, "carried")
    carried = { ...first, ids: writeChunkThread(claudeHome, CARRIED_THREAD, first.directory) }
    // Here Claude committed after each chunk: the second chunk starts at the commit on the boundary.
    const second = makeChunkProject(root, "committed")
    const boundary = commitAt(second.directory, at(CHUNK_TIMES[0], 300_000), { "lib.py": LIB_AFTER_ONE, "notes.txt": NOTES }, "chunk one")
    commitAt(second.directory, at(CHUNK_TIMES[1], 300_000), { "lib.py": LIB_AFTER_TWO, "two.txt": "two\n" }, "chunk two")
    committed = { ...second, boundary, ids: writeChunkThread(claudeHome, COMMITTED_THREAD, second.directory) }
    daemon = await startDaemon({ root, env: { FAKE_CODEX_LOG: codexLog } })
  }, 30_000)
  afterAll(() => daemon.stop())

  const chunkTwo = (project: { directory: string; initial: string; ids: Array<string> }, thread: string, extra: Record<string, unknown> = {}) => ({
    thread_id: thread,
    request: CHUNK_PROMPTS[1],
    repo: project.directory,
    beginning_kind: "git",
    ending_kind: "git",
    baseline_commit: project.initial,
    ending_commit: project.initial,
    range_start: project.ids[1],
    range_end: project.ids[1],
    model: MODELS[0],
    timeout_seconds: 600,
    ...extra
  })

  /** Approves and runs a configuration to its end: the run, its workspace and its report. */
  const replay = async (config: Record<string, unknown>) => {
    const started = await approveAndStart(daemon, config)
    const run = await awaitTerminal(daemon, started.run_id)
    expect(run.status).toBe("completed")
    const workspace = path.join(daemon.runRoot, started.run_id, "workspaces", "codex")
    return { run, workspace, report: JSON.parse(fs.readFileSync(run.report_json, "utf8")) }
  }

  it("offers three split points, each with its first prompt, time and files", async () => {
    const inspection = await daemon.call("inspect_thread", { thread_id: CARRIED_THREAD })
    expect(inspection.chunks.split_points).toEqual([
      { index: 1, message_id: carried.ids[0], timestamp: CHUNK_TIMES[0], prompt: CHUNK_PROMPTS[0], files_touched: ["lib.py", "notes.txt"] },
      { index: 2, message_id: carried.ids[1], timestamp: CHUNK_TIMES[1], prompt: CHUNK_PROMPTS[1], files_touched: ["lib.py", "two.txt"] },
      { index: 3, message_id: carried.ids[2], timestamp: CHUNK_TIMES[2], prompt: CHUNK_PROMPTS[2], files_touched: ["three.txt"] }
    ])
  })

  it("without a commit on the boundary: starts from the beginning commit with the first chunk's files carried forward", async () => {
    const config = chunkTwo(carried, CARRIED_THREAD)
    const prepared = await daemon.call("prepare_run", config)
    const facts = {
      range_start: carried.ids[1],
      range_end: carried.ids[1],
      first_index: 2,
      last_index: 2,
      carried_forward_files: ["lib.py", "notes.txt"],
      excluded_files: [],
      excluded_reasons: {},
      in_starting_commit: []
    }
    expect(prepared.chunk).toEqual(facts)
    const { report, run, workspace } = await replay(config)
    expect(run.chunk).toEqual(facts)
    expect(run.range_start).toBe(carried.ids[1])

    // The workspace holds exactly the first chunk's results (and what Codex wrote), not the second's.
    expect(workspaceFiles(workspace)).toEqual(["FAKE_CODEX_OUTPUT.md", "README.md", "lib.py", "notes.txt"])
    expect(fs.readFileSync(path.join(workspace, "lib.py"), "utf8")).toBe(LIB_AFTER_ONE)
    expect(fs.readFileSync(path.join(workspace, "notes.txt"), "utf8")).toBe(NOTES)

    // The prompt names the first chunk as completed background, then asks for the second chunk only.
    const calls = fs.readFileSync(codexLog, "utf8").trim().split("\n").map((line) => JSON.parse(line))
    const implementation = calls.find((call) => call.cwd === workspace)
    expect(implementation.prompt).toContain(
      `${BACKGROUND_HEADING}\n1. ${CHUNK_PROMPTS[0]}\n   Files changed: lib.py, notes.txt\n\n${CHUNK_TASK_HEADING}\n${CHUNK_PROMPTS[1]}`
    )
    expect(implementation.prompt).toContain("do not redo it")
    expect(implementation.prompt).not.toContain(CHUNK_PROMPTS[2])

    // Claude's side is its work inside the chunk only: patch, tokens, cost and time.
    const claude = report.candidates.claude
    const [input, output] = CHUNK_USAGE[1]
    expect(claude.tokens).toEqual({ ordinary_input: input, cache_read: 0, cache_write: 0, output, total_input: input })
    expect(claude.cost.usd).toBeCloseTo((input * 5 + output * 25) / 1_000_000, 9)
    expect(claude.elapsed_ms).toBe(CHUNK_ACTIVE_MS[1])
    expect(claude.final_response).toBe("Chunk 2 is done.")
    expect(claude.changed_files.map((file: { path: string }) => file.path).sort()).toEqual(["lib.py", "two.txt"])
    expect(claude.patch).toContain("+def two():")
    expect(claude.patch).not.toContain("+def one():")
    expect(claude.patch).not.toContain("three.txt")
    // Codex's patch is its own work: the carried files are where it started, not part of its diff.
    expect(report.candidates.codex.patch).toContain("FAKE_CODEX_OUTPUT.md")
    expect(report.candidates.codex.patch).not.toMatch(/^diff --git a\/(lib.py|notes.txt) /m)
    expect(report.comparability.beginning).toBe("carried_forward")
  }, 60_000)

  it("with a commit on the boundary: the chunk's beginning is that commit and nothing is carried", async () => {
    const inspection = await daemon.call("inspect_thread", {
      thread_id: COMMITTED_THREAD,
      range_start: committed.ids[1],
      range_end: committed.ids[1]
    })
    expect(inspection.baseline.commit).toBe(committed.boundary)
    const config = chunkTwo(committed, COMMITTED_THREAD, { baseline_commit: committed.boundary, ending_commit: committed.boundary })
    const prepared = await daemon.call("prepare_run", config)
    expect(prepared.chunk).toMatchObject({ carried_forward_files: [], excluded_files: [], in_starting_commit: ["lib.py", "notes.txt"] })
    const { report, workspace } = await replay(config)
    expect(workspaceFiles(workspace)).toEqual(["FAKE_CODEX_OUTPUT.md", "README.md", "lib.py", "notes.txt"])
    expect(fs.readFileSync(path.join(workspace, "lib.py"), "utf8")).toBe(LIB_AFTER_ONE)
    expect(report.comparability.beginning).toBe("same_commit")
  }, 60_000)

  it("from an empty directory: the last chunk starts with every file Claude had left before it, and only those", async () => {
    const config = {
      ...chunkTwo(carried, CARRIED_THREAD),
      beginning_kind: "non_git",
      ending_kind: "non_git",
      baseline_commit: null,
      ending_commit: null,
      confirm_empty_beginning: true,
      request: CHUNK_PROMPTS[2],
      range_start: carried.ids[2],
      range_end: carried.ids[2]
    }
    const prepared = await daemon.call("prepare_run", { ...config, excluded_files: ["notes.txt"] })
    expect(prepared.chunk).toMatchObject({
      first_index: 3,
      carried_forward_files: ["lib.py", "two.txt"],
      excluded_files: ["notes.txt"],
      excluded_reasons: { "notes.txt": "Excluded by the configuration (excluded_files)." }
    })
    const chosen = await daemon.call("prepare_run", { ...config, carried_forward_files: ["lib.py"] })
    expect(chosen.chunk).toMatchObject({
      carried_forward_files: ["lib.py"],
      excluded_files: ["notes.txt", "two.txt"],
      excluded_reasons: { "notes.txt": "Not among the configuration's carried_forward_files.", "two.txt": "Not among the configuration's carried_forward_files." }
    })
    // Replayed without the exclusion: both earlier chunks' files, as Claude had left them.
    const { report, workspace } = await replay(config)
    expect(workspaceFiles(workspace)).toEqual(["FAKE_CODEX_OUTPUT.md", "lib.py", "notes.txt", "two.txt"])
    expect(fs.readFileSync(path.join(workspace, "lib.py"), "utf8")).toBe(LIB_AFTER_TWO)
    expect(report.candidates.claude.changed_files.map((file: { path: string }) => file.path)).toEqual(["three.txt"])
    expect(report.candidates.claude.tokens.output).toBe(CHUNK_USAGE[2][1])
    expect(report.candidates.codex.patch).not.toMatch(/^diff --git a\/(lib.py|two.txt|notes.txt) /m)
    expect(report.comparability.beginning).toBe("carried_forward")
  }, 60_000)

  it("refuses a chunk that is not one, each in one sentence, and writes nothing", async () => {
    const before = runDirectories(daemon.runRoot)
    const config = chunkTwo(carried, CARRIED_THREAD)
    const refusals = await Promise.all([
      daemon.refused("prepare_run", { ...config, range_start: "not-a-split-point" }),
      daemon.refused("prepare_run", { ...config, range_start: carried.ids[2], range_end: carried.ids[0] }),
      daemon.refused("prepare_run", { ...config, range_end: null }),
      daemon.refused("prepare_run", {
        thread_id: "sample-hello-cli",
        request: "Create greet.py.",
        beginning_kind: "non_git",
        ending_kind: "non_git",
        confirm_empty_beginning: true,
        range_start: carried.ids[0],
        range_end: carried.ids[1],
        model: MODELS[0]
      }),
      daemon.refused("prepare_run", { ...config, carried_forward_files: ["two.txt"] }),
      daemon.refused("start_run", { ...config, range_start: carried.ids[0], approved: true, prepare_token: "x".repeat(43) })
    ])
    expect(refusals).toEqual([
      "range_start is not a split point of this thread (see inspect_thread's chunks).",
      "range_end comes before range_start; a chunk runs forward.",
      "A chunk needs both range_start and range_end.",
      "Packaged samples cannot be split into chunks; replay the whole thread.",
      "carried_forward_files names two.txt, which Claude did not change before this chunk.",
      "The prepare token is unknown to this controller or has expired. Prepare and approve the run again."
    ])
    expect(runDirectories(daemon.runRoot)).toEqual(before)
  })
})
