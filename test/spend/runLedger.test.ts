import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Ref, TestClock } from "effect"
import * as path from "node:path"
import { withAttemptUsage } from "../../src/domain/errors.js"
import { reconstructionCall } from "../../src/domain/spend.js"
import { cancelRun } from "../../src/programs/runs/cancel.js"
import { spendSummaryOf } from "../../src/programs/runs/history.js"
import { tieBallot } from "../runs/harness.js"
import { launch, makeEngine, type Respond, retryable, settle, settledUntil, stateOf } from "../engine/support.js"

/** The run engine under the test clock, over files in memory and a fake Codex reporting its tokens. */

const usage = (input: number, output: number) => ({ input, cached_input: 0, cache_write: 0, output, reasoning_output: 0 })

describe("a run's ledger", () => {
  it.scoped("counts the request's reconstruction, a failed attempt that reported tokens, the implementation and both review orders", () =>
    Effect.gen(function*() {
      const attempts = yield* Ref.make(0)
      let files: { writeText: (file: string, text: string) => void } | undefined
      const implement: Respond = (request) =>
        Effect.gen(function*() {
          if ((yield* Ref.updateAndGet(attempts, (count) => count + 1)) === 1) return yield* withAttemptUsage(retryable, usage(40_000, 400))
          files!.writeText(path.join(request.workingDirectory, "greet.py"), "print('hi')\n")
          return { final_response: "Done.", usage: usage(1_000_000, 10_000) }
        })
      const engine = yield* makeEngine(implement, { review: () => Effect.succeed({ final_response: tieBallot, usage: usage(100_000, 1_000) }) })
      files = engine.files
      const reconstruction = reconstructionCall(
        { model: "gpt-5.6-terra", usage: { input: 20_000, cached_input: 0, cache_write: 0, output: 200 } },
        {}
      )
      yield* Effect.gen(function*() {
        const directory = yield* launch(engine.files, "run-ledger", { reconstruction: reconstruction! })
        yield* settle
        yield* TestClock.adjust(Duration.seconds(1))
        yield* settledUntil(Effect.map(stateOf("run-ledger"), (state) => state.status === "completed"), "completion")
        const record = engine.files.json(path.join(directory, "run.json"))! as { spend: { calls: Array<{ purpose: string; label: string; model: string; cost_usd: number | null }>; evaluation: { calls: number; usd: number }; implementation: { calls: number; usd: number } } }
        expect(record.spend.calls.map((call) => [call.purpose, call.label, call.model])).toEqual([
          ["reconstruction", "prompt-synthesis", "gpt-5.6-terra"],
          ["implementation", "implementation:attempt-1 (failed)", "gpt-5.6-sol"],
          ["implementation", "implementation", "gpt-5.6-sol"],
          ["review", "review:codex:ab", "gpt-review"],
          ["review", "review:codex:ba", "gpt-review"]
        ])
        // gpt-5.6-sol: $4 input, $20 output per million; the reviewer gpt-review has no price.
        expect(record.spend.implementation).toMatchObject({ calls: 2 })
        expect(record.spend.implementation.usd).toBeCloseTo(0.04 * 4 + 0.0004 * 20 + 1 * 4 + 0.01 * 20, 12)
        expect(record.spend.evaluation).toMatchObject({ calls: 3, unpriced_calls: 2 })
        expect(record.spend.evaluation.usd).toBeCloseTo(reconstruction!.cost_usd!, 12)
        const report = engine.files.json(path.join(directory, "report.json"))! as { spend: unknown }
        expect(report.spend).toEqual(record.spend)
        const state = yield* stateOf("run-ledger")
        expect((state.report_summary as { spend: { evaluation: { calls: number } } }).spend.evaluation.calls).toBe(3)
        expect(engine.files.text(path.join(directory, "report.html"))).toContain("the reviewer's orders and retries and the request's reconstruction")
      }).pipe(Effect.provide(engine.layer))
    }))

  /** A run whose first review order answered (with its tokens) and whose second never does. */
  const stuckInReview = Effect.gen(function*() {
    const reviews = yield* Ref.make(0)
    let files: { writeText: (file: string, text: string) => void } | undefined
    const implement: Respond = (request) =>
      Effect.sync(() => {
        files!.writeText(path.join(request.workingDirectory, "greet.py"), "print('hi')\n")
        return { final_response: "Done.", usage: usage(1_000_000, 10_000) }
      })
    const engine = yield* makeEngine(implement, {
      review: () =>
        Effect.flatMap(Ref.updateAndGet(reviews, (count) => count + 1), (count) =>
          count === 1 ? Effect.succeed({ final_response: tieBallot, usage: usage(100_000, 1_000) }) : Effect.never)
    })
    files = engine.files
    return { engine, reviews }
  })

  const labels = (record: unknown) => (record as { spend: { calls: Array<{ label: string }> } }).spend.calls.map((call) => call.label)

  it.scoped("keeps the review calls made before a run timed out in its run.json and its state's spend", () =>
    Effect.gen(function*() {
      const { engine, reviews } = yield* stuckInReview
      yield* Effect.gen(function*() {
        const directory = yield* launch(engine.files, "run-timeout", { timeout_seconds: 60 })
        yield* settledUntil(Effect.map(Ref.get(reviews), (count) => count === 2), "the second review order")
        yield* TestClock.adjust(Duration.seconds(61))
        yield* settledUntil(Effect.map(stateOf("run-timeout"), (state) => state.status === "failed"), "the timeout")
        expect(labels(engine.files.json(path.join(directory, "run.json")))).toEqual(["implementation", "review:codex:ab"])
        const summary = spendSummaryOf(yield* stateOf("run-timeout"))
        expect(summary.spend?.evaluation).toMatchObject({ calls: 1, unpriced_calls: 1 })
        expect(summary.spend?.implementation.calls).toBe(1)
      }).pipe(Effect.provide(engine.layer))
    }))

  it.scoped("keeps the review calls made before a run was cancelled", () =>
    Effect.gen(function*() {
      const { engine, reviews } = yield* stuckInReview
      yield* Effect.gen(function*() {
        const directory = yield* launch(engine.files, "run-cancelled")
        yield* settledUntil(Effect.map(Ref.get(reviews), (count) => count === 2), "the second review order")
        yield* cancelRun("run-cancelled")
        yield* settledUntil(Effect.map(stateOf("run-cancelled"), (state) => state.status === "cancelled"), "the cancel")
        expect(labels(engine.files.json(path.join(directory, "run.json")))).toEqual(["implementation", "review:codex:ab"])
        expect(spendSummaryOf(yield* stateOf("run-cancelled")).spend?.evaluation.calls).toBe(1)
      }).pipe(Effect.provide(engine.layer))
    }))
})
