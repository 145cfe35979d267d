// Deep imports: the packages' index modules load every module they have (sockets, HTTP, workers…).
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Effect, Option } from "effect"
import { DEFAULT_RUNS_PAGE, MAX_RUNS_PAGE, RUN_STATUSES, RUN_WINNERS } from "../domain/runState.js"
import { commandLineOf } from "./commandLine.js"
import { CommandLogLive } from "../services/platform/commandLog.js"
import { ProcessEnvironment } from "../services/platform/environment.js"
import { configProviderOf } from "../services/Settings.js"
import { CommandLineIo, consoleOn, writeTo } from "./io.js"
import { dayOption, integerOf, json, lazily, wholeNumber } from "./options.js"
import { threadsAnsweredBy } from "./threadsCommand.js"

/**
 * The thread a command names (`#N`, a whole id or a unique prefix), resolved from the history in this process
 * before `then` asks, or starts, a controller: an unknown or ambiguous thread starts nothing. The rest of the
 * command line is checked first (`check`, given the reference with a `#N` read as an id), so that a mistake
 * there neither reads the history nor writes its index.
 */
const withThread = <A, E, R, E2>(
  reference: string,
  check: (reference: string) => Effect.Effect<void, E2>,
  then: (threadId: string) => Effect.Effect<A, E, R>
) =>
  Effect.zipRight(
    check(/^#\d+$/.test(reference.trim()) ? `n${reference.trim().slice(1)}` : reference),
    lazily(async () => {
      const [{ resolveThread }, { HistoryLive }] = await Promise.all([import("./threadRefs.js"), import("./historyLayer.js")])
      return Effect.flatMap(Effect.provide(resolveThread(reference), HistoryLive), (thread) => then(thread.threadId))
    })
  )

const launcher = <A, E, R>(program: Effect.Effect<A, E, R>) =>
  lazily(async () => {
    const { LauncherLive } = await import("../layers.js")
    return Effect.provide(program, LauncherLive)
  })

/** `CODEX_CLI_PATH`, when the terminal's environment sets it, names an executable (before any controller starts). */
const codexPathChecked = lazily(async () => {
  const { checkCodexPath } = await import("./codexPath.js")
  return Effect.flatMap(CommandLineIo, (io) => checkCodexPath(io.env))
})

/** The listing's modules are loaded only when it runs. */
const threads = threadsAnsweredBy((options) => lazily(async () => (await import("./threads.js")).threadsCommand(options)))

const modelsOption = (description: string) => Options.text("model").pipe(Options.withDescription(description), Options.repeated)
const reviewerModelOption = (description: string) =>
  Options.text("reviewer-model").pipe(Options.withDescription(description), Options.optional)
const repeatsOption = (description: string) =>
  Options.text("repeats").pipe(Options.withPseudoName("integer"), Options.withDescription(description), Options.map(integerOf), Options.optional)
const secondJudgeOption = (description: string) =>
  Options.text("second-judge").pipe(Options.withPseudoName("claude[:MODEL]"), Options.withDescription(description), Options.optional)

const open = Command.make("open", {}, () =>
  launcher(lazily(async () => {
    const { ensureKnownController } = await import("../programs/controller/ensureController.js")
    return Effect.flatMap(CommandLineIo, (io) =>
      Effect.flatMap(ensureKnownController(io.env, io.home), ({ url, explanation }) =>
        Effect.zipRight(writeTo(io.stdout, `${url}\n`), writeTo(io.stderr, `${explanation}\n`))))
  }))
).pipe(Command.withDescription(
  "Print the URL of the local controller for this history folder, run root and Codex path, starting one if none is running; says on stderr which controller it reused or started, and why."
))

const replay = Command.make("replay", {
  threadId: Args.text({ name: "thread-id" }).pipe(Args.withDescription("The thread to replay (see `codex-replay threads`).")),
  models: modelsOption("A Codex model to replay with; repeat for several models run in parallel."),
  reviewerModel: reviewerModelOption("The Codex model that reviews both sides (default: CODEX_REPLAY_REVIEWER_MODEL, else a Codex model that implements none of the replays)."),
  secondJudge: secondJudgeOption("Add Claude (Claude Code) as a second judge of the same anonymous candidates: claude or claude:MODEL."),
  yes: Options.boolean("yes").pipe(Options.withDescription("Approve the configuration without asking.")),
  acceptEmptyBeginning: Options.boolean("accept-empty-beginning").pipe(
    Options.withDescription(
      "Accept a replay from an empty directory although Claude changed files that already existed (not like-for-like)."
    )
  ),
  repo: Options.text("repo").pipe(
    Options.withPseudoName("PATH"),
    Options.withDescription("The folder that holds the thread's repository now (it moved): the replay starts from the thread's commit there."),
    Options.optional
  ),
  checks: Options.text("check").pipe(Options.withDescription("A check to run on every side; repeat for several."), Options.repeated),
  setup: Options.text("setup").pipe(Options.withDescription("A set-up command to run before the checks; repeat for several."), Options.repeated),
  noChecks: Options.boolean("no-checks").pipe(Options.withDescription("Run no check and no set-up command.")),
  repeats: repeatsOption("Replay with each model K times from the same start (1 through 5; each repeat a run of its own)."),
  json
}, (options) => {
  const replayOptions = (threadId: string) => ({
    threadId,
    models: options.models,
    reviewerModel: Option.getOrUndefined(options.reviewerModel),
    secondJudge: Option.getOrUndefined(options.secondJudge),
    yes: options.yes,
    acceptEmptyBeginning: options.acceptEmptyBeginning,
    commands: { checks: options.checks, setup: options.setup, none: options.noChecks },
    repeats: Option.getOrUndefined(options.repeats),
    repo: Option.getOrUndefined(options.repo),
    json: options.json
  })
  return withThread(
    options.threadId,
    (reference) => lazily(async () =>
      Effect.zipRight(Effect.asVoid((await import("./replay.js")).validateReplayOptions(replayOptions(reference))), codexPathChecked)
    ),
    (threadId) => launcher(lazily(async () => (await import("./replay.js")).replayCommand(replayOptions(threadId))))
  )
}).pipe(Command.withDescription("Replay a thread with Codex: prepare, approve, run with live progress, report."))

const batch = Command.make("batch", {
  query: Options.text("query").pipe(
    Options.withPseudoName("text"),
    Options.withDescription("Replay the threads whose title, project directory, model or thread id contains this text (at most 100)."),
    Options.optional
  ),
  threads: Options.text("threads").pipe(
    Options.withPseudoName("id,…"),
    Options.withDescription("Replay these threads: thread ids separated by commas (at most 100)."),
    Options.optional
  ),
  recent: Options.text("recent").pipe(
    Options.withPseudoName("integer"),
    Options.withDescription("Replay the N most recent threads: a whole number from 1 through 100."),
    Options.map(integerOf),
    Options.optional
  ),
  models: modelsOption("A Codex model to replay every thread with; repeat for several models."),
  reviewerModel: reviewerModelOption("The Codex model that reviews every replay (default: CODEX_REPLAY_REVIEWER_MODEL, else a Codex model that implements none of the replays)."),
  secondJudge: secondJudgeOption("Add Claude (Claude Code) as a second judge of every replay: claude or claude:MODEL."),
  yes: Options.boolean("yes").pipe(Options.withDescription("Approve the batch without asking.")),
  repeats: repeatsOption("Replay every (thread, model) K times from the same start (1 through 5; each repeat a run of its own)."),
  acceptEmptyBeginning: Options.boolean("accept-empty-beginning").pipe(
    Options.withDescription("Let threads without a Git beginning start from an empty folder, even where Claude changed existing files (not like-for-like).")
  ),
  json
}, (options) =>
  Effect.zipRight(codexPathChecked, lazily(async () => (await import("./batchSelection.js")).selectBatchThreads({
    query: Option.getOrUndefined(options.query),
    threads: Option.getOrUndefined(options.threads),
    recent: Option.getOrUndefined(options.recent),
    models: options.models,
    reviewerModel: Option.getOrUndefined(options.reviewerModel),
    secondJudge: Option.getOrUndefined(options.secondJudge)
  })).pipe(Effect.flatMap((selected) => launcher(lazily(async () =>
    (await import("./batch.js")).batchCommand(
      {
        threads: selected.threads,
        titles: selected.titles,
        models: options.models,
        reviewerModel: Option.getOrUndefined(options.reviewerModel),
        secondJudge: Option.getOrUndefined(options.secondJudge),
        yes: options.yes,
        repeats: Option.getOrUndefined(options.repeats),
        acceptEmptyBeginning: options.acceptEmptyBeginning,
        json: options.json
      }
    )
  )))))
).pipe(Command.withDescription("Replay many threads with the same models as one batch, 4 replays at a time, and print its portfolio verdict."))

const report = Command.make("report", {
  runId: Args.text({ name: "run-id" }).pipe(Args.withDescription("The run whose report to show.")),
  open: Options.boolean("open").pipe(Options.withDescription("Open the HTML report with the desktop's browser.")),
  json
}, (options) =>
  launcher(lazily(async () =>
    (await import("./report.js")).reportCommand({ runId: options.runId, open: options.open, json: options.json })
  )))
  .pipe(Command.withDescription("Print the paths of a run's report (and open it)."))

const runs = Command.make("runs", {
  query: Options.text("query").pipe(
    Options.withPseudoName("text"),
    Options.withDescription("Only runs whose thread title, thread id, run id, model or controller session contains this text (case-insensitive)."),
    Options.optional
  ),
  status: Options.choice("status", RUN_STATUSES).pipe(Options.withDescription("Only runs with this status."), Options.optional),
  winner: Options.choice("winner", RUN_WINNERS).pipe(Options.withDescription("Only runs with this verdict."), Options.optional),
  limit: wholeNumber("limit", `Runs per page: a whole number from 1 through ${MAX_RUNS_PAGE}.`, DEFAULT_RUNS_PAGE),
  offset: wholeNumber("offset", "Runs to skip: a whole number from 0 through 1000000.", 0),
  since: dayOption("since", "Only runs started on or after this day (YYYY-MM-DD or YYYYMMDD)."),
  until: dayOption("until", "Only runs started on or before this day (YYYY-MM-DD or YYYYMMDD)."),
  json
}, (options) =>
  lazily(async () => (await import("./runs.js")).runsCommand({
    since: Option.getOrUndefined(options.since),
    until: Option.getOrUndefined(options.until),
    query: Option.getOrUndefined(options.query),
    status: Option.getOrUndefined(options.status),
    winner: Option.getOrUndefined(options.winner),
    limit: options.limit,
    offset: options.offset,
    json: options.json
  }))).pipe(Command.withDescription("List every replay run in the run root, newest first, whichever controller ran it."))

const portfolio = Command.make("portfolio", {
  runIds: Args.text({ name: "run-id" }).pipe(
    Args.withDescription("A completed run to count (see `codex-replay runs`); repeat for each run."),
    Args.repeated
  ),
  recent: Options.text("recent").pipe(
    Options.withPseudoName("integer"),
    Options.withDescription("Count the N most recent completed runs instead: a whole number from 1 through 100."),
    Options.map(integerOf),
    Options.optional
  ),
  csv: Options.boolean("csv").pipe(Options.withDescription("Print the runs as a thread × model grid in CSV (also written beside portfolio.html as portfolio.csv).")),
  json
}, (options) =>
  lazily(async () => (await import("./portfolio.js")).portfolioCommand({
    runIds: options.runIds,
    recent: Option.getOrUndefined(options.recent),
    json: options.json,
    csv: options.csv
  }))).pipe(Command.withDescription(
    "The portfolio verdict of completed runs: per Codex model, wins, ties and losses against Claude with a 95% Wilson interval and a sign test, flips, comparability, time and cost; writes portfolio.html and portfolio.json under the run root."
  ))

const stop = Command.make("stop", {
  session: Options.text("session").pipe(
    Options.withPseudoName("id"),
    Options.withDescription("Stop only the controller with this session id (32 hexadecimal characters) instead of every controller of this installation."),
    Options.optional
  ),
  json
}, (options) =>
  launcher(lazily(async () =>
    (await import("./stop.js")).stopCommand({ session: Option.getOrUndefined(options.session), json: options.json })
  )))
  .pipe(Command.withDescription(
    "Stop the local controllers of this installation (or one with --session). A controller running a replay refuses and is named."
  ))

/** The terminal commands, whose flags are those of their help (`COMMAND_HELP`). */
export const COMMANDS = [open, threads, replay, batch, report, runs, portfolio, stop] as const

/** The terminal commands (docs/controller.md#embedding). */
export const commandLineMain = commandLineOf(COMMANDS)

/**
 * A terminal command on the terminal `CommandLineIo` gives (this process's, unless a caller provides another):
 * its variables are the settings' (`Config`) and what children inherit, its streams take the output, and its
 * log goes to the command log under its run root.
 */
export const terminalCommand = (argv: ReadonlyArray<string>) =>
  Effect.flatMap(CommandLineIo, (io) =>
    commandLineMain(argv).pipe(
      Effect.withConfigProvider(configProviderOf(io.env)),
      Effect.provideService(ProcessEnvironment, io.env),
      Effect.withConsole(consoleOn(io)),
      Effect.provide(CommandLogLive(io.env, io.home))
    ))
