import { Effect, Either, Layer, Ref } from "effect"
import * as path from "node:path"
import { WorkerError } from "../../src/domain/errors.js"
import { resolveSettings } from "../../src/domain/settings.js"
import { Activity } from "../../src/services/Activity.js"
import { CodexWorker, type WorkerRequest } from "../../src/services/CodexWorker.js"
import { FileStore } from "../../src/services/FileStore.js"
import { ProcessRunner } from "../../src/services/ProcessRunner.js"
import { Report } from "../../src/services/Report.js"
import { Review } from "../../src/services/Review.js"
import { ClaudeJudge } from "../../src/services/review/ClaudeJudge.js"
import { CheckRunner } from "../../src/services/checks/CheckRunner.js"
import { type CoordinatorRequest, RunCoordinator } from "../../src/services/RunCoordinator.js"
import { RunLog } from "../../src/services/RunLog.js"
import { RunStore } from "../../src/services/RunStore.js"
import { RunSupervisor } from "../../src/services/RunSupervisor.js"
import { Settings } from "../../src/services/Settings.js"
import { Workspace } from "../../src/services/Workspace.js"
import { coordinatorRequest, tieBallot } from "../runs/harness.js"
import { MemoryFiles, memoryWorkspaces, recordingProcesses, type WorkspaceHooks } from "../support/testLayers.js"

/** Settings of a controller whose run root lives in memory. */
export const memorySettings = () => {
  const resolved = resolveSettings(
    {
      CODEX_REPLAY_RUN_ROOT: "/memory/runs",
      CODEX_REPLAY_CONTROLLER_SESSION_ID: "0123456789abcdef0123456789abcdef",
      CLAUDE_CONFIG_DIR: "/memory/claude",
      CODEX_CLI_PATH: "/memory/codex"
    },
    "/memory/home",
    () => "0123456789abcdef0123456789abcdef"
  )
  if (Either.isLeft(resolved)) throw new Error(resolved.left.message)
  return resolved.right
}

export type Respond = Parameters<typeof CodexWorker.fake>[0]

export interface Engine {
  readonly files: MemoryFiles
  readonly swept: Ref.Ref<ReadonlyArray<string>>
  readonly layer: Layer.Layer<RunCoordinator | RunStore | RunSupervisor | Activity | RunLog | Settings | ProcessRunner | FileStore | Workspace | CodexWorker>
}

/**
 * The run engine as the daemon wires it (coordinator, store, supervisor, log, review, report), over files
 * in memory, workspaces without git, no processes and a fake Codex: nothing waits for anything but the clock.
 * Reviewers answer a tie unless `respond` answers them too.
 */
export interface EngineHooks extends WorkspaceHooks {
  /** Answers the reviewers (a tie by default). */
  readonly review?: Respond
  /** Runs before the report is written (block it to hold a run in `reporting`). */
  readonly beforeReport?: Effect.Effect<void>
  /** Stands for running the approved checks (none ran by default). */
  readonly checks?: Effect.Effect<null>
}

/** The real report, after `before`. */
const reportAfter = (before: Effect.Effect<void>) =>
  Layer.effect(Report, Effect.map(Report, (real) => Report.make({ write: (directory, input) => Effect.zipRight(before, real.write(directory, input)) }))).pipe(
    Layer.provide(Report.DefaultWithoutDependencies)
  )

export const makeEngine = (implement: Respond, hooks: EngineHooks = {}) =>
  Effect.map(Ref.make<ReadonlyArray<string>>([]), (swept): Engine => {
    const files = new MemoryFiles()
    const settings = memorySettings()
    files.mkdir(settings.runRoot)
    const worker = CodexWorker.fake((request) =>
      request.purpose === "implementation" ? implement(request) : hooks.review?.(request) ?? Effect.succeed(tieBallot))
    const base = Layer.mergeAll(files.layer, Settings.layer(settings), recordingProcesses(swept), worker, memoryWorkspaces(files, hooks))
    const logged = Layer.provideMerge(RunLog.DefaultWithoutDependencies, base)
    const stored = Layer.provideMerge(
      Layer.mergeAll(RunStore.DefaultWithoutDependencies, RunSupervisor.DefaultWithoutDependencies, Review.DefaultWithoutDependencies, ClaudeJudge.DefaultWithoutDependencies, reportAfter(hooks.beforeReport ?? Effect.void)),
      Layer.provideMerge(Activity.Default, logged)
    )
    // No process runs in memory: the approved checks are checked by the real runner in test/checks.
    const noChecks = Layer.succeed(CheckRunner, CheckRunner.make({
      checkRun: () => hooks.checks ?? Effect.succeed(null),
      checkState: () => Effect.die("no checks in memory"),
      checkSharedState: () => Effect.die("no checks in memory")
    }))
    return { files, swept, layer: Layer.provideMerge(RunCoordinator.Default, Layer.merge(stored, noChecks)) }
  })

/** Lets every fiber that is not waiting for the clock run until it waits (no real time passes). */
export const settle = Effect.repeatN(Effect.yieldNow(), 50)

/** Yields until `check` holds; fails the test if it never does without the clock moving. */
export const settledUntil = <E, R>(check: Effect.Effect<boolean, E, R>, what: string) =>
  Effect.gen(function*() {
    for (let round = 0; round < 2000; round++) {
      if (yield* check) return
      yield* Effect.yieldNow()
    }
    return yield* Effect.die(new Error(`${what} never happened without the clock moving`))
  })

export const retryable = new WorkerError({
  code: "stream_error",
  message: "stream_error: Codex reported an unrecoverable stream error.",
  retryable: true,
  diagnostic: { worker_code: "stream_error", exit_code: 1, system_code: null, worker_stage: "stream", elapsed_ms: 5 }
})

/** Codex's answer: writes greet.py into its workspace. */
export const writeGreeting = (files: MemoryFiles) => (request: WorkerRequest<unknown, unknown>) =>
  Effect.as(Effect.sync(() => files.writeText(path.join(request.workingDirectory, "greet.py"), "print('hi')\n")), "Done.")

/** A run directory as `start_run` leaves it, and its fiber launched. */
export const launch = (files: MemoryFiles, runId: string, overrides: Partial<CoordinatorRequest> = {}) =>
  Effect.gen(function*() {
    const runs = yield* RunStore
    const supervisor = yield* RunSupervisor
    const coordinator = yield* RunCoordinator
    const { directory } = yield* runs.create({ runId, coordinatorPid: process.pid, details: { run_tag: runId } })
    files.writeText(path.join(directory, "run.json"), JSON.stringify({ run_id: runId }))
    yield* supervisor.launch(runId, coordinator.run(directory, coordinatorRequest(runId, overrides)))
    return directory
  })

export const stateOf = (runId: string) => Effect.flatMap(RunStore, (runs) => Effect.map(runs.readOwned(runId), ({ state }) => state))
