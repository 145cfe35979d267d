/**
 * Whether a completed run is still blind: no vote and no reveal recorded in its directory (docs/verdicts.md,
 * "Your own blind vote"). Two existence checks, no read; a run whose files cannot be looked at counts as
 * blind, so that the page shows the offer rather than the verdict.
 */
import { Effect } from "effect"
import * as path from "node:path"
import { REVEAL_FILE, VOTE_FILE } from "../../domain/review/vote.js"
import { FileStore } from "../../services/FileStore.js"

export const isStillBlind = (runDirectory: string) =>
  Effect.flatMap(FileStore, (files) =>
    Effect.map(
      Effect.all([files.exists(path.join(runDirectory, VOTE_FILE)), files.exists(path.join(runDirectory, REVEAL_FILE))]),
      ([voted, revealed]) => !voted && !revealed
    )).pipe(Effect.orElseSucceed(() => true))

/** `{blind}` for a completed run; nothing for any other (only a completed run has a verdict to keep from view). */
export const blindnessOf = (runRoot: string, run: { readonly run_id: string | null; readonly status: string }) =>
  run.status !== "completed" || run.run_id === null
    ? Effect.succeed({})
    : Effect.map(isStillBlind(path.join(runRoot, run.run_id)), (blind) => ({ blind }))
