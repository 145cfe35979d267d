import { Either, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { PrepareBatchPayload } from "../../src/domain/contracts/index.js"
import { configurationFingerprint, normalizeConfiguration } from "../../src/domain/runConfig.js"
import { describeParseError } from "../../src/domain/toolResult.js"

const base = { thread_id: "t", request: "Do it.", beginning_kind: "non_git", ending_kind: "non_git", models: ["m"] }

const messageOf = (input: unknown) => {
  const result = normalizeConfiguration(input)
  return Either.isLeft(result) ? result.left.message : "valid"
}

describe("second_judge on a configuration", () => {
  it("keeps claude or claude:MODEL, trimmed, and leaves a configuration without one as it was (same fingerprint)", () => {
    expect(Either.getOrThrow(normalizeConfiguration({ ...base, second_judge: " claude " })).second_judge).toBe("claude")
    expect(Either.getOrThrow(normalizeConfiguration({ ...base, second_judge: "claude:opus" })).second_judge).toBe("claude:opus")
    const without = Either.getOrThrow(normalizeConfiguration(base))
    expect("second_judge" in without).toBe(false)
    for (const none of [null, ""]) {
      const given = Either.getOrThrow(normalizeConfiguration({ ...base, second_judge: none }))
      expect(configurationFingerprint(given)).toBe(configurationFingerprint(without))
    }
    expect(configurationFingerprint(Either.getOrThrow(normalizeConfiguration({ ...base, second_judge: "claude" })))).not.toBe(configurationFingerprint(without))
  })

  it.each<[unknown, string]>([
    ["gemini", "Unknown second judge \"gemini\": the only second judge is claude (or claude:MODEL, such as claude:sonnet)."],
    ["claude:a b", "The second judge's model \"a b\" is not a Claude model name: give claude or claude:MODEL, such as claude:sonnet."],
    [true, "second_judge must be claude or claude:MODEL, such as claude:sonnet."]
  ])("refuses %j in one sentence", (value, message) => {
    expect(messageOf({ ...base, second_judge: value })).toBe(message)
  })

  it("is given once for a batch, beside its configurations", () => {
    const decoded = Schema.decodeUnknownEither(PrepareBatchPayload)({ configurations: [base], second_judge: "gemini" })
    expect(Either.isLeft(decoded) ? describeParseError(decoded.left) : "valid").toBe(
      "Unknown second judge \"gemini\": the only second judge is claude (or claude:MODEL, such as claude:sonnet)."
    )
    expect(Either.isRight(Schema.decodeUnknownEither(PrepareBatchPayload)({ configurations: [base], second_judge: "claude" }))).toBe(true)
  })
})
