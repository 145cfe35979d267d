import { describe, expect, it } from "@effect/vitest"
import { Effect, Random, TestClock } from "effect"
import { CONTROLLER_SESSION_ID_PATTERN, newControllerSessionId, newRunId, RUN_ID_PATTERN, timestampedId } from "../../src/domain/ids.js"

describe("ids from the Clock and Random services", () => {
  it.effect("a run id carries the clock's second and ten hex digits, and is a valid run id", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.UTC(2026, 11, 1, 16, 5, 9, 730))
      const id = yield* newRunId
      expect(id).toMatch(/^run-20261201T160509Z-[0-9a-f]{10}$/)
      expect(RUN_ID_PATTERN.test(id)).toBe(true)
    }))

  it.effect("the same seed gives the same ids; two ids of one second differ", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(0)
      const seeded = Effect.suspend(() =>
        Effect.all([timestampedId("portfolio"), timestampedId("portfolio")]).pipe(Effect.withRandom(Random.make(42)))
      )
      const [first, second] = yield* seeded
      expect(yield* seeded).toEqual([first, second])
      expect(first).not.toBe(second)
      expect(first.startsWith("portfolio-19700101T000000Z-")).toBe(true)
    }))

  it.effect("a controller session id is 32 hex digits", () =>
    Effect.gen(function*() {
      const ids = yield* Effect.all(Array.from({ length: 20 }, () => newControllerSessionId))
      for (const id of ids) expect(CONTROLLER_SESSION_ID_PATTERN.test(id)).toBe(true)
      expect(new Set(ids).size).toBe(20)
    }))
})
