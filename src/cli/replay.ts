import { Clock, Effect, Either, Exit, Schedule, Schema, Stream } from "effect"
import * as path from "node:path"
import { type InspectThreadResult, PhaseRow, type PrepareResult, type StartRunResult, type StoredRunState } from "../domain/contracts/index.js"
import { type CommandChoice, commandFields, commandMistake, commandsLine } from "./replayCommands.js"
import { conflict, controllerUnavailable, type ControllerError, invalidArgument } from "../domain/errors.js"
import { THREAD_ID_PATTERN } from "../domain/ids.js"
import { TERMINAL_STATUSES } from "../domain/runState.js"
import { connectController, type WatchRun } from "../rpc/client.js"
import { runPageAddress, threadPageAddress } from "./addresses.js"
import { checkModels } from "./modelChecks.js"
import { FileStore } from "../services/FileStore.js"
import { emptyBeginningRefusal, inspectArguments, relocatedLine, repositoryPathOf, withRepositoryPath } from "./relocate.js"
import { checkSecondJudge, secondJudgeLine, withSecondJudge } from "./secondJudge.js"
import { checkRepeats, repeatsLine, repeatsOfStart, withRepeats } from "./repeats.js"
import { CommandLineIo } from "./io.js"
import { ask, firstLine, isYes, makeOutput, type Output, orDash } from "./terminal.js"
import { checksLines, clock, noReportSentence, readReportJson, type Verdict, verdictLines, verdictOf } from "./verdict.js"

export interface ReplayOptions {
  readonly threadId: string
  readonly models: ReadonlyArray<string>
  /** The model that reviews; the controller's reviewer when unset. */
  readonly reviewerModel?: string | undefined
  readonly yes: boolean
  /** `--accept-empty-beginning`: an empty-directory replay although Claude changed existing files. */
  readonly acceptEmptyBeginning?: boolean
  /** `--repo PATH`: the folder that holds the thread's repository now. */
  readonly repo?: string | undefined
  /** `--check CMD` / `--setup CMD` / `--no-checks`: what runs on every side; none given is the thread's own. */
  readonly commands?: CommandChoice
  /** `--second-judge claude[:MODEL]`: Claude judges too. */
  readonly secondJudge?: string | undefined
  /** `--repeats K`: each model replays the thread K times. */
  readonly repeats?: number | undefined
  readonly json: boolean
}

const REDRAW_MILLIS = 500
/** Checks the command line before anything is contacted or written. */
export const validateReplayOptions = (options: ReplayOptions): Either.Either<ReplayOptions, ControllerError> => {
  const threadId = options.threadId.trim()
  if (!THREAD_ID_PATTERN.test(threadId)) return Either.left(invalidArgument("The thread ID is invalid; see `codex-replay threads`."))
  const mistake = commandMistake(options.commands)
  if (mistake !== undefined) return Either.left(invalidArgument(mistake))
  return Either.map(
    Either.flatMap(Either.flatMap(checkRepeats(options.repeats), () => checkSecondJudge(options.secondJudge)), () => checkModels(options.models, options.reviewerModel)),
    () => ({ ...options, threadId })
  )
}

/** Files that existed before the session and that Claude modified: an empty beginning would not be like-for-like. */
const existingFilesChanged = (inspection: InspectThreadResult) => inspection.file_selection.preexisting_files ?? []

/**
 * The configuration `prepare_run` approves, from the controller's inspection (as the browser builds it).
 * An empty beginning is confirmed by the approval of the configuration shown, except when Claude changed
 * existing files: that needs `--accept-empty-beginning`.
 */
export const configurationFrom = (
  threadId: string,
  inspection: InspectThreadResult,
  request: string,
  models: ReadonlyArray<string>,
  acceptEmptyBeginning: boolean,
  reviewerModel: string | undefined,
  repositoryIsHere: boolean,
  commands?: CommandChoice
) => {
  const { thread, baseline } = inspection
  const beginning = baseline.beginning_kind ?? baseline.source_kind
  if (beginning === undefined) {
    return Either.left(invalidArgument("No beginning state could be proposed for this thread (see its baseline note); nothing was prepared."))
  }
  return Either.right({
    thread_id: threadId,
    source_path: thread.source_path ?? null,
    message_uuid: thread.message_uuid ?? null,
    request,
    // A non-git replay only refers to the project directory when it exists on this machine (a packaged
    // sample's recorded directory does not).
    repo: typeof baseline.repository !== "string"
      ? null
      : beginning === "git" || repositoryIsHere
      ? baseline.repository
      : null,
    beginning_kind: beginning,
    ending_kind: baseline.ending_kind ?? beginning,
    baseline_commit: baseline.commit ?? null,
    ending_commit: baseline.ending_commit ?? null,
    created_by_claude: inspection.workspace.files.filter((file) => file.selected && file.kind === "created").map((file) => file.path),
    excluded_files: [],
    confirm_empty_beginning: beginning === "non_git" && (existingFilesChanged(inspection).length === 0 || acceptEmptyBeginning),
    confirm_file_selection: inspection.workspace.requires_confirmation,
    confirm_repository_selection: baseline.repository !== null && baseline.repository !== undefined,
    models,
    reviewer_model: reviewerModel ?? null,
    ...commandFields(commands)
  })
}

const describeConfiguration = (out: Output, inspection: InspectThreadResult, configuration: Configuration) =>
  Effect.gen(function*() {
    const thread = inspection.thread
    const short = (commit: unknown) => (typeof commit === "string" ? commit.slice(0, 12) : "-")
    yield* out.say(`Thread:     ${configuration.thread_id}  ${orDash(thread.title)}`)
    yield* out.say(`Request:    ${firstLine(configuration.request)}`)
    yield* out.say(`Repository: ${orDash(configuration.repo)}`)
    yield* out.say(
      `Beginning:  ${configuration.beginning_kind === "git" ? `git ${short(configuration.baseline_commit)}` : "non-git (empty directory)"}`
    )
    yield* out.say(`End:        ${configuration.ending_kind === "git" ? `git ${short(configuration.ending_commit)}` : "non-git"}`)
    const changed = claudeChangedFiles(inspection)
    if (changed.length > 0) yield* out.say(`Files:      ${changed.join(", ")}`)
    yield* out.say(`Models:     ${configuration.models.join(", ")}`)
    const gaps = inspection.capabilities.items ?? []
    for (const gap of gaps.filter((item) => item.status !== "available")) {
      yield* out.say(`Capability gap (may affect comparison fairness): ${orDash(gap.title)} — ${orDash(gap.guidance)}`)
    }
    for (const diagnostic of inspection.diagnostics) yield* out.say(`Note (${orDash(diagnostic.step)}): ${orDash(diagnostic.message)}`)
    for (const question of inspection.questions) yield* out.say(`Question: ${question}`)
  })

/** Every file Claude changed (modified and created), with its kind, as the page lists them. */
const claudeChangedFiles = (inspection: InspectThreadResult) =>
  (inspection.thread.historical_changed_files ?? [])
    .filter((file) => !file.abandoned)
    .map((file) => `${file.path} (${file.kind})`)

type Configuration = Either.Either.Right<ReturnType<typeof configurationFrom>>

/** Refuses, before anything is prepared or started, an empty beginning the user did not accept. */
const ensureEmptyBeginningAccepted = (configuration: Configuration, inspection: InspectThreadResult) => {
  const existing = existingFilesChanged(inspection)
  return configuration.beginning_kind !== "non_git" || configuration.confirm_empty_beginning || existing.length === 0
    ? Effect.void
    : Effect.fail(conflict(emptyBeginningRefusal(existing.length)))
}

/** The reviewer `prepare_run` resolved, and which models it would review as their own replay. */
const reviewerLine = (prepared: PrepareResult) => {
  const selfReview = prepared.self_review_models
  return `${orDash(prepared.reviewer_model)}${selfReview.length > 0 ? ` (self-review for ${selfReview.join(", ")})` : ""}`
}

interface Watched {
  readonly runId: string
  readonly model: string
  last: string
  state: StoredRunState | undefined
  /** When the command first saw the run, and its current phase. */
  startedAt: number
  phaseAt: number
}

const isPhaseRow = Schema.is(PhaseRow)

const phaseLabel = (state: StoredRunState) => {
  const phases = (Array.isArray(state.phases) ? state.phases : []).filter(isPhaseRow)
  const phase = typeof state.phase === "string" ? state.phase : undefined
  return phases.find((row) => row.id === phase)?.label ?? phase ?? "-"
}

const isFinished = (run: Watched) => run.state !== undefined && TERMINAL_STATUSES.has(run.state.status)

/** What a run is doing, in words: its phase, or how it ended. */
const statusLine = (state: StoredRunState) => {
  const { status, error } = state
  return TERMINAL_STATUSES.has(status)
    ? `${status}${typeof error === "string" && error !== "" ? `: ${firstLine(error, 400)}` : ""}`
    : phaseLabel(state)
}

/**
 * On a terminal: one line per model, rewritten in place, with the phase's elapsed time. Elsewhere
 * (a pipe, a file, `--json` progress on a redirected stderr): a plain line per change, with the
 * time since the run started.
 */
const progressDisplay = (out: Output, watched: ReadonlyArray<Watched>) => {
  const stream = out.person
  const live = stream.isTTY === true
  let drawn = 0
  const counterLine = (run: Watched, now: number) =>
    `[${run.model}] ${run.last}  ${clock(now - (isFinished(run) ? run.startedAt : run.phaseAt))}${isFinished(run) ? " in total" : ""}`
  return {
    /** A run changed phase or ended. */
    changed: (run: Watched, now: number) =>
      live ? Effect.void : out.say(isFinished(run) ? `[${run.model}] ${run.last} in ${clock(now - run.startedAt)}` : `[${run.model}] ${run.last} (at ${clock(now - run.startedAt)})`),
    /** Redraws the counters (terminal only). */
    tick: (now: number) =>
      Effect.sync(() => {
        if (!live) return
        const lines = watched.map((run) => `\x1b[2K${counterLine(run, now)}`)
        stream.write(`${drawn > 0 ? `\x1b[${drawn}A` : ""}${lines.map((line) => `\r${line}\n`).join("")}`)
        drawn = lines.length
      })
  }
}

/**
 * Follows every run over the controller's `watch_run` stream and shows each model's phase with an
 * elapsed-time counter until all have finished; the counters are redrawn every half second meanwhile.
 */
const watchRuns = (watchRun: WatchRun, out: Output, watched: ReadonlyArray<Watched>) =>
  Effect.gen(function*() {
    const display = progressDisplay(out, watched)
    const follow = (run: Watched) =>
      Stream.runForEach(watchRun(run.runId), (state) =>
        Effect.gen(function*() {
          run.state = state
          const line = statusLine(state)
          if (line === run.last) return
          const now = yield* Clock.currentTimeMillis
          run.last = line
          run.phaseAt = now
          yield* display.changed(run, now)
        }))
    const redraw = Effect.flatMap(Clock.currentTimeMillis, display.tick).pipe(Effect.repeat(Schedule.spaced(REDRAW_MILLIS)))
    yield* Effect.raceFirst(Effect.forEach(watched, follow, { concurrency: "unbounded", discard: true }), Effect.andThen(redraw, Effect.never))
    yield* display.tick(yield* Clock.currentTimeMillis)
    const unfinished = watched.find((run) => !isFinished(run))
    if (unfinished !== undefined) {
      return yield* controllerUnavailable(
        `The controller stopped reporting on ${unfinished.runId} before it finished.`
      )
    }
  })

const reportFile = (runRoot: string, runId: string, format: "html" | "json") => {
  const file = path.join(runRoot, runId, `report.${format}`)
  return Effect.flatMap(FileStore, (files) => files.exists(file)).pipe(
    Effect.map((exists) => (exists ? file : null)),
    Effect.orElseSucceed(() => null)
  )
}

/** The end of a replay for one model: the verdict and the report path, or why there is none. */
const printRunSummary = (
  out: Output,
  run: { readonly model: string; readonly run_id: string; readonly verdict: Verdict | null; readonly report_html: string | null },
  state?: StoredRunState
) =>
  Effect.gen(function*() {
    yield* out.say(`${run.model} (${run.run_id})`)
    if (run.verdict === null) return yield* out.say(`  ${state === undefined ? "no verdict" : noReportSentence(state)}`)
    for (const line of verdictLines(run.verdict)) yield* out.say(`  ${line}`)
    if (run.report_html !== null) yield* out.say(`  Report:  ${run.report_html}`)
    for (const line of checksLines(run.verdict.checks)) yield* out.say(`  ${line}`)
  })

/**
 * `codex-replay replay <thread> --model …`: drives this install's controller over RPC — inspect, prepare,
 * approval, start, live progress per model, report paths. Ctrl-C cancels the started runs before exiting.
 */
export const replayCommand = (raw: ReplayOptions) =>
  Effect.gen(function*() {
    const options = yield* Either.match(validateReplayOptions(raw), { onLeft: Effect.fail, onRight: Effect.succeed })
    const io = yield* CommandLineIo
    const repositoryPath = yield* repositoryPathOf(options.repo, io.cwd)
    const out = yield* makeOutput(options.json)
    const { url, call, passedOver, watchRun } = yield* connectController(io.env, io.home)
    if (passedOver !== null) yield* out.say(passedOver)
    yield* out.say(`Controller: ${url}`)
    const runRoot = (yield* call("get_state", {})).state.run_root

    const inspection = yield* call("inspect_thread", inspectArguments(options.threadId, repositoryPath))
    const blockers = inspection.blockers
    // With --repo the controller checks the folder itself and says in one sentence why it cannot be used.
    if (blockers.length > 0 && repositoryPath === undefined) {
      return yield* conflict(`This thread cannot be replayed as it is: ${blockers.join(" ")}`)
    }
    const thread = inspection.thread
    let request = thread.request
    if (thread.request_generation.method === "pending") {
      yield* out.say("Reconstructing the task prompt…")
      // The controller's answer, a model's or its fallback of the user's own messages; never the thread's recorded
      // request, which may carry Claude's account. A controller that cannot reconstruct cannot replay either.
      request = (yield* call("synthesize_request", { thread_id: options.threadId })).request
    }

    const recordedRepository = inspection.baseline.repository
    const repositoryIsHere = typeof recordedRepository === "string" &&
      (yield* Effect.orElseSucceed((yield* FileStore).exists(recordedRepository), () => false))
    const configuration = withRepositoryPath(withRepeats(options.repeats)(withSecondJudge(options.secondJudge)(yield* configurationFrom(
      options.threadId,
      inspection,
      request,
      options.models,
      options.acceptEmptyBeginning === true,
      options.reviewerModel,
      repositoryIsHere,
      options.commands
    ))), repositoryPath)
    yield* describeConfiguration(out, inspection, configuration)
    yield* out.say(`Page:       ${threadPageAddress(url, options.threadId)}`)
    if (repositoryPath === undefined) yield* ensureEmptyBeginningAccepted(configuration, inspection)
    const prepared = yield* call("prepare_run", configuration)
    // No Codex that runs and is logged in: say what to do, before any approval is asked.
    if (prepared.preflight?.ready === false) return yield* conflict(prepared.preflight.message ?? "Codex cannot run here.")
    if (repositoryPath !== undefined && "run_config" in prepared) yield* out.say(relocatedLine(prepared.run_config))
    yield* out.say(`Reviewer:   ${reviewerLine(prepared)}`)
    for (const line of [...secondJudgeLine(prepared), ...repeatsLine(prepared)]) yield* out.say(line)
    if ("checks" in prepared) {
      yield* out.say(`Checks:     ${commandsLine(prepared.checks)}`)
      yield* out.say(`Set-up:     ${commandsLine(prepared.setup)}`)
    }
    const prepareToken = prepared.prepare_token
    if (!prepared.ready || prepareToken === null) {
      return yield* conflict(`The replay is blocked: ${prepared.blockers.join(" ") || "the configuration is not ready."}`)
    }
    if (prepared.estimate !== undefined) yield* out.say(`Cost:       ${prepared.estimate.text}`)
    const taskCheck = "task_check" in prepared ? prepared.task_check ?? null : null
    if (taskCheck !== null) yield* out.say(`Task:       ${taskCheck.message}`)
    const approval = prepared.approval_prompt ?? "Approve this replay?"
    const prompt = taskCheck?.overlap.flagged === true ? `The task prompt may not be yours (${taskCheck.overlap.share === null ? "no" : `${Math.round(taskCheck.overlap.share * 100)}%`} of its words are in your messages). ${approval}` : approval
    if (options.yes) {
      yield* out.say(`${prompt} yes (--yes)`)
    } else if (!isYes(yield* ask(`${prompt} [y/N] `))) {
      return yield* conflict("The replay was not approved; nothing was started.")
    }

    // Once asked, the start must come back with its run ids, and from then on Ctrl-C cancels them: the
    // start is uninterruptible, and an interruption that arrived meanwhile is taken right after it.
    const watched: Array<Watched> = []
    const cancelAll = Effect.gen(function*() {
      yield* out.say("Cancelling…")
      yield* Effect.forEach(watched, (run) =>
        call("cancel_run", { run_id: run.runId }).pipe(
          Effect.flatMap(() => out.say(`[${run.model}] cancelled ${run.runId}`)),
          Effect.catchAll((error) => out.say(`[${run.model}] could not cancel ${run.runId}: ${error.message}`))
        ), { concurrency: "unbounded", discard: true })
    })
    const follow = Effect.gen(function*() {
      for (const error of launchErrors) yield* out.say(`[${orDash(error.model)}] could not start: ${orDash(error.error)}`)
      if (watched.length === 0) return yield* conflict("No replay could be started.")
      for (const run of watched) yield* out.say(`[${run.model}] started ${run.runId}  ${runPageAddress(url, run.runId)}`)
      yield* watchRuns(watchRun, out, watched)
    })
    let launchErrors: StartRunResult["errors"] = []
    yield* Effect.uninterruptibleMask((restore) =>
      Effect.gen(function*() {
        const started = yield* call("start_run", { ...configuration, approved: true, prepare_token: prepareToken })
        if (!("runs" in started)) return yield* Effect.dieMessage("The controller answered a replay's start without its runs.")
        launchErrors = started.errors
        for (const run of started.runs) {
          const now = yield* Clock.currentTimeMillis
          watched.push({ runId: run.run_id, model: run.model, last: "Waiting to run", state: undefined, startedAt: now, phaseAt: now })
        }
        const exit = yield* Effect.exit(restore(follow))
        // Interrupted (Ctrl-C) or failed while following: the runs must not outlive the command.
        if (Exit.isFailure(exit) && watched.length > 0) yield* cancelAll
        return yield* exit
      })
    )

    const runs = yield* Effect.forEach(watched, (run) =>
      Effect.gen(function*() {
        const reportJson = yield* reportFile(runRoot, run.runId, "json")
        return {
          run_id: run.runId,
          model: run.model,
          address: runPageAddress(url, run.runId),
          status: run.state?.status ?? "unknown",
          error: typeof run.state?.error === "string" ? run.state.error : null,
          report_html: yield* reportFile(runRoot, run.runId, "html"),
          report_json: reportJson,
          verdict: run.state === undefined ? null : verdictOf(run.state, yield* readReportJson(reportJson))
        }
      }))
    const repeats = options.repeats === undefined || options.repeats === 1 ? [] : yield* repeatsOfStart(call, watched)
    if (options.json) {
      yield* out.result({ controller_url: url, thread_id: options.threadId, thread_address: threadPageAddress(url, options.threadId), models: options.models, runs, ...(repeats.length === 0 ? {} : { repeats }) })
    } else {
      yield* out.say("")
      for (const [index, run] of runs.entries()) yield* printRunSummary(out, run, watched[index]?.state)
      for (const each of repeats) yield* out.say(each.text)
    }
    const unfinished = runs.filter((run) => run.status !== "completed")
    if (unfinished.length > 0) {
      return yield* conflict(
        `${unfinished.length} of ${runs.length} replay(s) did not complete: ${
          unfinished.map((run) => `${run.model} ${run.status}${run.error === null ? "" : ` (${firstLine(run.error, 200)})`}`).join("; ")
        }`
      )
    }
  }).pipe(Effect.scoped)
