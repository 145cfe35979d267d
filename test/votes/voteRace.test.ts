/**
 * A vote and a reveal of one run at once, in memory: the vote is held after it found the run still blind
 * and before it stores `vote.json`, while the reveal runs. The two are serialised per run, so the reveal
 * waits for the vote and answers it; a vote is never stored after a reveal it did not see.
 */
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer } from "effect"
import * as path from "node:path"
import type { SubmitVotePayload } from "../../src/domain/contracts/votes.js"
import { REVEAL_FILE, VOTE_FILE } from "../../src/domain/review/vote.js"
import { revealRun, submitVote } from "../../src/programs/votes/votes.js"
import { BlindBallots } from "../../src/services/BlindBallots.js"
import { FileStore } from "../../src/services/FileStore.js"
import { RunLog } from "../../src/services/RunLog.js"
import { RunStore } from "../../src/services/RunStore.js"
import { Settings } from "../../src/services/Settings.js"
import { memorySettings, settle } from "../engine/support.js"
import { MemoryFiles } from "../support/testLayers.js"

const RUN_ID = "run-20260101T000000Z-0123456789"
const settings = memorySettings()
const directory = path.join(settings.runRoot, RUN_ID)
const payload = (ballot_token: string): SubmitVotePayload => ({
  run_id: RUN_ID,
  ballot_token,
  overall: "tie",
  dimensions: { reliability: "tie", code_quality: "tie", request_fulfillment: "tie", change_scope: "tie", safe_operations: "tie", accurate_reporting: "tie" }
})

/** A completed run with the review's recorded mapping, in memory. */
const completedRun = () => {
  const files = new MemoryFiles()
  const now = "2026-01-01T00:00:00.000Z"
  files.mkdir(directory)
  files.writeText(path.join(directory, "controller-state.json"), JSON.stringify({
    schema_version: 1, run_id: RUN_ID, status: "completed", phase: "completed", phases: [], events: [], coordinator_pid: null,
    controller_session_id: settings.controllerSessionId, started_at: now, updated_at: now, error: null
  }))
  files.writeText(path.join(directory, "reviews", "candidate-mapping.json"), JSON.stringify({ candidate_mapping: { A: "codex", B: "claude" } }))
  return files
}

/** The FileStore whose creation of `vote.json` says it was reached, then waits for `open`. */
const heldVotes = (files: MemoryFiles, reached: Deferred.Deferred<void>, open: Deferred.Deferred<void>) =>
  Layer.effect(FileStore, Effect.map(FileStore, (real) =>
    FileStore.make({
      ...real,
      createJsonExclusive: (file: string, value: unknown) =>
        path.basename(file) === VOTE_FILE
          ? Deferred.succeed(reached, undefined).pipe(Effect.zipRight(Deferred.await(open)), Effect.zipRight(real.createJsonExclusive(file, value)))
          : real.createJsonExclusive(file, value)
    }))).pipe(Layer.provide(files.layer))

const layerOf = (files: MemoryFiles, reached: Deferred.Deferred<void>, open: Deferred.Deferred<void>) => {
  const base = Layer.mergeAll(heldVotes(files, reached, open), Settings.layer(settings))
  return Layer.mergeAll(
    Layer.provideMerge(RunStore.DefaultWithoutDependencies, Layer.provideMerge(RunLog.DefaultWithoutDependencies, base)),
    BlindBallots.Default
  )
}

describe("a vote and a reveal of one run at once", () => {
  it.effect("the reveal waits for a vote already decided and answers it; both files agree on the order", () =>
    Effect.gen(function*() {
      const files = completedRun()
      const reached = yield* Deferred.make<void>()
      const open = yield* Deferred.make<void>()
      const outcome = yield* Effect.gen(function*() {
        const { token } = yield* (yield* BlindBallots).present(RUN_ID)
        const vote = yield* Effect.fork(Effect.either(submitVote(payload(token))))
        yield* Deferred.await(reached)
        const reveal = yield* Effect.fork(revealRun(RUN_ID))
        // The reveal gets every chance to finish while the vote is held.
        yield* settle
        const revealedWhileHeld = files.has(path.join(directory, REVEAL_FILE))
        yield* Deferred.succeed(open, undefined)
        return { voted: yield* Fiber.join(vote), revealed: yield* Fiber.join(reveal), revealedWhileHeld }
      }).pipe(Effect.provide(layerOf(files, reached, open)))
      expect(outcome.revealedWhileHeld).toBe(false)
      expect(outcome.voted._tag).toBe("Right")
      // The vote was decided before the reveal: the reveal answers it.
      expect(outcome.revealed.vote).toEqual(files.json(path.join(directory, VOTE_FILE)))
      expect(files.has(path.join(directory, REVEAL_FILE))).toBe(true)
    }))
})
