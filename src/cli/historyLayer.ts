import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import { Layer } from "effect"
import { ClaudeHistory } from "../services/history/ClaudeHistory.js"
import { Samples } from "../services/Samples.js"
import { Settings } from "../services/Settings.js"

/**
 * The history read in this process: listing threads, and naming one by `#N` or an id prefix, need no
 * controller, and only the services they read (loading the run engine's modules would cost a listing
 * answered from the index most of its time).
 */
export const HistoryLive = Layer.mergeAll(ClaudeHistory.layerWith({ workers: "auto" }), Samples.Default, NodeFileSystem.layer).pipe(
  Layer.provideMerge(Settings.fromEnv)
)
