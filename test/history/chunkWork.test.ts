import { describe, expect, it } from "vitest"
import { chunkRequest, splitPoints } from "../../src/domain/history/chunks.js"
import { chunkRecord, chunkWindow, earlierFiles } from "../../src/domain/history/chunkWork.js"
import { decodeText } from "../../src/domain/history/lines.js"
import { analyzeSession, threadRecord } from "../../src/domain/history/session.js"
import {
  CHUNK_ACTIVE_MS,
  CHUNK_PROMPTS,
  CHUNK_TIMES,
  CHUNK_USAGE,
  chunkThreadLines,
  LIB_AFTER_ONE,
  LIB_AFTER_TWO,
  NOTES,
  TWO
} from "../runs/chunkThread.js"

const THREAD = "7c1d0e52-3a4b-4c5d-8e6f-0a1b2c3d4e5f"
const PROJECT = "/home/someone/project"

const analysis = analyzeSession({
  threadId: THREAD,
  mainPath: `/claude/projects/-home-someone-project/${THREAD}.jsonl`,
  main: decodeText(chunkThreadLines(THREAD, PROJECT).map((line) => JSON.stringify(line)).join("\n")),
  agents: []
})
const whole = threadRecord(analysis)
const costOf = ([input, output]: readonly [number, number]) => (input * 5 + output * 25) / 1_000_000

describe("Claude's work inside a chunk", () => {
  it("counts only the chunk's tokens, cost, time, files and final response", () => {
    const record = chunkRecord(analysis, whole, chunkWindow(whole.split_points, 2, 2))
    const [input, output] = CHUNK_USAGE[1]
    expect(record.tokens).toEqual({ input, cache_read: 0, cache_write_5m: 0, cache_write_1h: 0, output })
    expect(record.cost_usd).toBeCloseTo(costOf(CHUNK_USAGE[1]), 9)
    expect(record.elapsed.active_ms).toBe(CHUNK_ACTIVE_MS[1])
    expect(record.final_response).toBe("Chunk 2 is done.")
    expect(record.started_at).toBe(CHUNK_TIMES[1])
    // lib.py existed when the chunk began: modified, from the first chunk's version to the second's.
    expect(record.historical_changed_files.map(({ final_content, kind, path }) => ({ path, kind, final_content }))).toEqual([
      { path: "lib.py", kind: "modified", final_content: LIB_AFTER_TWO },
      { path: "two.txt", kind: "created", final_content: TWO }
    ])
    expect(record.historical_changed_files[0]!.diff).toContain("+def two():")
    expect(record.historical_changed_files[0]!.diff).not.toContain("+def one():")
    // What identifies the thread stays the whole thread's.
    expect(record.imported_thread_id).toBe(whole.imported_thread_id)
    expect(record.project_dir).toBe(PROJECT)
  })

  it("of a chunk of two prompts runs through the last one's work, and the whole thread adds up", () => {
    const record = chunkRecord(analysis, whole, chunkWindow(whole.split_points, 2, 3))
    expect(record.tokens.input).toBe(CHUNK_USAGE[1][0] + CHUNK_USAGE[2][0])
    expect(record.final_response).toBe("Chunk 3 is done.")
    expect(record.elapsed.active_ms).toBe(CHUNK_ACTIVE_MS[1] + CHUNK_ACTIVE_MS[2])
    const first = chunkRecord(analysis, whole, chunkWindow(whole.split_points, 1, 1))
    expect(first.tokens.output + record.tokens.output).toBe(whole.tokens.output)
    expect(first.cost_usd! + record.cost_usd!).toBeCloseTo(whole.cost_usd!, 9)
  })

  it("knows the files Claude had left before the chunk, with their content then", () => {
    expect(earlierFiles(analysis, PROJECT, chunkWindow(whole.split_points, 1, 1))).toEqual([])
    const beforeTwo = earlierFiles(analysis, PROJECT, chunkWindow(whole.split_points, 2, 2))
    expect(beforeTwo.map(({ content, path }) => ({ path, content }))).toEqual([
      { path: "lib.py", content: LIB_AFTER_ONE },
      { path: "notes.txt", content: NOTES }
    ])
    const beforeThree = earlierFiles(analysis, PROJECT, chunkWindow(whole.split_points, 3, 3))
    expect(beforeThree.find((file) => file.path === "lib.py")?.content).toBe(LIB_AFTER_TWO)
    expect(earlierFiles(analysis, null, chunkWindow(whole.split_points, 3, 3))).toEqual([])
  })

  it("says when a file's content before the chunk cannot be rebuilt (its edit recorded no text)", () => {
    const lines = chunkThreadLines(THREAD, PROJECT).map((line) => {
      const result = line.toolUseResult as { filePath?: string } | undefined
      if (result?.filePath !== `${PROJECT}/notes.txt`) return line
      const { content: _content, ...rest } = result as Record<string, unknown>
      return { ...line, toolUseResult: rest }
    })
    const edited = analyzeSession({ ...analysis.input, main: decodeText(lines.map((line) => JSON.stringify(line)).join("\n")) })
    const files = earlierFiles(edited, PROJECT, chunkWindow(whole.split_points, 2, 2))
    expect(files.map(({ content, path }) => ({ path, content }))).toEqual([
      { path: "lib.py", content: LIB_AFTER_ONE },
      { path: "notes.txt", content: null }
    ])
  })

  it("asks for the chunk's task after the earlier prompts as background, once", () => {
    const points = splitPoints(whole.request_turns, [], PROJECT)
    expect(chunkRequest(whole.request_turns, points, 1, "Just the task")).toBe("Just the task")
    const asked = chunkRequest(whole.request_turns, points, 3, "Create three.txt.")
    expect(asked).toContain(`1. ${CHUNK_PROMPTS[0]}\n2. ${CHUNK_PROMPTS[1]}\n\nYour task now:\nCreate three.txt.`)
    expect(chunkRequest(whole.request_turns, points, 3, asked)).toBe(asked)
  })
})
