import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { modelFamily, priceOf } from "../../src/domain/history/pricing.js"
import { ClaudeHistory } from "../../src/services/history/ClaudeHistory.js"
import { CLAUDE_HOME, historyLayer, settingsFor } from "./support.js"

/**
 * Claude's side is Claude's real work (README, "Cost"). The files under claude-extra are copies of the
 * real fixtures with the minimal edits listed in test/fixtures/PROVENANCE.md.
 */
const NOTIFIED = "c45af7b1-cb7c-4e51-93db-8cbb250a877a"
const ORIGINAL = "b3edadab-bca0-4054-9b41-f7ffa6941260"

const perMillion = (tokens: number, price: number) => (tokens * price) / 1_000_000

describe("model ids of every provider map to their Anthropic prices", () => {
  it("strips Bedrock's region and version, Vertex's @date and the dated suffix", () => {
    expect(modelFamily("us.anthropic.claude-sonnet-4-5-20250929-v1:0")).toBe("claude-sonnet-4-5")
    expect(modelFamily("anthropic.claude-3-5-sonnet-20241022-v2:0")).toBe("claude-3-5-sonnet")
    expect(modelFamily("global.anthropic.claude-opus-4-6-v1")).toBe("claude-opus-4-6")
    expect(modelFamily("claude-sonnet-4@20250514")).toBe("claude-sonnet-4")
    expect(modelFamily("claude-3-5-sonnet-v2@20241022")).toBe("claude-3-5-sonnet")
    expect(modelFamily("claude-opus-4-5-20251101")).toBe("claude-opus-4-5")
    expect(priceOf("eu.anthropic.claude-haiku-4-5-20251001-v1:0")).toEqual({ input: 1, output: 5 })
    expect(priceOf("gpt-5")).toBeUndefined()
  })
})

describe("Claude's side on the real fixtures", () => {
  it.layer(historyLayer(settingsFor(CLAUDE_HOME)))((it) => {
    it.effect("puts the compaction summary after the /compact that caused it and counts no built-in command", () =>
      Effect.gen(function*() {
        const history = yield* ClaudeHistory
        const record = yield* history.thread(NOTIFIED)
        const kinds = record.request_turns.map((turn) => turn.kind)
        // The file writes the summary (19:21:02.006) before the /compact line (19:21:02.108).
        expect(kinds.slice(-2)).toEqual(["local_command", "compaction_summary"])
        expect(record.request_turns.at(-2)!.text).toBe("/compact")
        expect(record.human_turns).toBe(5)
        const listed = (yield* history.list()).threads.find((thread) => thread.imported_thread_id === NOTIFIED)!
        expect(listed.human_turns).toBe(record.human_turns)
      }))

    it.effect("bills the warm-up probe: in the thread's cost, and as its own line", () =>
      Effect.gen(function*() {
        const record = yield* (yield* ClaudeHistory).thread(ORIGINAL)
        // agent-a4e24f0 is a haiku-4-5 "Warmup" probe: 1,413 input, 1 output at $1/$5 per million.
        expect(record.cost_by_source.warmup).toBeCloseTo(perMillion(1_413, 1) + perMillion(1, 5), 5)
        const sources = Object.values(record.cost_by_source).reduce<number>((sum, value) => sum + (value ?? 0), 0)
        expect(record.cost_usd).toBeCloseTo(sources, 5)
        expect(record.claude_models).toEqual(["claude-opus-4-5-20251101", "claude-sonnet-4-5-20250929"])
      }))

    it.effect("marks the interrupted spotter session empty and keeps its last substantive reply", () =>
      Effect.gen(function*() {
        const record = yield* (yield* ClaudeHistory).thread("55604662-cf2a-4331-851a-ec234028f8ca")
        expect(record.final_response_status.interrupted).toBe(true)
        expect(record.final_response_status.last_substantive_reply.startsWith("Let me check the project structure")).toBe(true)
      }))
  })
})
