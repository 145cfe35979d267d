import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { reconstructionCall } from "../../src/domain/spend.js"
import { synthesizeRequest } from "../../src/programs/threads/requestSynthesis.js"
import { CodexWorker } from "../../src/services/CodexWorker.js"
import { FileStore } from "../../src/services/FileStore.js"
import { makeRunLedger } from "../../src/services/runSpend.js"
import { retryableFailure } from "../review/support.js"
import { withAttemptUsage } from "../../src/domain/errors.js"

const usage = { input: 30_000, cached_input: 10_000, cache_write: 0, output: 500, reasoning_output: 0 }

describe("the request's reconstruction is counted", () => {
  it.effect("synthesize_request answers the synthesis call's tokens, and a run's ledger counts them as evaluation", () =>
    Effect.gen(function*() {
      const result = yield* synthesizeRequest({
        thread_id: "thread-1",
        turns: [{ role: "user", text: "add hello world" }, { role: "assistant", text: "Which language?" }, { role: "user", text: "python" }],
        concatenated_request: "add hello world\n\npython",
        truncated: false,
        model: "gpt-5.6-terra"
      })
      expect(result.request_generation.method).toBe("llm_synthesis")
      expect(result.synthesis).toEqual({ model: "gpt-5.6-terra", usage })
      const call = reconstructionCall(result.synthesis, {})
      // gpt-5.6-terra: $2 input, $0.20 cached, $12 output per million tokens.
      expect(call).toMatchObject({ purpose: "reconstruction", label: "prompt-synthesis", model: "gpt-5.6-terra" })
      expect(call!.cost_usd).toBeCloseTo(0.02 * 2 + 0.01 * 0.2 + 0.0005 * 12, 12)
      expect(reconstructionCall(null, {})).toBeUndefined()

      const ledger = yield* makeRunLedger("gpt-5.5", {}, call)
      yield* ledger.failedAttempt(withAttemptUsage(retryableFailure(), usage), 1)
      yield* ledger.failedAttempt(retryableFailure(), 2)
      const spend = yield* ledger.spend
      expect(spend.calls.map((entry) => [entry.purpose, entry.label])).toEqual([
        ["reconstruction", "prompt-synthesis"],
        ["implementation", "implementation:attempt-1 (failed)"]
      ])
      expect(spend.evaluation.usd).toBeCloseTo(call!.cost_usd!, 12)
      expect(spend.implementation.calls).toBe(1)
    }).pipe(
      Effect.provide(FileStore.Default),
      Effect.provide(CodexWorker.fake(() => Effect.succeed({ final_response: `{"request":"Add a hello world program in Python."}`, usage })))
    ))
})
