/**
 * Whether a completed run is still blind: no vote and no reveal recorded in its directory, and the two
 * candidates the reviewer saw recorded to judge (as `vote_status` says; docs/verdicts.md, "Your own blind
 * vote"). Existence checks only, no read; a run whose files cannot be looked at counts as blind, so that the
 * page shows the way to its Results rather than the verdict.
 */
import { Effect } from "effect"
import * as path from "node:path"
import { REVEAL_FILE, VOTE_FILE } from "../../domain/review/vote.js"
import { FileStore } from "../../services/FileStore.js"
import { CANDIDATE_FILES, MAPPING_FILE, REVIEWS_DIRECTORY } from "../../services/Review.js"

const RECORDED = [CANDIDATE_FILES.A, CANDIDATE_FILES.B, MAPPING_FILE].map((name) => path.join(REVIEWS_DIRECTORY, name))

export const isStillBlind = (runDirectory: string) =>
  Effect.gen(function*() {
    const files = yield* FileStore
    const there = (name: string) => files.exists(path.join(runDirectory, name))
    if ((yield* there(VOTE_FILE)) || (yield* there(REVEAL_FILE))) return false
    for (const name of RECORDED) if (!(yield* there(name))) return false
    return true
  }).pipe(Effect.orElseSucceed(() => true))

/** `{blind}` for a completed run; nothing for any other (only a completed run has a verdict to keep from view). */
export const blindnessOf = (
  runRoot: string,
  run: { readonly run_id: string | null; readonly status: string }
): Effect.Effect<{ readonly blind?: boolean }, never, FileStore> =>
  run.status !== "completed" || run.run_id === null
    ? Effect.succeed({})
    : Effect.map(isStillBlind(path.join(runRoot, run.run_id)), (blind) => ({ blind }))
