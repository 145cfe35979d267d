import { Effect } from "effect"
import { DaemonLive } from "../layers.js"
import { runDaemon } from "../programs/daemon.js"
import { controllerTools } from "../programs/registry.js"
import { reportDownload } from "../programs/reportDownload.js"

/** `codex-replay --http`: the controller daemon. */
export const daemonMain = runDaemon({ tools: controllerTools, download: reportDownload }).pipe(
  Effect.provide(DaemonLive)
)
