/**
 * The user's blind vote (docs/verdicts.md, "Your own blind vote"): `blind_candidates`, `submit_vote` and
 * `reveal_run`. A refusal is one sentence and writes nothing; a vote and a reveal are each one file
 * created atomically (0600) in the run directory, never replaced.
 */
import { Clock, DateTime, Effect, Option, Schema } from "effect"
import * as path from "node:path"
import {
  type BlindCandidatesResult,
  RevealMark,
  type RevealResult,
  StoredCandidate,
  StoredVote,
  type SubmitVotePayload,
  type SubmitVoteResult,
  type VoteStatus
} from "../../domain/contracts/votes.js"
import { conflict, invalidArgument, notFound, unreadableFile } from "../../domain/errors.js"
import type { CandidateMapping, Position } from "../../domain/review/evaluation.js"
import { blindPresentation, REVEAL_FILE, storedVote, VOTE_FILE } from "../../domain/review/vote.js"
import { BlindBallots } from "../../services/BlindBallots.js"
import { FileStore } from "../../services/FileStore.js"
import { CANDIDATE_FILES, MAPPING_FILE, REVIEWS_DIRECTORY } from "../../services/Review.js"
import { RunStore } from "../../services/RunStore.js"

/** Candidates hold whole patches; they are as large as a report can be. */
const MAX_CANDIDATE_BYTES = 512 * 1024 * 1024
const MAX_SMALL_FILE_BYTES = 64 * 1024

const Mapping = Schema.Struct({
  candidate_mapping: Schema.Struct({ A: Schema.Literal("codex", "claude"), B: Schema.Literal("codex", "claude") })
})

/** A completed run's directory; any other run, one sentence. */
const completedRun = Effect.fn("votes.completedRun")(function*(runId: string) {
  const runs = yield* RunStore
  const { directory, state } = yield* runs.readAny(runId)
  if (state.status !== "completed") {
    return yield* conflict(`Run ${runId} is ${state.status}, not completed: only a completed run can be judged.`)
  }
  return directory
})

/** The user's vote on a run, when there is one (`vote.json`). */
export const readVote = (runDirectory: string) =>
  Effect.flatMap(FileStore, (files) => files.readDecodedOption(path.join(runDirectory, VOTE_FILE), MAX_SMALL_FILE_BYTES, StoredVote))

const readReveal = (runDirectory: string) =>
  Effect.flatMap(FileStore, (files) => files.readDecodedOption(path.join(runDirectory, REVEAL_FILE), MAX_SMALL_FILE_BYTES, RevealMark))

const alreadyVoted = (runId: string) => `You have already voted on run ${runId}; a run takes one blind vote.`
const alreadyRevealed = (runId: string) => `The verdict of run ${runId} has been revealed, so a blind vote is no longer possible for it.`
const noCandidates = (runId: string) => `Run ${runId} has no recorded candidates to judge (its review recorded none).`

/** Refuses a run that already has a vote or whose verdict the user has seen. */
const stillBlind = Effect.fn("votes.stillBlind")(function*(runId: string, directory: string) {
  if (Option.isSome(yield* readVote(directory))) return yield* conflict(alreadyVoted(runId))
  if (Option.isSome(yield* readReveal(directory))) return yield* conflict(alreadyRevealed(runId))
})

/**
 * A run's vote and its reveal, one at a time: a vote found still blind is stored before a reveal that
 * comes meanwhile looks, so a reveal never precedes a vote it did not answer.
 */
const oneAtATime = <A, E, R>(directory: string, effect: Effect.Effect<A, E, R>) =>
  Effect.flatMap(FileStore, (files) => files.withLock(path.join(directory, VOTE_FILE), effect))

const reviewFile = (directory: string, name: string) => path.join(directory, REVIEWS_DIRECTORY, name)

/** The two candidates the reviewer saw, as recorded. */
const readCandidates = Effect.fn("votes.readCandidates")(function*(runId: string, directory: string) {
  const files = yield* FileStore
  const missing = notFound(noCandidates(runId))
  const read = (position: Position) =>
    files.readDecodedOption(reviewFile(directory, CANDIDATE_FILES[position]), MAX_CANDIDATE_BYTES, StoredCandidate).pipe(
      Effect.flatMap(Option.match({ onNone: () => Effect.fail(missing), onSome: Effect.succeed }))
    )
  return { A: yield* read("A"), B: yield* read("B") }
})

const readMapping = Effect.fn("votes.readMapping")(function*(runId: string, directory: string) {
  const files = yield* FileStore
  const found = yield* files.readDecodedOption(reviewFile(directory, MAPPING_FILE), MAX_SMALL_FILE_BYTES, Mapping)
  if (Option.isNone(found)) return yield* notFound(noCandidates(runId))
  return found.value.candidate_mapping satisfies CandidateMapping
})

const now = Effect.map(Clock.currentTimeMillis, (millis) => DateTime.formatIso(DateTime.unsafeMake(millis)))

/** `blind_candidates`: the recorded candidates in a fresh random order, under the labels first and second. */
export const blindCandidates = Effect.fn("votes.blindCandidates")(function*(runId: string) {
  const directory = yield* completedRun(runId)
  yield* stillBlind(runId, directory)
  const candidates = yield* readCandidates(runId, directory)
  yield* readMapping(runId, directory)
  const { shown_first, token } = yield* (yield* BlindBallots).present(runId)
  return blindPresentation(runId, token, candidates, shown_first) satisfies BlindCandidatesResult
})

/** `submit_vote`: the choices mapped back to their authors through the token's order, stored once. */
export const submitVote = Effect.fn("votes.submitVote")(function*(payload: SubmitVotePayload) {
  const directory = yield* completedRun(payload.run_id)
  return yield* oneAtATime(directory, recordVote(payload, directory))
})

const recordVote = Effect.fn("votes.recordVote")(function*(payload: SubmitVotePayload, directory: string) {
  yield* stillBlind(payload.run_id, directory)
  const ballots = yield* BlindBallots
  const presentation = yield* ballots.lookup(payload.ballot_token)
  if (Option.isNone(presentation) || presentation.value.run_id !== payload.run_id) {
    return yield* invalidArgument("The ballot token is unknown for this run (or has expired); ask for the blind candidates again.")
  }
  const mapping = yield* readMapping(payload.run_id, directory)
  const vote = storedVote(payload, presentation.value.shown_first, mapping, yield* now)
  const file = path.join(directory, VOTE_FILE)
  const created = yield* (yield* FileStore).createJsonExclusive(file, vote)
  if (!created) return yield* conflict(alreadyVoted(payload.run_id))
  yield* ballots.forgetRun(payload.run_id)
  return { run_id: payload.run_id, vote, vote_file: file } satisfies SubmitVoteResult
})

/** `reveal_run`: marks the run revealed (the first time only) and answers the user's vote, if any. */
export const revealRun = Effect.fn("votes.revealRun")(function*(runId: string) {
  const directory = yield* completedRun(runId)
  return yield* oneAtATime(directory, markRevealed(runId, directory))
})

const markRevealed = Effect.fn("votes.markRevealed")(function*(runId: string, directory: string) {
  const files = yield* FileStore
  const mark = { run_id: runId, revealed_at: yield* now }
  const first = yield* files.createJsonExclusive(path.join(directory, REVEAL_FILE), mark)
  const stored = first ? Option.some(mark) : yield* readReveal(directory)
  if (Option.isNone(stored)) return yield* unreadableFile(`The reveal mark of run ${runId} cannot be read.`)
  return {
    run_id: runId,
    revealed_at: stored.value.revealed_at,
    first_reveal: first,
    vote: Option.getOrNull(yield* readVote(directory))
  } satisfies RevealResult
})

/**
 * `vote_status`: whether a completed run can still be judged blind (and if not, the sentence that says
 * why), its vote and when it was revealed. Reads only: the page asks it before it shows anything.
 */
export const voteStatus = Effect.fn("votes.voteStatus")(function*(runId: string) {
  const directory = yield* completedRun(runId)
  const files = yield* FileStore
  const vote = yield* readVote(directory)
  const reveal = yield* readReveal(directory)
  const recorded = (name: string) => Effect.map(files.statOption(reviewFile(directory, name)), Option.isSome)
  const judgeable = (yield* recorded(CANDIDATE_FILES.A)) && (yield* recorded(CANDIDATE_FILES.B)) && (yield* recorded(MAPPING_FILE))
  const reason = Option.isSome(vote)
    ? alreadyVoted(runId)
    : Option.isSome(reveal)
    ? alreadyRevealed(runId)
    : judgeable
    ? null
    : noCandidates(runId)
  return {
    run_id: runId,
    blind: reason === null,
    reason,
    vote: Option.getOrNull(vote),
    revealed_at: Option.match(reveal, { onNone: () => null, onSome: (mark) => mark.revealed_at })
  } satisfies VoteStatus
})
