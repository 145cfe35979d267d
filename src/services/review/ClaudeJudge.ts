import { Effect, Either } from "effect"
import * as os from "node:os"
import * as path from "node:path"
import { StorageError } from "../../domain/errors.js"
import { canonicalBallot, parseBallot } from "../../domain/review/ballot.js"
import {
  aggregateEvaluation,
  type Evaluation,
  type Position,
  positionsFor,
  REVIEW_ORDERS,
  type ReviewOrder,
  type ReviewRecord,
  sourceLetterFor
} from "../../domain/review/evaluation.js"
import {
  type JudgeCall,
  judgesAgreement,
  verdictOf,
  SECOND_JUDGE,
  type SecondJudgeResult,
  type SecondJudgeSpec
} from "../../domain/review/secondJudge.js"
import { FileStore } from "../FileStore.js"
import { askAgainAfter, CANDIDATE_FILES, EVALUATION_FILE, MAX_CANDIDATE_FILE_BYTES, REVIEWER_WORKSPACE_PREFIX, reviewPromptWith, REVIEWS_DIRECTORY } from "../Review.js"
import { RunLog } from "../RunLog.js"
import { ProcessEnvironment } from "../platform/environment.js"
import { askClaude, type ClaudeAvailability, type ClaudeUsage, findClaude, judgeEnvironment } from "./claudeCode.js"

export interface SecondJudgeInput {
  readonly runDirectory: string
  readonly spec: SecondJudgeSpec
  /** The first judge's evaluation: its mapping and comparable dimensions are the second judge's too. */
  readonly evaluation: Evaluation
  /** Where the judge's workspaces are created; the controller's private temporary folder by default. */
  readonly workspaceParent?: string
  /** The run's process tag, set on Claude Code so that the run's end sweeps whatever it left running. */
  readonly runTag?: string
  /** Told of each call as it is made (the run's spend ledger), so a run stopped meanwhile still counts it. */
  readonly onCall?: (call: JudgeCall) => Effect.Effect<void>
}

type Attempt =
  | { readonly kind: "ballot"; readonly ballot: ReturnType<typeof canonicalBallot>; readonly raw: unknown; readonly askedAgain: boolean }
  | { readonly kind: "invalid"; readonly error: string }
  | { readonly kind: "failed"; readonly error: string }

const orderLabel = (order: ReviewOrder) => order.toLowerCase()

/** The rubric prompt with both candidate files shown in full, in the order's letters. */
export const inlinePrompt = (candidates: Record<Position, unknown>): string =>
  [
    reviewPromptWith({ A: `${CANDIDATE_FILES.A}, shown in full below`, B: `${CANDIDATE_FILES.B}, shown in full below` }),
    "",
    `=== Candidate A === (${CANDIDATE_FILES.A})`,
    JSON.stringify(candidates.A, null, 2),
    "",
    `=== Candidate B === (${CANDIDATE_FILES.B})`,
    JSON.stringify(candidates.B, null, 2)
  ].join("\n")

/**
 * The second judge from the other family (docs/verdicts.md): Claude, through Claude Code and its Agent
 * SDK, judges the same two anonymous candidates the first judge saw, in both orders, with the same
 * rubric and ballot schema; an order whose answer is not a ballot is asked again once. Its verdict, its
 * agreement with the first judge and every call's tokens and cost are recorded in the evaluation.
 */
export class ClaudeJudge extends Effect.Service<ClaudeJudge>()("codex-replay/ClaudeJudge", {
  effect: Effect.gen(function*() {
    const files = yield* FileStore
    const runLog = yield* RunLog

    const log = (runDirectory: string, message: string) => Effect.ignore(runLog.append(runDirectory, "controller", message))

    /** Whether Claude Code can be run now, read from the controller's environment at each call. */
    const availability = Effect.map(ProcessEnvironment, (environment): ClaudeAvailability => findClaude(environment))

    const workspaceFor = (input: SecondJudgeInput) =>
      (input.workspaceParent === undefined
        ? Effect.orElseSucceed(files.privateTemporaryRoot(), () => os.tmpdir())
        : Effect.succeed(input.workspaceParent)).pipe(
        Effect.flatMap((parent) => files.temporaryDirectory(parent, REVIEWER_WORKSPACE_PREFIX)),
        Effect.mapError((error) => new StorageError({ message: `Cannot create a workspace for the second judge: ${error.message}` }))
      )

    /** The candidates the first judge saw, as recorded once its two orders finished. */
    const recordedCandidates = (runDirectory: string) =>
      Effect.all({
        A: files.readJson(path.join(runDirectory, REVIEWS_DIRECTORY, CANDIDATE_FILES.A), MAX_CANDIDATE_FILE_BYTES),
        B: files.readJson(path.join(runDirectory, REVIEWS_DIRECTORY, CANDIDATE_FILES.B), MAX_CANDIDATE_FILE_BYTES)
      })

    const callOf = (label: string, answer: ClaudeUsage): JudgeCall => ({
      purpose: "second_judge",
      label,
      model: answer.model,
      tokens: answer.tokens,
      cost_usd: answer.cost_usd
    })

    /** One order: a fresh workspace holding only that order's two candidate files, asked again once after a non-ballot. */
    const counted = (input: SecondJudgeInput, calls: Array<JudgeCall>, call: JudgeCall) =>
      Effect.suspend(() => {
        calls.push(call)
        return input.onCall?.(call) ?? Effect.void
      })

    const judgeOrder = (
      input: SecondJudgeInput,
      executable: string,
      candidates: Record<Position, unknown>,
      order: ReviewOrder,
      calls: Array<JudgeCall>,
      problem?: string
    ): Effect.Effect<Attempt, StorageError> =>
      Effect.scoped(Effect.gen(function*() {
        const workspace = yield* workspaceFor(input)
        const seen = { A: candidates[sourceLetterFor(order, "A")], B: candidates[sourceLetterFor(order, "B")] }
        for (const position of ["A", "B"] as const) yield* files.writeJson(path.join(workspace, CANDIDATE_FILES[position]), seen[position])
        const label = `second_judge:${SECOND_JUDGE}:${orderLabel(order)}${problem === undefined ? "" : ":asked-again"}`
        if (problem !== undefined) yield* log(input.runDirectory, `${label}: the ballot did not match the schema; the review is asked again once`)
        const prompt = problem === undefined ? inlinePrompt(seen) : askAgainAfter(inlinePrompt(seen), problem)
        const environment = judgeEnvironment(yield* ProcessEnvironment, input.runTag)
        const answer = yield* askClaude({ executable, prompt, workspace, model: input.spec.model, environment }).pipe(
          Effect.either
        )
        if (answer._tag === "Left") {
          // A failed session still used what it reported: its cost is counted.
          if (answer.left.usage !== undefined) yield* counted(input, calls, callOf(label, answer.left.usage))
          return { kind: "failed", error: answer.left.message } satisfies Attempt
        }
        yield* counted(input, calls, callOf(label, answer.right))
        const parsed = answer.right.output === null
          ? { _tag: "Left" as const, left: `The judge gave no ballot: ${answer.right.structuredOutputError ?? "empty answer"}` }
          : parseBallot(typeof answer.right.output === "string" ? answer.right.output : JSON.stringify(answer.right.output))
        if (parsed._tag === "Right") {
          return { kind: "ballot", ballot: canonicalBallot(parsed.right), raw: parsed.right, askedAgain: problem !== undefined } satisfies Attempt
        }
        return { kind: "invalid", error: parsed.left } satisfies Attempt
      })).pipe(
        Effect.flatMap((attempt) =>
          attempt.kind === "invalid" && problem === undefined
            ? judgeOrder(input, executable, candidates, order, calls, attempt.error)
            // Twice not a ballot: this order has none. Nothing is rebuilt from the answer's text.
            : Effect.succeed(attempt))
      )

    /** The model asked for, else the one Claude Code said it used for this order, else its default. */
    const modelOf = (input: SecondJudgeInput, order: ReviewOrder, calls: ReadonlyArray<JudgeCall>) =>
      input.spec.model ??
        calls.find((call) => call.label.startsWith(`second_judge:${SECOND_JUDGE}:${orderLabel(order)}`) && call.model !== null)?.model ??
        "Claude Code's default"

    const record = (input: SecondJudgeInput, order: ReviewOrder, attempt: Attempt, calls: ReadonlyArray<JudgeCall>): ReviewRecord => ({
      order,
      evaluator: SECOND_JUDGE,
      model: modelOf(input, order, calls),
      status: attempt.kind === "ballot" ? "completed" : attempt.kind,
      error: attempt.kind === "ballot" ? null : attempt.error,
      positions: positionsFor(order, input.evaluation.candidate_mapping),
      ballot: attempt.kind === "ballot" ? attempt.ballot : null,
      normalized: false,
      asked_again: attempt.kind === "ballot" ? attempt.askedAgain : attempt.kind === "invalid"
    })

    const unavailable = (input: SecondJudgeInput, reason: string): SecondJudgeResult => ({
      judge: SECOND_JUDGE,
      model: input.spec.model,
      status: "unavailable",
      reason,
      evaluation: null,
      winner: "inconclusive",
      agreement: "incomplete",
      calls: [],
      cost_usd: 0
    })

    /** Both orders by Claude; the result, never a failure of the run (a judge that cannot run is recorded as such). */
    const judge = Effect.fn("ClaudeJudge.judge")(function*(input: SecondJudgeInput) {
      const found = yield* availability
      if (!found.available) return unavailable(input, found.reason)
      const recorded = yield* Effect.either(recordedCandidates(input.runDirectory))
      if (Either.isLeft(recorded)) return unavailable(input, `the recorded candidates could not be read (${recorded.left.message})`)
      const candidates = recorded.right
      const calls: Array<JudgeCall> = []
      const reviews: Array<ReviewRecord> = []
      for (const order of REVIEW_ORDERS) {
        const label = `second_judge:${SECOND_JUDGE}:${orderLabel(order)}`
        yield* log(input.runDirectory, `${label} started (${order === "AB" ? "A, B" : "B, A"} order)`)
        const attempt = yield* judgeOrder(input, found.executable, candidates, order, calls)
        yield* log(input.runDirectory, `${label} ${attempt.kind === "ballot" ? "completed" : `${attempt.kind}: ${attempt.error.slice(0, 300)}`}`)
        if (attempt.kind === "ballot") {
          yield* files.writeJson(path.join(input.runDirectory, REVIEWS_DIRECTORY, `second-judge-ballot-${orderLabel(order)}.json`), attempt.raw)
        }
        reviews.push(record(input, order, attempt, calls))
      }
      const evaluation = aggregateEvaluation({
        candidate_mapping: input.evaluation.candidate_mapping,
        reviews,
        comparable_dimensions: input.evaluation.comparable_dimensions
      })
      return {
        judge: SECOND_JUDGE,
        model: input.spec.model,
        status: (evaluation.missing_orders ?? []).length === 0 ? "completed" : "incomplete",
        reason: null,
        evaluation,
        winner: evaluation.winner,
        agreement: judgesAgreement(verdictOf(input.evaluation), verdictOf(evaluation)),
        calls,
        cost_usd: calls.reduce((sum, call) => sum + (call.cost_usd ?? 0), 0)
      } satisfies SecondJudgeResult
    })

    /**
     * The first judge's evaluation with the second judge's result and `judges_split` added, also
     * recorded in `reviews/evaluation.json`.
     */
    const judgeRun = Effect.fn("ClaudeJudge.judgeRun")(function*(input: SecondJudgeInput) {
      const second = yield* judge(input)
      const evaluation: Evaluation = { ...input.evaluation, second_judge: second, judges_split: second.agreement === "split" }
      yield* files.writeJson(path.join(input.runDirectory, REVIEWS_DIRECTORY, EVALUATION_FILE), evaluation)
      // The log is shown on the Run step before the user's blind vote: it names no winner.
      yield* log(input.runDirectory, `second judge ${second.status}`)
      return evaluation
    })

    return { availability, judge, judgeRun } as const
  }),
  dependencies: [FileStore.Default, RunLog.Default]
}) {}
