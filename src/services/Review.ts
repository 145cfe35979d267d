import { Effect, Option, Random, Ref, Schedule } from "effect"
import * as os from "node:os"
import * as path from "node:path"
import { type ControllerError, invalidArgument, type WorkerError, StorageError } from "../domain/errors.js"
import { type ChecksComparison, reviewerChecks } from "../domain/checks/outcomes.js"
import { type AnonymousCandidate, anonymousCandidate, type CandidateResult, withoutWorkspaceTraces } from "../domain/review/anonymize.js"
import { Ballot, canonicalBallot, rubricText } from "../domain/review/ballot.js"
import { DIMENSION_IDS, type DimensionId } from "../domain/review/dimensions.js"
import {
  aggregateEvaluation,
  type CandidateMapping,
  type Evaluation,
  mappingWithCodexAs,
  type Position,
  positionsFor,
  REVIEW_ORDERS,
  type ReviewOrder,
  type ReviewRecord,
  sourceLetterFor
} from "../domain/review/evaluation.js"
import type { CodexPriceTable } from "../domain/codexPricing.js"
import { codexCall, type ModelCall, type Usage } from "../domain/spend.js"
import { CodexWorker } from "./CodexWorker.js"
import { FileStore } from "./FileStore.js"
import { RunLog } from "./RunLog.js"

/** The only reviewer this product supports (docs/verdicts.md). */
export const SUPPORTED_EVALUATOR = "codex"
export const REVIEWS_DIRECTORY = "reviews"
/**
 * A reviewer's working directory is `<tmp>/private-XXXXXX/workspace-XXXXXX` (the controller's private
 * temporary folder): nothing in its name or place names the run, order or authors.
 */
export const REVIEWER_WORKSPACE_PREFIX = "workspace-"
export const CANDIDATE_FILES: Record<Position, string> = { A: "candidate-a.json", B: "candidate-b.json" }
export const MAPPING_FILE = "candidate-mapping.json"
export const EVALUATION_FILE = "evaluation.json"
export const REVIEW_RETRY_LIMIT = 3
/** A recorded candidate file is far below this (its patch and final response are bounded); a larger one is not ours. */
export const MAX_CANDIDATE_FILE_BYTES = 64 * 1024 * 1024

/** Retryable worker failures are retried up to 3 times, with growing pauses. */
export const reviewRetrySchedule = Schedule.exponential("2 seconds").pipe(Schedule.intersect(Schedule.recurs(REVIEW_RETRY_LIMIT)))

export interface ReviewInput {
  /** The run directory; candidates, mapping and ballots are recorded below it once both orders have finished. */
  readonly runDirectory: string
  /** The task both sides implemented, as given to the reviewer. */
  readonly request: string
  readonly codex: CandidateResult
  readonly claude: CandidateResult
  /** The reviewer model. */
  readonly model: string
  /** Defaults to `codex`, the only one supported. */
  readonly evaluator?: string
  /** Dimensions that count toward the overall winner; all six by default. */
  readonly comparableDimensions?: ReadonlyArray<DimensionId>
  /** A fixed mapping (tests); random otherwise. */
  readonly mapping?: CandidateMapping
  /** The run's process tag for the reviewer workers (the reviews run one after the other). */
  readonly runTag?: string
  /** Directories the reviewer's sandbox must not read besides the worker's own list (the user's repository). */
  readonly hiddenRoots?: ReadonlyArray<string>
  /** Where reviewer workspaces are created; the controller's private temporary folder by default. */
  readonly workspaceParent?: string
  /** The approved checks run on the start and on both results, shown to the reviewer per candidate. */
  readonly checks?: ChecksComparison
  /** Price overrides for the review calls' ledger (CODEX_REPLAY_PRICING); the pricing table otherwise. */
  readonly prices?: CodexPriceTable
  /** Told of each reviewer call as soon as it is made, so a review that fails or is stopped later still counts it. */
  readonly onCall?: (call: ModelCall) => Effect.Effect<void>
}

/** The review and every reviewer call it made (each order, each asked-again, each failed attempt that reported tokens). */
export interface CountedEvaluation {
  readonly evaluation: Evaluation
  readonly calls: ReadonlyArray<ModelCall>
}

/** Records one reviewer call in the run's ledger. */
type RecordCall = (label: string, usage: Usage | undefined) => Effect.Effect<void>

const orderLabel = (order: ReviewOrder) => order.toLowerCase()

/** The reviewer prompt. It names only the copies in the reviewer's own workspace. */
export const reviewPrompt = (copies: Record<Position, string>): string =>
  reviewPromptWith({ A: copies.A, B: copies.B })

/** The rubric prompt, each candidate named as `where` says (a file's path, or where the prompt shows it). */
export const reviewPromptWith = (where: Record<Position, string>): string =>
  [
    "You are reviewing two anonymous candidate solutions to the same software task.",
    "Each candidate is a JSON file with the task, the candidate's patch (a unified diff), its final response, its changed files and, when the project's own checks were run, its checks:",
    `- Candidate A: ${where.A}`,
    `- Candidate B: ${where.B}`,
    "",
    "Read both files completely before judging. Judge the patch itself, not the candidate's description of it; the accurate_reporting dimension compares the final response with the patch.",
    "For every dimension and every check, answer for each candidate: first the evidence (a file and line of the patch, or the part of the final response), then the result: 1 = satisfied, 0 = not satisfied, null = not applicable to this task. A check that does not apply to the task is null for both candidates.",
    "score = passed checks / applicable checks, or null when none applies.",
    "For each dimension write the comparison, then a short reason (one or two sentences) for the outcome that names the candidates only as \"Candidate A\" and \"Candidate B\", then the winner: the candidate with the higher score; with equal scores, the candidate the evidence favours, or tie; not_applicable when no check applies to either candidate.",
    "The letters and the order of the candidates carry no meaning. Do not reward length, confidence or polish of the wording.",
    "A candidate's checks are the project's own tests, builds and linters, run on the starting state and on a fresh copy of that candidate's result in the same sandbox: each names its outcome at the start and on the candidate, the change (fixed, kept, broke, still failing) and an excerpt of its output. Weigh them as evidence of correctness: under request_fulfillment (a check the task should make pass) and change_scope (a check that passed at the start and fails now broke existing behaviour). A check that could not run says nothing about either candidate. A candidate whose patch changes a test, a package script or a build or linter setting can pass a check by changing the check: read those changes before crediting the outcome. Checks do not replace reading the patch.",
    "",
    "Rubric (dimension, then its checks):",
    rubricText(),
    "",
    "Answer only with the JSON object of the output schema."
  ].join("\n")

/**
 * The same review asked again after an answer that did not match the ballot schema: the same prompt,
 * then what was wrong (never the answer itself, so nothing is rebuilt from free text).
 */
export const askAgainPrompt = (copies: Record<Position, string>, problem: string): string =>
  askAgainAfter(reviewPrompt(copies), problem)

/** `prompt` asked again after an answer that did not match the ballot schema, with what was wrong. */
export const askAgainAfter = (prompt: string, problem: string): string =>
  [
    prompt,
    "",
    `Your previous answer to this review did not match the output schema: ${problem.slice(0, 500)}`,
    "Judge the two candidates again and answer only with the JSON object of the output schema."
  ].join("\n")

type Attempt =
  | { readonly kind: "ballot"; readonly ballot: Ballot; readonly askedAgain: boolean }
  | { readonly kind: "invalid"; readonly error: string }
  | { readonly kind: "failed"; readonly error: string }

const isInvalidBallot = (error: WorkerError) => error.code === "invalid_output"

/**
 * The blind, order-balanced review (docs/verdicts.md): anonymous candidates, two reviewer runs (A/B and
 * B/A) each in a fresh workspace holding only copies of the candidates, the order asked again once for
 * an invalid ballot, and the aggregation of both ballots.
 */
export class Review extends Effect.Service<Review>()("codex-replay/Review", {
  effect: Effect.gen(function*() {
    const worker = yield* CodexWorker
    const files = yield* FileStore
    const runLog = yield* RunLog

    const log = (runDirectory: string, message: string) => Effect.ignore(runLog.append(runDirectory, "controller", message))

    const requireSupported = (what: string, value: string | undefined) =>
      value === undefined || value === SUPPORTED_EVALUATOR
        ? Effect.void
        : Effect.fail(invalidArgument(`Unsupported review ${what}: ${value}`))

    const chooseMapping = (fixed: CandidateMapping | undefined) =>
      fixed === undefined
        ? Effect.map(Random.nextBoolean, (codexFirst) => mappingWithCodexAs(codexFirst ? "A" : "B"))
        : Effect.succeed(fixed)

    /**
     * Every spelling of the places the sides worked in: both worktrees, Claude's recorded working
     * directories, the run directory, each as given and as its `realpath`.
     */
    const placesOf = (input: ReviewInput) =>
      Effect.gen(function*() {
        const given = [
          input.codex.worktree,
          input.claude.worktree,
          ...(input.codex.working_directories ?? []),
          ...(input.claude.working_directories ?? []),
          input.runDirectory
        ].filter((place): place is string => typeof place === "string" && path.isAbsolute(place))
        const real = yield* Effect.forEach(given, (place) =>
          files.realPath(place).pipe(Effect.map(Option.toArray), Effect.orElseSucceed(() => [])))
        return [...new Set([...given, ...real.flat()])]
      })

    /** The two anonymous candidates under `mapping`, in memory only; both scrubbed of the same places. */
    const buildCandidates = (input: ReviewInput, mapping: CandidateMapping, places: ReadonlyArray<string>): Record<Position, AnonymousCandidate> => {
      const sides = { codex: input.codex, claude: input.claude }
      const candidate = (author: "codex" | "claude"): AnonymousCandidate => {
        const anonymous = anonymousCandidate(input.request, sides[author], places)
        if (input.checks === undefined) return anonymous
        const scrub = [sides.codex.worktree, sides.claude.worktree, ...(sides.codex.working_directories ?? []), ...(sides.claude.working_directories ?? []), ...places]
        const checks = reviewerChecks(input.checks, author).map((check) => ({ ...check, output_excerpt: withoutWorkspaceTraces(check.output_excerpt, scrub) }))
        return { ...anonymous, checks }
      }
      return { A: candidate(mapping.A), B: candidate(mapping.B) }
    }

    /**
     * Records `reviews/candidate-a.json`, `candidate-b.json`, the mapping and the ballots. Called only
     * after both orders have finished: while a reviewer runs, no file tells which candidate is whom.
     */
    const recordReview = Effect.fn("Review.record")(function*(
      runDirectory: string,
      candidates: Record<Position, AnonymousCandidate>,
      mapping: CandidateMapping,
      ballots: ReadonlyArray<readonly [ReviewOrder, Ballot]>
    ) {
      const directory = path.join(runDirectory, REVIEWS_DIRECTORY)
      yield* files.ensurePrivateDirectoryInside(runDirectory, directory)
      yield* files.writeJson(path.join(directory, CANDIDATE_FILES.A), candidates.A)
      yield* files.writeJson(path.join(directory, CANDIDATE_FILES.B), candidates.B)
      for (const [order, ballot] of ballots) {
        yield* files.writeJson(path.join(directory, `ballot-${orderLabel(order)}.json`), ballot)
      }
      yield* files.writeJson(path.join(directory, MAPPING_FILE), { candidate_mapping: mapping })
    })

    /** A fresh private directory with a neutral name outside the run directory, removed when the scope closes. */
    const temporaryWorkspace = (input: ReviewInput) =>
      (input.workspaceParent === undefined
        ? Effect.orElseSucceed(files.privateTemporaryRoot(), () => os.tmpdir())
        : Effect.succeed(input.workspaceParent)).pipe(
        Effect.flatMap((parent) => files.temporaryDirectory(parent, REVIEWER_WORKSPACE_PREFIX)),
        Effect.mapError((error) => new StorageError({ message: `Cannot create a reviewer workspace: ${error.message}` }))
      )

    /** Writes the candidates into `workspace`, swapped for the B/A order; answers the files. */
    const placeCandidates = (candidates: Record<Position, AnonymousCandidate>, workspace: string, order: ReviewOrder) =>
      Effect.gen(function*() {
        const copies: Record<Position, string> = {
          A: path.join(workspace, CANDIDATE_FILES.A),
          B: path.join(workspace, CANDIDATE_FILES.B)
        }
        for (const position of ["A", "B"] as const) {
          yield* files.writeJson(copies[position], candidates[sourceLetterFor(order, position)])
        }
        return copies
      })

    const runReviewer = (input: ReviewInput, label: string, prompt: string, workingDirectory: string, record: RecordCall) =>
      worker.runWithSchedule(
        {
          purpose: "evaluation",
          model: input.model,
          prompt,
          workingDirectory,
          outputSchema: Ballot,
          runDirectory: input.runDirectory,
          label,
          ...(input.runTag === undefined ? {} : { runTag: input.runTag }),
          ...(input.hiddenRoots === undefined ? {} : { hiddenRoots: input.hiddenRoots })
        },
        reviewRetrySchedule,
        {
          beforeRetry: (failure, attempt) =>
            Effect.zipRight(
              record(`${label}:attempt-${attempt - 1} (failed)`, failure.usage),
              log(input.runDirectory, `${label} attempt ${attempt - 1} failed with retryable ${failure.code}; starting retry ${attempt - 1} of ${REVIEW_RETRY_LIMIT}`)
            )
        }
      ).pipe(
        Effect.tap((result) => record(label, result.usage)),
        // The last failed attempt: its tokens were billed too (an answer that was not a ballot, above all).
        Effect.tapError((failure) => record(`${label} (${failure.code === "invalid_output" ? "not a ballot" : "failed"})`, failure.usage))
      )

    /** One reviewer run of `order` in its own workspace (gone when this returns), asked again once after an invalid ballot. */
    const reviewOnce = (
      input: ReviewInput,
      candidates: Record<Position, AnonymousCandidate>,
      order: ReviewOrder,
      record: (purpose: "review" | "review_asked_again") => RecordCall,
      problem?: string
    ): Effect.Effect<Attempt, ControllerError | StorageError> =>
      Effect.scoped(
        Effect.gen(function*() {
          const workspace = yield* temporaryWorkspace(input)
          const copies = yield* placeCandidates(candidates, workspace, order)
          const label = `review:codex:${orderLabel(order)}${problem === undefined ? "" : ":asked-again"}`
          if (problem !== undefined) yield* log(input.runDirectory, `${label}: the ballot did not match the schema; the review is asked again once`)
          const prompt = problem === undefined ? reviewPrompt(copies) : askAgainPrompt(copies, problem)
          return yield* runReviewer(input, label, prompt, workspace, record(problem === undefined ? "review" : "review_asked_again"))
        })
      ).pipe(
        Effect.map((result): Attempt => ({ kind: "ballot", ballot: result.output, askedAgain: problem !== undefined })),
        Effect.catchTag("WorkerError", (error): Effect.Effect<Attempt, ControllerError | StorageError> =>
          !isInvalidBallot(error)
            ? Effect.succeed({ kind: "failed", error: error.message })
            : problem === undefined
            ? reviewOnce(input, candidates, order, record, error.message)
            // Twice not a ballot: this order has none. Nothing is rebuilt from the answer's text.
            : Effect.succeed({ kind: "invalid", error: error.message }))
      )

    const reviewRecord = (input: ReviewInput, order: ReviewOrder, mapping: CandidateMapping, attempt: Attempt): ReviewRecord => ({
      order,
      evaluator: SUPPORTED_EVALUATOR,
      model: input.model,
      status: attempt.kind === "ballot" ? "completed" : attempt.kind,
      error: attempt.kind === "ballot" ? null : attempt.error,
      positions: positionsFor(order, mapping),
      ballot: attempt.kind === "ballot" ? canonicalBallot(attempt.ballot) : null,
      normalized: false,
      asked_again: attempt.kind === "ballot" ? attempt.askedAgain : attempt.kind === "invalid"
    })

    const reviewInOrder = (
      input: ReviewInput,
      candidates: Record<Position, AnonymousCandidate>,
      order: ReviewOrder,
      mapping: CandidateMapping,
      record: (purpose: "review" | "review_asked_again") => RecordCall
    ) =>
      Effect.gen(function*() {
        yield* log(input.runDirectory, `review:codex:${orderLabel(order)} started (${order === "AB" ? "A, B" : "B, A"} order)`)
        const attempt = yield* reviewOnce(input, candidates, order, record)
        yield* log(input.runDirectory, `review:codex:${orderLabel(order)} ${attempt.kind === "ballot" ? "completed" : attempt.kind}`)
        return { order, attempt, review: reviewRecord(input, order, mapping, attempt) }
      })

    /** Runs the whole blind review and records `reviews/evaluation.json`; answers it with every reviewer call made. */
    const runCounted = Effect.fn("Review.runCounted")(function*(input: ReviewInput) {
      yield* requireSupported("evaluator", input.evaluator)
      // A fresh mapping on every call: a review interrupted between its orders starts over unblinded by nothing.
      const mapping = yield* chooseMapping(input.mapping)
      const candidates = buildCandidates(input, mapping, yield* placesOf(input))
      const calls = yield* Ref.make<ReadonlyArray<ModelCall>>([])
      const record = (purpose: "review" | "review_asked_again"): RecordCall => (label, usage) => {
        if (usage === undefined) return Effect.void
        const call = codexCall(purpose, label, input.model, usage, input.prices ?? {})
        return Effect.zipRight(Ref.update(calls, (all) => [...all, call]), input.onCall?.(call) ?? Effect.void)
      }
      const outcomes = yield* Effect.forEach(REVIEW_ORDERS, (order) => reviewInOrder(input, candidates, order, mapping, record))
      const ballots = outcomes.flatMap(({ attempt, order }) => (attempt.kind === "ballot" ? [[order, attempt.ballot] as const] : []))
      yield* recordReview(input.runDirectory, candidates, mapping, ballots)
      const evaluation: Evaluation = aggregateEvaluation({
        candidate_mapping: mapping,
        reviews: outcomes.map((outcome) => outcome.review),
        ...(input.comparableDimensions === undefined ? {} : { comparable_dimensions: input.comparableDimensions })
      })
      yield* files.writeJson(path.join(input.runDirectory, REVIEWS_DIRECTORY, EVALUATION_FILE), evaluation)
      yield* log(input.runDirectory, `review finished: ${evaluation.flips} of ${DIMENSION_IDS.length} dimensions flipped with the order`)
      return { evaluation, calls: yield* Ref.get(calls) } satisfies CountedEvaluation
    })

    /** The review alone (its calls are in `runCounted`). */
    const run = (input: ReviewInput) => Effect.map(runCounted(input), (counted) => counted.evaluation)

    return { run, runCounted } as const
  }),
  dependencies: [FileStore.Default, RunLog.Default]
}) {}
