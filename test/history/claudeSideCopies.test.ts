import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { ClaudeHistory } from "../../src/services/history/ClaudeHistory.js"
import { CLAUDE_EXTRA, historyLayer, settingsFor } from "./support.js"

/**
 * Claude's side on copies of real transcripts with the minimal edits listed in test/fixtures/PROVENANCE.md
 * (claude-extra): a task notification after the final answer, a resumed session, long-context requests and
 * Bedrock/Vertex model ids. (A file of its own: layers are shared within a file.)
 */
const NOTIFIED = "c45af7b1-cb7c-4e51-93db-8cbb250a877a"
const ORIGINAL = "b3edadab-bca0-4054-9b41-f7ffa6941260"
const RESUMED = "d2a1c9e4-5b7f-4c3e-9a61-3f0e8b7c2d15"
const LONG_CONTEXT = "5c0375b4-57a5-4f26-b12d-d022ee4e51b7"

const perMillion = (tokens: number, price: number) => (tokens * price) / 1_000_000

describe("Claude's side on copies of real transcripts", () => {
  it.layer(historyLayer(settingsFor(CLAUDE_EXTRA)))((it) => {
    it.effect("answers with Claude's reply to the human, not its reply to a task notification", () =>
      Effect.gen(function*() {
        const record = yield* (yield* ClaudeHistory).thread(NOTIFIED)
        expect(record.final_response.startsWith("Great! Here's what I did across multiple tool calls")).toBe(true)
        expect(record.final_response).not.toContain("notification")
        expect(record.final_response_status).toMatchObject({ answered: true, interrupted: false })
        expect(record.human_turns).toBe(5)
        // The reply to the notification is still a billed call: 1,480 + 21 output tokens.
        expect(record.tokens.output).toBe(1_501)
      }))

    it.effect("counts a resumed session's copied history in the original session only", () =>
      Effect.gen(function*() {
        const history = yield* ClaudeHistory
        const original = yield* history.thread(ORIGINAL)
        const resumed = yield* history.thread(RESUMED)
        // The original is exactly the real b3edadab, warm-up probe included.
        expect(original.tokens).toEqual({ input: 1_566, cache_read: 315_668, cache_write_5m: 45_563, cache_write_1h: 0, output: 1_741 })
        expect(original.copied_responses).toBe(0)
        // The resumed file repeats b3edadab's 15 main-chain responses, then adds one of its own.
        expect(resumed.copied_responses).toBe(15)
        expect(resumed.tokens).toEqual({ input: 10, cache_read: 30_000, cache_write_5m: 1_200, cache_write_1h: 0, output: 40 })
        expect(resumed.cost_usd).toBeCloseTo(
          perMillion(10, 5) + perMillion(1_200, 5 * 1.25) + perMillion(30_000, 5 * 0.1) + perMillion(40, 25),
          9
        )
        expect(resumed.final_response).toBe("Added step 25: the transistor (1947) made the integrated circuit possible.")
        // The listing counts the same.
        const threads = (yield* history.list()).threads
        expect(threads.find((thread) => thread.imported_thread_id === RESUMED)).toMatchObject({
          tokens: resumed.tokens,
          cost_usd: resumed.cost_usd,
          human_turns: 8
        })
        expect(threads.find((thread) => thread.imported_thread_id === ORIGINAL)).toMatchObject({
          tokens: original.tokens,
          cost_usd: original.cost_usd
        })
      }))

    it.effect("prices a request above 200k input at the long-context rate, and Bedrock and Vertex ids", () =>
      Effect.gen(function*() {
        const history = yield* ClaudeHistory
        const record = yield* history.thread(LONG_CONTEXT)
        expect(record.unpriced_models).toEqual([])
        expect(record.claude_models).toEqual(expect.arrayContaining([
          "claude-sonnet-4-20250514",
          "us.anthropic.claude-sonnet-4-20250514-v1:0",
          "claude-sonnet-4@20250514"
        ]))
        expect(record.long_context_responses).toBe(1)
        // The real session's totals with 200,000 more cache reads on its last response…
        expect(record.tokens).toEqual({ input: 129, cache_read: 524_259, cache_write_5m: 47_747, cache_write_1h: 0, output: 3_629 })
        const standard = perMillion(129, 3) + perMillion(47_747, 3 * 1.25) + perMillion(524_259, 3 * 0.1) + perMillion(3_629, 15)
        // …whose whole request (6 input, 225,848 cache reads, 226 cache writes, 304 output) is billed at $6 / $22.50.
        const premium = perMillion(6, 3) + perMillion(226, 3 * 1.25) + perMillion(225_848, 3 * 0.1) + perMillion(304, 7.5)
        expect(record.cost_usd).toBeCloseTo(standard + premium, 6)
        const listed = (yield* history.list()).threads.find((thread) => thread.imported_thread_id === LONG_CONTEXT)!
        expect(listed.cost_usd).toBe(record.cost_usd)
      }))
  })
})
