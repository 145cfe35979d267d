import { Layer } from "effect"
import type { ResolvedSettings } from "../../src/domain/settings.js"
import { CheckRunner } from "../../src/services/checks/CheckRunner.js"
import { FileStore } from "../../src/services/FileStore.js"
import { Git } from "../../src/services/Git.js"
import { NodeFilesLive } from "../../src/services/platform/nodeFiles.js"
import { ProcessRunner } from "../../src/services/ProcessRunner.js"
import { RunLog } from "../../src/services/RunLog.js"
import { Settings } from "../../src/services/Settings.js"
import { Workspace } from "../../src/services/Workspace.js"

/** The real check runner and workspaces over Node's files and processes, with the given settings. */
export const checkRunnerLayer = (settings: ResolvedSettings, graceMillis = 500) =>
  CheckRunner.DefaultWithoutDependencies.pipe(
    Layer.provideMerge(Workspace.DefaultWithoutDependencies),
    Layer.provideMerge(Layer.mergeAll(Git.DefaultWithoutDependencies, RunLog.DefaultWithoutDependencies)),
    Layer.provideMerge(Layer.mergeAll(ProcessRunner.withGrace(graceMillis), Settings.layer(settings))),
    Layer.provideMerge(FileStore.DefaultWithoutDependencies),
    Layer.provideMerge(NodeFilesLive)
  )
