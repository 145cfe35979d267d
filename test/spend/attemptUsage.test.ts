import { it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { expect } from "vitest"
import { CodexWorker } from "../../src/services/CodexWorker.js"
import { fakeCodexLayer, implementationRequest } from "../worker/support.js"

const Answer = Schema.Struct({ request: Schema.String })

it.live("an answer that does not match the schema fails with the tokens Codex reported for it (the real worker over the fake codex)", () =>
  Effect.gen(function*() {
    const worker = yield* CodexWorker
    const failure = yield* Effect.flip(worker.run({ ...implementationRequest({ prompt: "fake-final-json: I prefer Candidate A overall" }), outputSchema: Answer }))
    expect(failure.code).toBe("invalid_output")
    // The fake codex reports usage on every completed turn, like the real one: that answer was billed.
    expect(failure.usage).toBeDefined()
    expect(failure.usage!.input + failure.usage!.output).toBeGreaterThan(0)
  }).pipe(Effect.provide(fakeCodexLayer({}))))
