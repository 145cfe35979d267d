import { describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { BlindBallots, MAX_BALLOT_TOKENS } from "../../src/services/BlindBallots.js"

describe("BlindBallots", () => {
  it.effect("keeps each presentation's order under an opaque token, at most 256, oldest dropped first", () =>
    Effect.gen(function*() {
      const ballots = yield* BlindBallots
      const first = yield* ballots.present("run-1")
      expect(first.token).toMatch(/^[A-Za-z0-9_-]{43}$/)
      expect(yield* ballots.lookup(first.token)).toEqual(Option.some({ run_id: "run-1", shown_first: first.shown_first }))
      const later = []
      for (let index = 0; index < MAX_BALLOT_TOKENS; index++) later.push(yield* ballots.present(`run-${index + 2}`))
      expect(Option.isNone(yield* ballots.lookup(first.token))).toBe(true)
      expect(Option.isSome(yield* ballots.lookup(later[0]!.token))).toBe(true)
      // Both orders are drawn.
      expect(new Set(later.map((each) => each.shown_first))).toEqual(new Set(["A", "B"]))
      expect(Option.isNone(yield* ballots.lookup("forged"))).toBe(true)
    }).pipe(Effect.provide(BlindBallots.Default)))

  it.effect("forgets every presentation of a run once it has a vote", () =>
    Effect.gen(function*() {
      const ballots = yield* BlindBallots
      const one = yield* ballots.present("run-1")
      const two = yield* ballots.present("run-1")
      const other = yield* ballots.present("run-2")
      yield* ballots.forgetRun("run-1")
      expect(Option.isNone(yield* ballots.lookup(one.token))).toBe(true)
      expect(Option.isNone(yield* ballots.lookup(two.token))).toBe(true)
      expect(Option.isSome(yield* ballots.lookup(other.token))).toBe(true)
    }).pipe(Effect.provide(BlindBallots.Default)))
})
