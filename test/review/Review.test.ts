import { describe, expect, it } from "@effect/vitest"
import { Clock, Deferred, Effect, Exit, Fiber, Random } from "effect"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import type { Ballot } from "../../src/domain/review/ballot.js"
import { DIMENSION_IDS } from "../../src/domain/review/dimensions.js"
import type { Position } from "../../src/domain/review/evaluation.js"
import type { WorkerRequest } from "../../src/services/CodexWorker.js"
import { Review } from "../../src/services/Review.js"
import { REVIEWER_OUTPUT_OMITTED } from "../../src/services/RunLog.js"
import { ballotFavouring, NARRATIVE } from "./ballots.js"
import {
  CLAUDE_MARK,
  CODEX_MARK,
  fatalFailure,
  listDirectory,
  makeRunDirectory,
  readJsonFile,
  readText,
  retryableFailure,
  reviewInput,
  reviewerTemporaryDirectory,
  reviewLayer,
  runWithTestClock
} from "./support.js"

type Request = WorkerRequest<unknown, unknown>

/** The letter under which the reviewer sees the Codex candidate, read from its own workspace copies. */
const codexLetterSeen = (request: Request) =>
  Effect.promise(async () => {
    const a = await fs.readFile(path.join(request.workingDirectory, "candidate-a.json"), "utf8")
    return (a.includes(CODEX_MARK) ? "A" : "B") as Position
  })

const answer = (ballot: Ballot) => Effect.succeed(JSON.stringify(ballot))

describe("Review", () => {
  it.effect("a review interrupted between its orders leaves no mapping, candidate or ballot; the next one draws a fresh mapping", () =>
    Effect.gen(function*() {
      const runDirectory = yield* makeRunDirectory()
      const secondOrderStarted = yield* Deferred.make<Position>()
      let calls = 0
      const interrupted = reviewLayer((request) =>
        Effect.flatMap(codexLetterSeen(request), (letter) => {
          calls += 1
          return calls === 1 ? answer(ballotFavouring("A")) : Deferred.succeed(secondOrderStarted, letter).pipe(Effect.zipRight(Effect.never))
        }))
      const input = reviewInput(runDirectory, { mapping: undefined as never })
      const fiber = yield* Effect.fork(Effect.flatMap(Review, (review) => review.run(input)).pipe(
        Effect.withRandom(Random.fixed([true])),
        Effect.provide(interrupted)
      ))
      // In the B/A order the reviewer sees Codex second when the mapping put it first.
      expect(yield* Deferred.await(secondOrderStarted)).toBe("B")
      expect(yield* listDirectory(path.join(runDirectory, "reviews"))).toEqual([])
      yield* Fiber.interrupt(fiber)
      expect(yield* listDirectory(path.join(runDirectory, "reviews"))).toEqual([])
      expect(yield* listDirectory(reviewerTemporaryDirectory(runDirectory))).toEqual([])

      const evaluation = yield* Effect.flatMap(Review, (review) => review.run(input)).pipe(
        Effect.withRandom(Random.fixed([false])),
        Effect.provide(reviewLayer(() => answer(ballotFavouring("A"))))
      )
      expect(evaluation.candidate_mapping).toEqual({ A: "claude", B: "codex" })
      expect(yield* readJsonFile(path.join(runDirectory, "reviews", "candidate-mapping.json"))).toEqual({ candidate_mapping: { A: "claude", B: "codex" } })
      expect(yield* readText(path.join(runDirectory, "reviews", "candidate-a.json"))).toContain(CLAUDE_MARK)
    }))

  it.effect("a reviewer biased to the first position yields ties and one flip per dimension", () =>
    Effect.gen(function*() {
      const runDirectory = yield* makeRunDirectory()
      const evaluation = yield* Effect.flatMap(Review, (review) => review.run(reviewInput(runDirectory))).pipe(
        Effect.provide(reviewLayer(() => answer(ballotFavouring("A"))))
      )
      expect(evaluation.flips).toBe(DIMENSION_IDS.length)
      expect(evaluation.winner).toBe("tie")
      expect(evaluation.reviews.map((review) => [review.order, review.status])).toEqual([["AB", "completed"], ["BA", "completed"]])
      for (const id of DIMENSION_IDS) {
        expect(evaluation.dimensions[id]).toMatchObject({ winner: "tie", order_dependent: true })
      }
      expect(yield* listDirectory(reviewerTemporaryDirectory(runDirectory))).toEqual([])
      const files = (yield* listDirectory(path.join(runDirectory, "reviews"))).sort()
      expect(files).toEqual(["ballot-ab.json", "ballot-ba.json", "candidate-a.json", "candidate-b.json", "candidate-mapping.json", "evaluation.json"])
      expect(yield* readJsonFile(path.join(runDirectory, "reviews", "evaluation.json"))).toEqual(JSON.parse(JSON.stringify(evaluation)))
    }))

  it.effect("an unbiased reviewer agrees in both orders", () =>
    Effect.gen(function*() {
      const runDirectory = yield* makeRunDirectory()
      const layer = reviewLayer((request) => Effect.flatMap(codexLetterSeen(request), (letter) => answer(ballotFavouring(letter))))
      const evaluation = yield* Effect.flatMap(Review, (review) => review.run(reviewInput(runDirectory, { mapping: { A: "claude", B: "codex" } }))).pipe(
        Effect.provide(layer)
      )
      expect(evaluation.flips).toBe(0)
      expect(evaluation.winner).toBe("codex")
      expect(DIMENSION_IDS.every((id) => evaluation.dimensions[id].agreement === "agreed")).toBe(true)
      expect(evaluation.reviews.map((review) => review.positions)).toEqual([{ A: "claude", B: "codex" }, { A: "codex", B: "claude" }])
    }))

  it.effect("writes anonymous candidates under the recorded mapping", () =>
    Effect.gen(function*() {
      const runDirectory = yield* makeRunDirectory()
      const evaluation = yield* Effect.flatMap(Review, (review) => review.run(reviewInput(runDirectory, { mapping: undefined as never }))).pipe(
        Effect.provide(reviewLayer(() => answer(ballotFavouring("B"))))
      )
      const mapping = evaluation.candidate_mapping
      expect([mapping.A, mapping.B].sort()).toEqual(["claude", "codex"])
      expect(yield* readJsonFile(path.join(runDirectory, "reviews", "candidate-mapping.json"))).toEqual({ candidate_mapping: mapping })
      const claudeLetter = mapping.A === "claude" ? "a" : "b"
      const claudeFile = yield* readText(path.join(runDirectory, "reviews", `candidate-${claudeLetter}.json`))
      expect(claudeFile).toContain(CLAUDE_MARK)
      expect(claudeFile).not.toMatch(/Claude|anthropic|Generated with/i)
      const codexFile = yield* readText(path.join(runDirectory, "reviews", `candidate-${claudeLetter === "a" ? "b" : "a"}.json`))
      expect(codexFile).toContain(CODEX_MARK)
      expect(codexFile).not.toMatch(/codex/i)
      expect(JSON.parse(claudeFile).changed_files).toEqual([{ path: "a.txt", additions: 1, deletions: 0 }])
      const stat = yield* Effect.promise(() => fs.stat(path.join(runDirectory, "reviews", "candidate-a.json")))
      expect(stat.mode & 0o777).toBe(0o600)
    }))

  it.effect("rejects any other evaluator before a worker starts", () =>
    Effect.gen(function*() {
      const runDirectory = yield* makeRunDirectory()
      let calls = 0
      const layer = reviewLayer(() => Effect.sync(() => void calls++).pipe(Effect.as("{}")))
      for (const overrides of [{ evaluator: "claude" }, { evaluator: "gemini" }]) {
        const exit = yield* Effect.flatMap(Review, (review) => review.run(reviewInput(runDirectory, overrides))).pipe(
          Effect.provide(layer),
          Effect.exit
        )
        const error = Exit.isFailure(exit) && exit.cause._tag === "Fail" ? exit.cause.error : undefined
        expect(error?._tag).toBe("InvalidArgument")
        expect(error?.message).toBe(`Unsupported review evaluator: ${overrides.evaluator}`)
      }
      expect(calls).toBe(0)
      expect(yield* listDirectory(runDirectory)).toEqual([])
    }))

  it.effect("asks an order again once after an answer that is not a ballot, never rebuilding one from its text", () =>
    Effect.gen(function*() {
      const runDirectory = yield* makeRunDirectory()
      const seen: Array<{ purpose: string; files: Array<string>; prompt: string; label: string }> = []
      const layer = reviewLayer((request) =>
        Effect.gen(function*() {
          seen.push({ purpose: request.purpose, files: yield* listDirectory(request.workingDirectory), prompt: request.prompt, label: request.label ?? "" })
          // The A/B order answers prose first and a ballot when asked again; the B/A order answers prose twice.
          const askedAgain = request.prompt.includes("did not match the output schema")
          return request.label?.includes(":ab") === true && askedAgain ? JSON.stringify(ballotFavouring("A")) : `${NARRATIVE}: I prefer Candidate A overall`
        })
      )
      const evaluation = yield* Effect.flatMap(Review, (review) => review.run(reviewInput(runDirectory))).pipe(Effect.provide(layer))
      expect(seen.map((entry) => [entry.purpose, entry.label])).toEqual([
        ["evaluation", "review:codex:ab"],
        ["evaluation", "review:codex:ab:asked-again"],
        ["evaluation", "review:codex:ba"],
        ["evaluation", "review:codex:ba:asked-again"]
      ])
      // Asked again with the candidates and the validation error; the answer itself is never quoted.
      expect(seen[1]!.files.sort()).toEqual(["candidate-a.json", "candidate-b.json"])
      expect(seen[1]!.prompt).toContain("Codex answered with text that is not JSON")
      expect(seen[1]!.prompt).not.toContain(NARRATIVE)
      expect(evaluation.reviews.map((review) => [review.order, review.status, review.asked_again, review.normalized])).toEqual([
        ["AB", "completed", true, false],
        ["BA", "invalid", true, false]
      ])
      expect(evaluation.reviews[1]!.ballot).toBeNull()
      // One order without a ballot: no order-balanced verdict, and which order is missing is said.
      expect(evaluation.winner).toBe("inconclusive")
      expect(evaluation.missing_orders).toEqual(["BA"])
      const runLog = yield* readText(path.join(runDirectory, "run.log"))
      expect(runLog).not.toContain(NARRATIVE)
      expect(runLog).toContain("the review is asked again once")
      expect(REVIEWER_OUTPUT_OMITTED).toBe("[reviewer output omitted]")
    }))

  it.effect("marks a still-invalid ballot invalid and a worker failure failed, keeping the errors", () =>
    Effect.gen(function*() {
      const runDirectory = yield* makeRunDirectory()
      const layer = reviewLayer((request) => {
        const order = request.prompt.includes("review-ab") || request.label?.includes(":ab") === true ? "ab" : "ba"
        if (order === "ab") return Effect.succeed("still <not> a ballot")
        return Effect.fail(fatalFailure("Reviewer unavailable <offline>"))
      })
      const evaluation = yield* Effect.flatMap(Review, (review) => review.run(reviewInput(runDirectory))).pipe(Effect.provide(layer))
      const [first, second] = evaluation.reviews
      expect(first).toMatchObject({ order: "AB", status: "invalid", ballot: null })
      expect(first!.error).toMatch(/not JSON/)
      expect(second).toMatchObject({ order: "BA", status: "failed", error: "Reviewer unavailable <offline>", ballot: null })
      expect(evaluation.winner).toBe("inconclusive")
      expect(yield* listDirectory(reviewerTemporaryDirectory(runDirectory))).toEqual([])
    }))

  it.effect("retries transient reviewer failures up to 3 times with growing pauses", () =>
    Effect.gen(function*() {
      const runDirectory = yield* makeRunDirectory()
      const callTimes: Array<number> = []
      const layer = reviewLayer(() =>
        Effect.gen(function*() {
          callTimes.push(yield* Clock.currentTimeMillis)
          if (callTimes.length <= 2) return yield* Effect.fail(retryableFailure())
          if (callTimes.length === 3) return JSON.stringify(ballotFavouring("A"))
          return yield* Effect.fail(retryableFailure("exceeded retry limit, last status: 429"))
        })
      )
      const fiber = yield* Effect.flatMap(Review, (review) => review.run(reviewInput(runDirectory))).pipe(Effect.provide(layer), Effect.fork)
      const evaluation = yield* runWithTestClock(fiber)
      // AB: fails twice, succeeds on the third call; BA: fails four times (1 + 3 retries) and gives up.
      expect(evaluation.reviews.map((review) => review.status)).toEqual(["completed", "failed"])
      expect(evaluation.reviews[1]!.error).toContain("429")
      expect(callTimes.length).toBe(7)
      const gaps = callTimes.slice(1).map((time, index) => time - callTimes[index]!)
      expect(gaps.slice(0, 2)).toEqual([2000, 4000])
      expect(gaps.slice(3)).toEqual([2000, 4000, 8000])
      const runLog = yield* readText(path.join(runDirectory, "run.log"))
      expect(runLog).toContain("review:codex:ab attempt 1 failed with retryable stream_error; starting retry 1 of 3")
      expect(runLog).toContain("review:codex:ba attempt 3 failed with retryable stream_error; starting retry 3 of 3")
    }))

  it.effect("removes the reviewer workspace when the review is interrupted", () =>
    Effect.gen(function*() {
      const runDirectory = yield* makeRunDirectory()
      const started = yield* Deferred.make<void>()
      const layer = reviewLayer(() => Deferred.succeed(started, undefined).pipe(Effect.zipRight(Effect.never)))
      const fiber = yield* Effect.flatMap(Review, (review) => review.run(reviewInput(runDirectory))).pipe(Effect.provide(layer), Effect.fork)
      yield* Deferred.await(started)
      expect(yield* listDirectory(reviewerTemporaryDirectory(runDirectory))).toHaveLength(1)
      yield* Fiber.interrupt(fiber)
      expect(yield* listDirectory(reviewerTemporaryDirectory(runDirectory))).toEqual([])
    }))

  it.effect("fails a non-retryable reviewer failure at once", () =>
    Effect.gen(function*() {
      const runDirectory = yield* makeRunDirectory()
      let calls = 0
      const layer = reviewLayer(() => Effect.suspend(() => {
        calls++
        return Effect.fail(fatalFailure("unauthorized", "unauthorized"))
      }))
      const fiber = yield* Effect.flatMap(Review, (review) => review.run(reviewInput(runDirectory))).pipe(Effect.provide(layer), Effect.fork)
      const evaluation = yield* Fiber.join(fiber)
      expect(calls).toBe(2)
      expect(evaluation.reviews.map((review) => review.status)).toEqual(["failed", "failed"])
    }))
})
