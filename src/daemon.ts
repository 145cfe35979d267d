import { HttpMiddleware, HttpServer } from "@effect/platform"
import { Clock, Context, DateTime, Duration, Effect, Ref, Scope } from "effect"
import * as path from "node:path"
import type { ToolFailure } from "./domain/errors.js"
import { ATTEMPT_FILE, ATTEMPT_MAX_BYTES } from "./domain/product.js"
import { type Download, makeControllerApp } from "./http/controllerApp.js"
import { loadStaticAssets } from "./services/internal/staticAssets.js"
import { makeRpcHttpApp } from "./rpc/http.js"
import { Batches } from "./services/Batches.js"
import { ControllerRuntime } from "./services/ControllerRuntime.js"
import { FileStore } from "./services/FileStore.js"
import { RunStore } from "./services/RunStore.js"
import { RunSupervisor } from "./services/RunSupervisor.js"
import { Settings } from "./services/Settings.js"
import type { ToolRegistry } from "./programs/controller/tool.js"
import { daemonBusy } from "./services/IdleShutdown.js"
import { Shutdown } from "./services/Shutdown.js"
import { markOwnRunsInterrupted, reconcileInterruptedRuns } from "./services/Reconciliation.js"

export interface DaemonOptions<RT, RD, RS = never> {
  readonly tools: ToolRegistry<RT>
  /** Runs once the interrupted runs are marked, before the daemon serves (resuming batches). */
  readonly afterReconcile?: Effect.Effect<unknown, ToolFailure, RS>
  readonly download: (runId: unknown, format: unknown, portfolioId?: unknown) => Effect.Effect<Download, ToolFailure, RD>
  /**
   * What happens when stopping takes longer than `stopLimit` (default 15 s), with the step it is stuck in; for a
   * process that ends with the daemon. The command-line daemon exits: everything it keeps on disk survives a
   * `kill -9`, and a later daemon reconciles it.
   */
  readonly onStopStuck?: (step: string) => Effect.Effect<void>
  readonly stopLimit?: Duration.DurationInput
}

const DEFAULT_STOP_LIMIT = Duration.seconds(15)

const recordStopInAttempt = Effect.gen(function*() {
  const files = yield* FileStore
  const runtime = yield* ControllerRuntime
  const attemptPath = path.join(runtime.instanceDirectory, ATTEMPT_FILE)
  if (!(yield* files.exists(attemptPath))) return
  const at = DateTime.formatIso(DateTime.unsafeMake(yield* Clock.currentTimeMillis))
  yield* files.updateJson(attemptPath, ATTEMPT_MAX_BYTES, (attempt) =>
    Effect.succeed({ ...attempt, controller_stopped: true, controller_stopped_at: at }))
}).pipe(Effect.catchAll((error) => Effect.logWarning(`Cannot record the controller stop: ${error.message}`)))

/**
 * Tools and downloads run in the daemon's services, not in a request's context (src/http/controllerApp.ts),
 * so none may need a Scope: it would be the daemon's, and their finalizers would wait for shutdown.
 */
type WithoutScope<R> = Scope.Scope extends R ? { readonly "tools and downloads must not need a Scope": never } : unknown

/**
 * The controller daemon (`codex-replay --http`): serves docs/controller.md until `/api/shutdown`, the idle
 * rule, or an interruption (SIGTERM) ends it; every path out interrupts the runs and marks them.
 */
export const runDaemon = <RT, RD, RS = never>(options: DaemonOptions<RT, RD, RS> & WithoutScope<RT | RD>) =>
  Effect.gen(function*() {
    const settings = yield* Settings
    const files = yield* FileStore
    const runtime = yield* ControllerRuntime
    const runs = yield* RunStore
    const batches = yield* Batches
    const supervisor = yield* RunSupervisor
    const shutdown = yield* Shutdown

    yield* files.ensurePrivateDirectory(settings.runRoot)
    yield* runs.removeAbandonedCreations
    const reconciled = yield* reconcileInterruptedRuns({ atStart: true })
    if (reconciled > 0) yield* Effect.logInfo(`Marked ${reconciled} interrupted run(s) as failed.`)
    if (options.afterReconcile !== undefined) yield* options.afterReconcile
    // The reconciliation loop and the run-root watch are scoped layers of DaemonLive (src/layers.ts).

    const step = yield* Ref.make("interrupting the runs")
    yield* Effect.addFinalizer(() =>
      Effect.gen(function*() {
        yield* supervisor.interruptAll
        yield* Ref.set(step, "marking interrupted runs")
        yield* markOwnRunsInterrupted.pipe(Effect.ignore)
        yield* Ref.set(step, "writing run states")
        yield* runs.flushUnwritten
        yield* Ref.set(step, "writing batch records")
        yield* batches.flushUnwritten
        yield* Ref.set(step, "recording the stop")
        yield* recordStopInAttempt
        yield* Ref.set(step, "closing the server and the background loops")
        yield* Effect.logInfo("Codex Replay controller stopped.")
      })
    )

    const app = yield* makeControllerApp({
      tools: options.tools,
      assets: loadStaticAssets(),
      download: options.download,
      activeRuns: runs.countActive,
      busy: yield* daemonBusy(runs.countActive),
      requestShutdown: shutdown.request("shutdown requested"),
      rpc: yield* makeRpcHttpApp(options.tools)
    })
    // No tracer is exported; the platform's per-request span would cost about a third of the throughput.
    // The server copies its context for every request, so it gets only what serving needs.
    const serving = Context.make(HttpServer.HttpServer, yield* HttpServer.HttpServer).pipe(
      Context.add(Scope.Scope, yield* Scope.Scope)
    )
    yield* HttpServer.serveEffect(app).pipe(
      HttpMiddleware.withTracerDisabledWhenEffect(() => true),
      Effect.mapInputContext((_: Context.Context<never>) => serving)
    )
    yield* Effect.logInfo(`Codex Replay controller listening on ${runtime.origin}/`)

    // Added last, so the first to run on the way out: a bounded stop, whatever step does not end. It outlives
    // this scope on purpose, to cover the services' own closing; a process that stopped in time has exited.
    const onStopStuck = options.onStopStuck
    if (onStopStuck !== undefined) {
      const limit = options.stopLimit ?? DEFAULT_STOP_LIMIT
      yield* Effect.addFinalizer(() =>
        Effect.forkDaemon(Effect.sleep(limit).pipe(Effect.zipRight(Effect.flatMap(Ref.get(step), onStopStuck))))
      )
    }

    // The idle rule is a scoped layer of DaemonLive (IdleShutdownLive) that asks `Shutdown` too.
    const reason = yield* shutdown.requested
    yield* Effect.logInfo(`Stopping: ${reason}.`)
  }).pipe(Effect.scoped)
