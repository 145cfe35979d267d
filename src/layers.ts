import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Duration, Effect, Fiber, Layer } from "effect"
import type { Server } from "node:http"
import { invalidArgument } from "./domain/errors.js"
import { CONTROLLER_HOST, controllerOrigin } from "./domain/product.js"
import { createHoldingServer } from "./http/heldRequests.js"
import { Activity } from "./services/Activity.js"
import { Baseline } from "./services/Baseline.js"
import { Batches } from "./services/Batches.js"
import { BlindBallots } from "./services/BlindBallots.js"
import { ClaudeHistory } from "./services/history/ClaudeHistory.js"
import { CodexModels } from "./services/CodexModels.js"
import { CodexPreflight } from "./services/CodexPreflight.js"
import { CheckRunner } from "./services/checks/CheckRunner.js"
import { CodexWorker } from "./services/CodexWorker.js"
import { Git } from "./services/Git.js"
import { PrepareTokens } from "./services/PrepareTokens.js"
import { Report } from "./services/Report.js"
import { Review } from "./services/Review.js"
import { ClaudeJudge } from "./services/review/ClaudeJudge.js"
import { RunCoordinator } from "./services/RunCoordinator.js"
import { Workspace } from "./services/Workspace.js"
import { Samples } from "./services/Samples.js"
import { ControllerClient } from "./services/ControllerClient.js"
import { ControllerRuntime } from "./services/ControllerRuntime.js"
import { FileStore } from "./services/FileStore.js"
import { isSocketDescriptor, NodeFilesLive } from "./services/platform/nodeFiles.js"
import { ProcessRunner } from "./services/ProcessRunner.js"
import { IdleShutdownLive } from "./services/IdleShutdown.js"
import { AttemptReportLive } from "./services/AttemptReport.js"
import { BackgroundLoopsLive } from "./services/Reconciliation.js"
import { RunLog } from "./services/RunLog.js"
import { RunStore } from "./services/RunStore.js"
import { RunSupervisor } from "./services/RunSupervisor.js"
import { Settings } from "./services/Settings.js"
import { Shutdown } from "./services/Shutdown.js"

/** Files, logs, processes and the run store, over the given settings. Each service exists once. */
export const CoreLive = Layer.mergeAll(RunStore.DefaultWithoutDependencies, RunSupervisor.DefaultWithoutDependencies).pipe(
  Layer.provideMerge(Layer.mergeAll(RunLog.DefaultWithoutDependencies, Activity.Default, ProcessRunner.DefaultWithoutDependencies)),
  Layer.provideMerge(FileStore.DefaultWithoutDependencies),
  Layer.provideMerge(NodeFilesLive)
)

/** The replay engine's discovery and the Codex worker, over the core services. */
const DiscoveryLive = Layer.mergeAll(
  ClaudeHistory.Default,
  CodexModels.Default,
  Samples.DefaultWithoutDependencies,
  Baseline.DefaultWithoutDependencies,
  CodexWorker.DefaultWithoutDependencies
).pipe(Layer.provideMerge(Git.DefaultWithoutDependencies))

/** The run pipeline (docs/controller.md): prepare tokens, workspaces, review, report and the coordinator. */
export const RunPipelineLive = Layer.mergeAll(RunCoordinator.Default, PrepareTokens.Default, BlindBallots.Default, Batches.DefaultWithoutDependencies, CodexPreflight.Default).pipe(
  Layer.provideMerge(CheckRunner.DefaultWithoutDependencies),
  Layer.provideMerge(Layer.mergeAll(
    Workspace.DefaultWithoutDependencies,
    Review.DefaultWithoutDependencies,
    ClaudeJudge.DefaultWithoutDependencies,
    Report.DefaultWithoutDependencies
  ))
)

/** Discovery, the Codex worker and the run pipeline, over the core services. */
export const EngineLive = RunPipelineLive.pipe(Layer.provideMerge(DiscoveryLive))

/** How long shutdown waits for open requests (a slow download) before it cuts their connections. */
const CLOSE_GRACE_MILLIS = 2000

/** Stops accepting, lets open requests finish for a moment, then cuts what is left so shutdown never hangs. */
const closeWithin = (server: Server, graceMillis: number) =>
  Effect.gen(function*() {
    if (!server.listening) return
    // A finalizer is uninterruptible and a fork inherits that: without `interruptible` the interrupt below
    // would wait out the whole grace even when the server closed at once.
    const cut = yield* Effect.fork(
      Effect.interruptible(Effect.delay(Effect.sync(() => server.closeAllConnections()), Duration.millis(graceMillis)))
    )
    yield* Effect.async<void>((resume) => void server.close(() => resume(Effect.void)))
    yield* Fiber.interrupt(cut)
  })

/** Binds 127.0.0.1 on the preferred port, or listens on the socket a launcher reserved for us. */
export const HttpServerLive = Layer.unwrapEffect(
  Effect.flatMap(Settings, (settings) => {
    const fd = settings.inheritedSocketFd
    // Anything but a socket is refused here: Node aborts the whole process when asked to listen on one of its own pipes.
    if (fd !== undefined && !isSocketDescriptor(fd)) {
      return Effect.fail(invalidArgument(`CODEX_REPLAY_CONTROLLER_SOCKET_FD ${fd} is not an open socket.`))
    }
    const server = createHoldingServer()
    const listening = NodeHttpServer.layer(
      () => server,
      settings.inheritedSocketFd === undefined
        ? { port: settings.preferredPort, host: CONTROLLER_HOST }
        : ({ fd: settings.inheritedSocketFd } as never)
    ).pipe(
      Layer.mapError((error) => {
        const reason = error.cause instanceof Error ? error.cause.message : String(error.cause)
        return invalidArgument(
          settings.inheritedSocketFd === undefined
            ? `Cannot bind the controller to ${controllerOrigin(settings.preferredPort)}: ${reason}`
            : `Cannot listen on the socket handed over as file descriptor ${settings.inheritedSocketFd}: ${reason}`
        )
      })
    )
    // Built after the listener, so released before the platform's own close (which waits forever).
    const boundedClose = Layer.scopedDiscard(Effect.addFinalizer(() => closeWithin(server, CLOSE_GRACE_MILLIS)))
    return Effect.succeed(Layer.provideMerge(boundedClose, listening))
  })
)
/** Everything the daemon needs, from the environment. */
export const DaemonLive = Layer.mergeAll(ControllerRuntime.DefaultWithoutDependencies, BackgroundLoopsLive, IdleShutdownLive, AttemptReportLive).pipe(
  Layer.provideMerge(Shutdown.Default),
  Layer.provideMerge(HttpServerLive),
  Layer.provideMerge(EngineLive),
  Layer.provideMerge(CoreLive),
  Layer.provideMerge(Settings.fromEnv)
)

/** What launching and probing controllers needs (MCP and the CLI). */
export const LauncherLive = ControllerClient.DefaultWithoutDependencies.pipe(
  Layer.provideMerge(ProcessRunner.DefaultWithoutDependencies),
  Layer.provideMerge(FileStore.DefaultWithoutDependencies),
  Layer.provideMerge(NodeFilesLive)
)
