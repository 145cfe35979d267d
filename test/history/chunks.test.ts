import { it } from "@effect/vitest"
import { Effect } from "effect"
import { describe, expect } from "vitest"
import type { FileOperation } from "../../src/domain/history/changes.js"
import { BACKGROUND_HEADING, CHUNK_TASK_HEADING, splitPoints } from "../../src/domain/history/chunks.js"
import type { RequestTurn } from "../../src/domain/history/request.js"
import { inspectThread, SAMPLE_NOT_SPLIT, SINGLE_PROMPT_NOT_SPLIT } from "../../src/programs/threads/threads.js"
import { CLAUDE_HOME, historyLayer, settingsFor } from "./support.js"

const turn = (uuid: string, timestamp: string, text: string, overrides: Partial<RequestTurn> = {}): RequestTurn => ({
  kind: "prompt",
  text,
  uuid,
  timestamp,
  abandoned: false,
  ...overrides
})

const operation = (absolutePath: string, timestamp: string, overrides: Partial<FileOperation> = {}): FileOperation => ({
  absolutePath,
  tool: "Write",
  failed: false,
  abandoned: false,
  bySubagent: false,
  time: Date.parse(timestamp),
  order: 0,
  before: null,
  after: "x",
  ...overrides
})

describe("split points of a thread", () => {
  it("puts each file change under the prompt it followed, once, sorted and project-relative", () => {
    const points = splitPoints(
      [
        turn("u1", "2026-01-01T10:00:00.000Z", "First task\nwith details"),
        turn("u2", "2026-01-01T10:10:00.000Z", "Second task"),
        turn("u3", "2026-01-01T10:20:00.000Z", "Third task")
      ],
      [
        operation("/work/src/b.ts", "2026-01-01T10:01:00.000Z"),
        operation("/work/src/a.ts", "2026-01-01T10:02:00.000Z"),
        operation("/work/src/a.ts", "2026-01-01T10:03:00.000Z"),
        // Exactly at the second prompt: the second chunk's.
        operation("/work/c.ts", "2026-01-01T10:10:00.000Z"),
        operation("/work/failed.ts", "2026-01-01T10:11:00.000Z", { failed: true }),
        operation("/work/abandoned.ts", "2026-01-01T10:12:00.000Z", { abandoned: true }),
        operation("/elsewhere/notes.md", "2026-01-01T10:25:00.000Z")
      ],
      "/work"
    )
    expect(points).toEqual([
      { index: 1, message_id: "u1", timestamp: "2026-01-01T10:00:00.000Z", prompt: "First task", files_touched: ["src/a.ts", "src/b.ts"] },
      { index: 2, message_id: "u2", timestamp: "2026-01-01T10:10:00.000Z", prompt: "Second task", files_touched: ["c.ts"] },
      { index: 3, message_id: "u3", timestamp: "2026-01-01T10:20:00.000Z", prompt: "Third task", files_touched: ["/elsewhere/notes.md"] }
    ])
  })

  it("splits only at live human prompts with an id and a time, and not a thread of one prompt", () => {
    const turns = [
      turn("u1", "2026-01-01T10:00:00.000Z", "Only task"),
      turn("u2", "2026-01-01T10:05:00.000Z", "/compact", { kind: "slash_command" }),
      turn("u3", "2026-01-01T10:06:00.000Z", "A rewound prompt", { abandoned: true }),
      turn("u4", "not a time", "No time")
    ]
    expect(splitPoints(turns, [], "/work")).toEqual([])
    const long = `${"x".repeat(300)}\nsecond line`
    const points = splitPoints([...turns, turn("u5", "2026-01-01T10:07:00.000Z", long)], [], null)
    expect(points.map((point) => point.message_id)).toEqual(["u1", "u5"])
    expect(points[1]!.prompt).toBe(`${"x".repeat(199)}…`)
  })
})

describe("inspect_thread offers the split points", () => {
  it.layer(historyLayer(settingsFor(CLAUDE_HOME)))((it) => {
    it.effect("of a real imported thread: five prompts, each with its time and the files Claude wrote after it", () =>
      Effect.gen(function*() {
        const result = yield* inspectThread({ thread_id: "c45af7b1-cb7c-4e51-93db-8cbb250a877a" })
        expect(result.chunks.available).toBe(true)
        expect(result.chunks.reason).toBeNull()
        expect(result.chunks.split_points.map(({ files_touched, index, message_id, timestamp }) => ({ index, message_id, timestamp, files_touched })))
          .toEqual([
            { index: 1, message_id: "0bdd2740-b6f7-4e7b-b1c9-f159cc83b104", timestamp: "2026-01-02T19:18:31.028Z", files_touched: [] },
            { index: 2, message_id: "e8404307-5b6c-44e3-b48e-9a18baedd204", timestamp: "2026-01-02T19:18:56.860Z", files_touched: ["hello_world.py"] },
            { index: 3, message_id: "4ff8f9dd-bfe1-4e7c-bb26-72641ef6d43c", timestamp: "2026-01-02T19:19:11.348Z", files_touched: [] },
            { index: 4, message_id: "cbda0832-b189-4477-9bd4-f4214020bc81", timestamp: "2026-01-02T19:19:42.310Z", files_touched: [] },
            {
              index: 5,
              message_id: "0eb6476b-5bf2-4941-be36-65b7d7834a11",
              timestamp: "2026-01-02T19:20:12.975Z",
              files_touched: ["data.txt", "number_generator.py"]
            }
          ])
        expect(result.chunks.split_points[1]!.prompt).toBe("ok can you create a hello_world.py file and add a minimal code in it?")
        // The record itself stays as it was: the split points are offered once, under `chunks`.
        expect("split_points" in result.thread).toBe(false)
      }))

    it.effect("answers a chunk's request, its earlier prompts named as completed background, and the files carried into it", () =>
      Effect.gen(function*() {
        const first = yield* inspectThread({
          thread_id: "c45af7b1-cb7c-4e51-93db-8cbb250a877a",
          range_start: "0bdd2740-b6f7-4e7b-b1c9-f159cc83b104",
          range_end: "e8404307-5b6c-44e3-b48e-9a18baedd204"
        })
        // The first chunk has no background: its own two prompts.
        expect(first.chunks.selected).toEqual({
          range_start: "0bdd2740-b6f7-4e7b-b1c9-f159cc83b104",
          range_end: "e8404307-5b6c-44e3-b48e-9a18baedd204",
          first_index: 1,
          last_index: 2,
          request: "can you run a command ls -la\n\nok can you create a hello_world.py file and add a minimal code in it?",
          carried_forward_files: []
        })
        const second = yield* inspectThread({
          thread_id: "c45af7b1-cb7c-4e51-93db-8cbb250a877a",
          range_start: "4ff8f9dd-bfe1-4e7c-bb26-72641ef6d43c",
          range_end: "0eb6476b-5bf2-4941-be36-65b7d7834a11"
        })
        const selected = second.chunks.selected!
        expect(selected.request).toBe([
          BACKGROUND_HEADING,
          "1. can you run a command ls -la",
          "2. ok can you create a hello_world.py file and add a minimal code in it?",
          "   Files changed: hello_world.py",
          "",
          CHUNK_TASK_HEADING,
          "can you read it back with Read tool?",
          "",
          "can you run `cat nonexistent.txt`",
          "",
          "do something requiring multiple tools in one turn,"
        ].join("\n"))
        expect(selected.request).toContain("do not redo it")
        expect(selected.carried_forward_files).toEqual(["hello_world.py"])
        expect([selected.first_index, selected.last_index]).toEqual([3, 5])
      }))

    it.effect("refuses a chunk that is not one in one sentence", () =>
      Effect.gen(function*() {
        const thread_id = "c45af7b1-cb7c-4e51-93db-8cbb250a877a"
        const first = "0bdd2740-b6f7-4e7b-b1c9-f159cc83b104"
        const last = "0eb6476b-5bf2-4941-be36-65b7d7834a11"
        const refusal = (payload: Record<string, unknown>) => Effect.map(Effect.flip(inspectThread(payload)), (error) => error.message)
        expect(yield* refusal({ thread_id, range_start: first })).toBe("A chunk needs both range_start and range_end.")
        expect(yield* refusal({ thread_id, range_start: "nope", range_end: last })).toBe(
          "range_start is not a split point of this thread (see inspect_thread's chunks)."
        )
        expect(yield* refusal({ thread_id, range_start: first, range_end: "nope" })).toBe(
          "range_end is not a split point of this thread (see inspect_thread's chunks)."
        )
        expect(yield* refusal({ thread_id, range_start: last, range_end: first })).toBe("range_end comes before range_start; a chunk runs forward.")
        expect(yield* refusal({ thread_id: "sample-hello-cli", range_start: first, range_end: last })).toBe(SAMPLE_NOT_SPLIT)
      }))

    it.effect("not of a packaged sample, and not of a thread with one prompt, each with the reason", () =>
      Effect.gen(function*() {
        const sample = yield* inspectThread({ thread_id: "sample-hello-cli" })
        expect(sample.chunks).toEqual({ available: false, reason: SAMPLE_NOT_SPLIT, split_points: [] })
        const single = yield* inspectThread({ thread_id: "1af7fc5e-8455-4414-9ccd-011d40f70b2a" })
        expect(single.replay.human_turns).toBe(1)
        expect(single.chunks).toEqual({ available: false, reason: SINGLE_PROMPT_NOT_SPLIT, split_points: [] })
      }))
  })
})
