import { Effect, Option, Ref } from "effect"
import { randomBytes } from "node:crypto"
import type { Position } from "../domain/review/evaluation.js"

export const MAX_BALLOT_TOKENS = 256

/** Which recorded candidate a presentation showed first, and for which run. */
export interface Presentation {
  readonly run_id: string
  readonly shown_first: Position
}

/**
 * The blind presentations of this controller (docs/verdicts.md, "Your own blind vote"): each
 * `blind_candidates` answer's order, kept here under an opaque token so that the page never holds it.
 * At most 256, oldest dropped first; a controller that stopped forgets them (ask for the candidates again).
 */
export class BlindBallots extends Effect.Service<BlindBallots>()("codex-replay/BlindBallots", {
  effect: Effect.gen(function*() {
    const presentations = yield* Ref.make(new Map<string, Presentation>())

    /** A fresh order from the system's cryptographic source, and its new token. */
    const present = Effect.fn("BlindBallots.present")(function*(runId: string) {
      const bytes = randomBytes(33)
      const shown_first: Position = (bytes[32]! & 1) === 0 ? "A" : "B"
      const token = bytes.subarray(0, 32).toString("base64url")
      yield* Ref.update(presentations, (current) => {
        const next = new Map(current).set(token, { run_id: runId, shown_first })
        for (const oldest of next.keys()) {
          if (next.size <= MAX_BALLOT_TOKENS) break
          next.delete(oldest)
        }
        return next
      })
      return { token, shown_first }
    })

    const lookup = (token: string) => Effect.map(Ref.get(presentations), (current) => Option.fromNullable(current.get(token)))

    /** Forgets every presentation of a run (once it has a vote). */
    const forgetRun = (runId: string) =>
      Ref.update(presentations, (current) => new Map([...current].filter(([, presentation]) => presentation.run_id !== runId)))

    return { present, lookup, forgetRun } as const
  })
}) {}
