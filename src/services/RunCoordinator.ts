import { Cause, Clock, Duration, Effect, Ref, Schedule } from "effect"
import { refreshRepeatReports, repeatsNow } from "./repeatSiblings.js"
import * as path from "node:path"
import { codexCost } from "../domain/codexPricing.js"
import { type ControllerError, invalidArgument, type MachineFailure, type WorkerError } from "../domain/errors.js"
import { MAX_PARALLEL_RUNS } from "../domain/product.js"
import type { ChecksComparison } from "../domain/checks/outcomes.js"
import type { CandidateSide } from "../domain/report/report.js"
import { tokensFromCodexUsage } from "../domain/report/tokens.js"
import { boundFinalResponse, cutSentence } from "../domain/report/ceilings.js"
import type { Evaluation } from "../domain/review/evaluation.js"
import type { PhaseId } from "../domain/runState.js"
import type { ResolvedSettings } from "../domain/settings.js"
import { markInterrupted } from "./Reconciliation.js"
import { CheckRunner } from "./checks/CheckRunner.js"
import { CodexWorker, type WorkerResult } from "./CodexWorker.js"
import { FileStore } from "./FileStore.js"
import { ProcessRunner } from "./ProcessRunner.js"
import { Report } from "./Report.js"
import { Review } from "./Review.js"
import { ClaudeJudge } from "./review/ClaudeJudge.js"
import { secondJudgeSummary, withSecondJudge } from "./review/secondJudgeStep.js"
import { RunLog } from "./RunLog.js"
import { RunStore } from "./RunStore.js"
import { Settings } from "./Settings.js"
import { type MaterialisedWorkspace, Workspace } from "./Workspace.js"
import { makeRunLedger, type RunLedger, spendLines } from "./runSpend.js"
import { secondJudgeCalls } from "../domain/spend.js"
import type { CoordinatorRequest } from "./coordinatorRequest.js"

export const IMPLEMENTATION_RETRY_LIMIT = 3
export const COORDINATOR_REQUEST_FILE = "coordinator-request.json"
export const RUN_RECORD_FILE = "run.json"

/** Retryable implementation failures: up to 3 retries, 1 s, 2 s, 4 s apart. */
export const implementationRetrySchedule = Schedule.exponential(Duration.seconds(1)).pipe(
  Schedule.intersect(Schedule.recurs(IMPLEMENTATION_RETRY_LIMIT))
)

export { type CoordinatorRequest, requestWithoutClaude } from "./coordinatorRequest.js"

/**
 * Directories no agent of this run may read: the user's repository and the thread's working directory
 * (in Claude's end state) with every folder holding their objects (a worktree's common git directory, its
 * main worktree), and the whole cache with every run root in it (the agent's own workspace below it stays
 * reachable).
 */
export const hiddenRootsOf = (request: Pick<CoordinatorRequest, "workspace">, settings: Pick<ResolvedSettings, "cacheRoot" | "runRoot">) => [
  settings.cacheRoot,
  settings.runRoot,
  ...(request.workspace.hiddenRoots ?? []),
  ...(request.workspace.repository === null ? [] : [request.workspace.repository])
].filter((root, index, all) => root !== "/" && all.indexOf(root) === index)

interface Implemented {
  readonly workspace: MaterialisedWorkspace
  readonly result: WorkerResult
}

const evaluationSummary = (evaluation: Evaluation) => ({
  winner: evaluation.winner,
  flips: evaluation.flips,
  comparable_dimensions: evaluation.comparable_dimensions,
  dimensions: Object.fromEntries(Object.entries(evaluation.dimensions).map(([id, result]) => [id, result.winner])),
  reviews: evaluation.reviews.map((review) => ({ order: review.order, status: review.status, error: review.error }))
})

const workerDiagnostic = (error: WorkerError, attempt: number) => ({
  ...error.diagnostic,
  worker_code: error.code,
  retryable: error.retryable,
  retry_count: attempt - 1,
  controller_code: "none"
})

/** The machine failures' codes in a run's diagnostic; every user error is `controller_error`. */
const MACHINE_CODES = {
  UnreadableFile: "unreadable_file",
  ControllerUnavailable: "controller_unavailable",
  StorageError: "storage_error",
  SpawnFailed: "spawn_failed",
  GitFailed: "git_failed",
  CodexUnavailable: "codex_unavailable"
} as const satisfies Record<MachineFailure["_tag"], string>

const COORDINATOR_DEFECT = "The replay coordinator failed unexpectedly; the controller's log has the cause. Replay the thread again."

const failureDetails = (error: ControllerError | WorkerError | MachineFailure) =>
  error._tag === "WorkerError"
    ? { error: error.message.slice(0, 2000) }
    : {
      error: error.message.slice(0, 2000),
      failure_diagnostic: {
        controller_code: error._tag in MACHINE_CODES ? MACHINE_CODES[error._tag as MachineFailure["_tag"]] : "controller_error",
        worker_code: "unknown",
        worker_stage: "outside_worker"
      }
    }

/**
 * The pipeline of one run (docs/controller.md), run as its fiber: wait for one of 4 slots, create the
 * workspace, implement with retries in fresh workspaces, collect, review, report. Every failure is
 * recorded in the state; an interruption leaves nothing running and nothing `running`.
 */
export class RunCoordinator extends Effect.Service<RunCoordinator>()("codex-replay/RunCoordinator", {
  effect: Effect.gen(function*() {
    const runs = yield* RunStore
    const runLog = yield* RunLog
    const files = yield* FileStore
    const processes = yield* ProcessRunner
    const workspaces = yield* Workspace
    const worker = yield* CodexWorker
    const review = yield* Review
    const report = yield* Report
    const settings = yield* Settings
    const checker = yield* CheckRunner
    const claudeJudge = yield* ClaudeJudge
    const slots = yield* Effect.makeSemaphore(MAX_PARALLEL_RUNS)

    const advance = (directory: string, phase: PhaseId, summary: string, details?: Record<string, unknown>) =>
      runs.update(directory, { phase, summary, expectedStatus: "running", ...(details === undefined ? {} : { details }) })

    const log = (directory: string, message: string) => Effect.ignore(runLog.append(directory, "controller", message))

    /** Records the diagnostic of a failed attempt; a retryable one (with retries left) is archived and retried. */
    const recordWorkerFailure = (directory: string, error: WorkerError, attempt: number) =>
      Effect.gen(function*() {
        yield* runs.update(directory, { details: { failure_diagnostic: workerDiagnostic(error, attempt) } })
        if (!error.retryable || attempt > IMPLEMENTATION_RETRY_LIMIT) return
        yield* log(
          directory,
          `implementation attempt ${attempt} failed with retryable ${error.code}; starting retry ${attempt} of ${IMPLEMENTATION_RETRY_LIMIT}`
        )
        yield* workspaces.archiveFailed(directory, attempt)
      })

    /** One implementation attempt in a fresh workspace. */
    const implementOnce = (directory: string, request: CoordinatorRequest, attempt: number, ledger?: RunLedger) =>
      Effect.gen(function*() {
        const workspace = yield* workspaces.materialise(directory, request.workspace, request.run_tag)
        yield* advance(
          directory,
          "implementing",
          attempt === 1
            ? "The approved Codex implementation is running."
            : `Retrying the Codex implementation in a fresh isolated workspace (${attempt - 1} of ${IMPLEMENTATION_RETRY_LIMIT}).`,
          { workspace: workspace.directory, implementation_attempt: attempt }
        )
        const result = yield* worker.run({
          purpose: "implementation",
          model: request.model,
          prompt: request.request,
          workingDirectory: workspace.directory,
          runDirectory: directory,
          label: attempt === 1 ? "implementation" : `implementation:retry-${attempt - 1}`,
          runTag: request.run_tag,
          hiddenRoots: hiddenRootsOf(request, settings)
        }).pipe(Effect.tapError((error) => Effect.zipRight(ledger?.failedAttempt(error, attempt) ?? Effect.void, recordWorkerFailure(directory, error, attempt))))
        yield* runs.update(directory, { details: { failure_diagnostic: null } })
        return { workspace, result } satisfies Implemented
      })

    const implement = (directory: string, request: CoordinatorRequest, ledger?: RunLedger) =>
      Effect.gen(function*() {
        const attempts = yield* Ref.make(0)
        const once = Effect.flatMap(Ref.updateAndGet(attempts, (count) => count + 1), (attempt) =>
          implementOnce(directory, request, attempt, ledger))
        return yield* Effect.retry(once, {
          schedule: implementationRetrySchedule,
          while: (error) => error._tag === "WorkerError" && error.retryable
        })
      })

    const collect = (directory: string, request: CoordinatorRequest, implemented: Implemented, ledger: RunLedger) =>
      Effect.gen(function*() {
        const changes = yield* workspaces.collect(implemented.workspace)
        const response = boundFinalResponse(implemented.result.final_response)
        const cuts = response.cut === null ? changes.cuts : [...changes.cuts, response.cut]
        if (cuts.length > 0) yield* log(directory, `Codex's output passed a ceiling: ${cuts.map((cut) => cutSentence("Codex", cut)).join(" ")}`)
        const tokens = tokensFromCodexUsage(implemented.result.usage)
        const codex: CandidateSide = {
          model: request.model,
          patch: changes.patch,
          final_response: response.text,
          files: changes.files,
          ...(cuts.length === 0 ? {} : { output_cuts: cuts }),
          worktree: implemented.workspace.directory,
          elapsed_ms: implemented.result.elapsed_ms,
          tokens,
          cost: codexCost(request.model, tokens, settings.codexPriceOverrides ?? {})
        }
        const spend = yield* ledger.implemented(implemented.result.usage)
        const recordPath = path.join(directory, RUN_RECORD_FILE)
        // Claude's side reaches the run's files only now that the implementer has finished.
        yield* files.writeJson(path.join(directory, COORDINATOR_REQUEST_FILE), request)
        yield* files.updateJson(recordPath, 16 * 1024 * 1024, (record) =>
          Effect.succeed({ ...record, claude: request.claude, codex, implementation_thread_id: implemented.result.thread_id, spend }))
        return codex
      })

    /**
     * The approved checks on the start, Claude's result and Codex's, once Codex's result is collected;
     * their comparison goes into the run's record, the review and the report.
     */
    const runChecks = (directory: string, request: CoordinatorRequest, implemented: Implemented, codex: CandidateSide) =>
      Effect.gen(function*() {
        const commands = request.checks
        if (commands === undefined || commands.checks.length === 0) return null
        const count = commands.checks.length
        yield* advance(directory, "checking", `Running ${count} approved check${count === 1 ? "" : "s"} on the start, Claude's result and Codex's result.`)
        const checks = yield* checker.checkRun({
          plan: request.workspace,
          claude: request.claude_state ?? { kind: "unavailable", reason: "This run did not record how to rebuild Claude's result." },
          claudePatch: request.claude.patch,
          codex: implemented.workspace,
          changedFiles: {
            claude: request.claude.files.map((file) => file.path),
            codex: codex.files.map((file) => file.path),
            complete: ![request.claude, codex].some((side) => (side.output_cuts ?? []).some((cut) => cut.kind === "changed_files"))
          },
          commands,
          runTag: request.run_tag,
          hiddenRoots: hiddenRootsOf(request, settings)
        })
        if (checks !== null) {
          yield* log(directory, checks.sentence)
          yield* files.updateJson(path.join(directory, RUN_RECORD_FILE), 16 * 1024 * 1024, (record) => Effect.succeed({ ...record, checks }))
        }
        return checks
      })

    /**
     * The run's phases. Its timeout covers everything but the checks, which have a time limit per
     * command of their own: slow tests never cost the user the Codex result and its review.
     */
    const pipeline = (directory: string, request: CoordinatorRequest) =>
      Effect.gen(function*() {
        const limit = request.timeout_seconds * 1000
        const started = yield* Clock.currentTimeMillis
        // Every call is written to run.json and the run's state as it is recorded: a run that ends early still shows it.
        const ledger = yield* makeRunLedger(request.model, settings.codexPriceOverrides ?? {}, request.reconstruction, (spend) =>
          Effect.zipRight(
            Effect.ignore(files.updateJson(path.join(directory, RUN_RECORD_FILE), 16 * 1024 * 1024, (record) => Effect.succeed({ ...record, spend }))),
            Effect.ignore(runs.update(directory, { details: { spend: spendLines(spend) } }))
          ))
        const { implemented, codex } = yield* Effect.gen(function*() {
          yield* advance(directory, "creating_workspace", "Creating an isolated historical workspace.")
          const implemented = yield* implement(directory, request, ledger)
          yield* advance(directory, "collecting", "The completed Codex result is being captured.", {
            implementation_thread_id: implemented.result.thread_id
          })
          return { implemented, codex: yield* collect(directory, request, implemented, ledger) }
        }).pipe(within(request, limit))
        const used = (yield* Clock.currentTimeMillis) - started
        const checks = yield* runChecks(directory, request, implemented, codex)
        yield* reviewAndReport(directory, request, codex, checks, ledger).pipe(within(request, Math.max(0, limit - used)))
      })

    const reviewAndReport = (directory: string, request: CoordinatorRequest, codex: CandidateSide, checks: ChecksComparison | null, ledger: RunLedger) =>
      Effect.gen(function*() {
        yield* advance(directory, "reviewing", "The blind review is running.")
        const { evaluation: first } = yield* review.runCounted({
          runDirectory: directory,
          request: request.request,
          codex,
          claude: request.claude,
          model: request.reviewer_model,
          runTag: request.run_tag,
          hiddenRoots: hiddenRootsOf(request, settings),
          prices: settings.codexPriceOverrides ?? {},
          onCall: (call) => Effect.asVoid(ledger.add([call])),
          ...(checks === null ? {} : { checks })
        })
        const evaluation = yield* withSecondJudge(claudeJudge, directory, request.second_judge, first, request.run_tag, (call) =>
          Effect.asVoid(ledger.add(secondJudgeCalls([call]))))
        const spend = yield* ledger.spend
        yield* advance(directory, "reporting", "Finalizing the comparison report.")
        const repeats = yield* repeatsNow(runs, request.run_id, { winner: evaluation?.winner ?? "inconclusive" })
        const written = yield* report.write(directory, {
          run_id: request.run_id,
          thread_id: request.thread_id,
          original_request: request.request,
          codex,
          claude: request.claude,
          evaluation,
          reviewer_model: request.reviewer_model,
          comparability: request.comparability,
          checks,
          task_source: request.task_source,
          spend,
          repeats
        })
        yield* runs.update(directory, {
          status: "completed",
          expectedStatus: "running",
          summary: "The replay report is ready.",
          details: {
            report_json: written.report_json,
            report_html: written.report_html,
            report_summary: {
              winner: written.report.winner,
              evaluation: evaluationSummary(evaluation),
              ...secondJudgeSummary(evaluation),
              possible_leak: written.report.integrity.matches_claude,
              spend: spendLines(spend),
              caveats: written.report.caveats ?? [],
              checks: checks === null ? null : { sentence: checks.sentence, edge: checks.edge, tally: checks.tally }
            }
          }
        })
        yield* refreshRepeatReports(runs, files, request.run_id)
      })

    const within = (request: CoordinatorRequest, millis: number) =>
      Effect.timeoutFail({
        duration: Duration.millis(millis),
        onTimeout: () =>
          invalidArgument(`The replay did not finish within ${request.timeout_seconds} seconds${(request.checks?.checks.length ?? 0) > 0 ? " (its checks not counted)" : ""}.`)
      })

    const recordFailure = (directory: string, error: ControllerError | WorkerError | MachineFailure) =>
      runs.update(directory, {
        status: "failed",
        expectedStatus: "running",
        summary: `Replay stopped: ${error.message}`,
        details: failureDetails(error)
      }).pipe(Effect.asVoid)

    /** A shutdown (not a user's cancel, which already marked the run) leaves the run failed and interrupted. */
    const markStopped = (runId: string) =>
      Effect.gen(function*() {
        const { state } = yield* runs.readOwned(runId)
        yield* markInterrupted(state, "The controller stopped before this replay finished.")
      }).pipe(Effect.provideService(RunStore, runs), Effect.ignore)

    /** The run's fiber body: never fails; its end leaves the run in a final state and no process behind. */
    const run = (directory: string, request: CoordinatorRequest): Effect.Effect<void> =>
      slots.withPermits(1)(pipeline(directory, request)).pipe(
        Effect.catchTags({
          InvalidArgument: (error) => recordFailure(directory, error),
          NotFound: (error) => recordFailure(directory, error),
          Conflict: (error) => recordFailure(directory, error),
          WorkerError: (error) => recordFailure(directory, error),
          StorageError: (error) => recordFailure(directory, error),
          UnreadableFile: (error) => recordFailure(directory, error),
          GitFailed: (error) => recordFailure(directory, error)
        }),
        // A cancelled run or a lost race: the state already says how the run ended.
        Effect.catchTags({ RunCancelled: () => Effect.void, StateTransitionConflict: () => Effect.void }),
        Effect.catchTags({
          InvalidArgument: (error) => Effect.logError(`Cannot record the run's end: ${error.message}`),
          NotFound: (error) => Effect.logError(`Cannot record the run's end: ${error.message}`),
          Conflict: (error) => Effect.logError(`Cannot record the run's end: ${error.message}`),
          StorageError: (error) => Effect.logError(`Cannot record the run's end: ${error.message}`),
          UnreadableFile: (error) => Effect.logError(`Cannot record the run's end: ${error.message}`)
        }),
        Effect.catchAllCause((cause) =>
          Cause.isInterruptedOnly(cause)
            ? Effect.failCause(cause)
            : Effect.logError("Replay coordinator failed", cause).pipe(
              // A defect is the controller's own failure, never the user's: recorded as such, its cause in the log.
              Effect.zipRight(runs.update(directory, {
                status: "failed",
                expectedStatus: "running",
                summary: `Replay stopped: ${COORDINATOR_DEFECT}`,
                details: {
                  error: COORDINATOR_DEFECT,
                  failure_diagnostic: { controller_code: "coordinator_failed", worker_code: "unknown", worker_stage: "outside_worker" }
                }
              })),
              Effect.ignore
            )),
        Effect.onInterrupt(() => markStopped(request.run_id)),
        Effect.ensuring(Effect.zipRight(processes.sweepRecorded(directory), processes.sweepTag(request.run_tag))),
        Effect.withSpan("RunCoordinator.run", { attributes: { run_id: request.run_id } })
      )

    return { run, implement } as const
  })
}) {}
