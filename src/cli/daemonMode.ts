import { Effect } from "effect"
import { DaemonLive } from "../layers.js"
import { resumeBatches } from "../programs/batches/start.js"
import { runDaemon } from "../daemon.js"
import { controllerTools } from "../programs/registry.js"
import { controllerDownload } from "../programs/portfolio/portfolioDownload.js"

/** `codex-replay --http`: the controller daemon. */
export const daemonMain = runDaemon({
  tools: controllerTools,
  download: controllerDownload,
  afterReconcile: resumeBatches,
  onStopStuck: (step) =>
    Effect.logError(`The controller did not stop within 15 s (stuck ${step}); it exits now.`).pipe(
      Effect.zipRight(Effect.sync(() => process.exit(1)))
    )
}).pipe(
  Effect.provide(DaemonLive)
)
