/**
 * Codex Replay as a library (docs/controller.md#embedding): the services, their live layers, the programs, the controller's
 * RPC group, and the domain Schemas and errors. An Effect program can run
 * `prepareRun → startRun → awaitRun` with its own layers; see the README's Embedding section.
 */

// Layers ------------------------------------------------------------------------------------------
export { CoreLive, DaemonLive, EngineLive, HttpServerLive, LauncherLive } from "./layers.js"
export { replayLayer, settingsLayer, type SettingsOverrides } from "./embedding.js"

// Services ----------------------------------------------------------------------------------------
export { Activity } from "./services/Activity.js"
export { Baseline, type BaselineProposal, type BaselineRecord, type FileSelection, type StateKind } from "./services/Baseline.js"
export { ClaudeHistory, type ThreadInspection } from "./services/history/ClaudeHistory.js"
export { CodexModels, type ModelList } from "./services/CodexModels.js"
export { CodexWorker, type CodexWorkerOptions, type WorkerRequest, type WorkerResult } from "./services/CodexWorker.js"
export { ControllerClient, type KnownController } from "./services/ControllerClient.js"
export { ControllerRuntime } from "./services/ControllerRuntime.js"
export { FileStore } from "./services/FileStore.js"
export { Git, GitError } from "./services/Git.js"
export { PrepareTokens } from "./services/PrepareTokens.js"
export { ProcessRunner, type ProcessExit, type ProcessSpec } from "./services/ProcessRunner.js"
export { Report, type WrittenReport } from "./services/Report.js"
export { Review, type ReviewInput } from "./services/Review.js"
export { RunCoordinator } from "./services/RunCoordinator.js"
export { RunLog } from "./services/RunLog.js"
export { RunStore } from "./services/RunStore.js"
export { RunSupervisor } from "./services/RunSupervisor.js"
export { SampleManifest, Samples, type SampleThread } from "./services/Samples.js"
export { Settings } from "./services/Settings.js"
export { Workspace } from "./services/Workspace.js"

// Programs ----------------------------------------------------------------------------------------
export { prepareRun } from "./programs/runs/prepare.js"
export { startRun } from "./programs/runs/start.js"
export { awaitRun, type AwaitRunOptions, watchRun } from "./programs/runs/watch.js"
export { cancelRun, getRun } from "./programs/runs/cancel.js"
export { listRuns } from "./programs/runs/history.js"
export { listThreads } from "./programs/threads/threadList.js"
export { inspectThread, threadRecordById } from "./programs/threads/threads.js"
export { getReport } from "./programs/reports/reports.js"
export { makePortfolio, type WrittenPortfolio } from "./programs/portfolio/portfolio.js"
export { inferWorkingDirectory, synthesizeRequest } from "./programs/threads/requestSynthesis.js"
export { getState } from "./programs/controller/tools.js"
export {
  callTool,
  type ControllerTool,
  defineTool,
  type ToolRegistry
} from "./programs/controller/tool.js"
export { cancelRunTool, getRunTool, listRunsTool, prepareRunTool, startRunTool } from "./programs/runs/tools.js"
export { getStateTool } from "./programs/controller/tools.js"
export { controllerTools } from "./programs/registry.js"
export { runDaemon } from "./daemon.js"
export { ensureController } from "./programs/controller/ensureController.js"
export { openController } from "./programs/controller/openController.js"

// RPC ---------------------------------------------------------------------------------------------
export { ControllerRpcs, type ControllerRpcGroup, makeControllerRpcs, ToolResultSchema } from "./rpc/group.js"
export { type CallTool, connectController, findController, makeRpcCaller } from "./rpc/client.js"
export { makeRpcHttpApp } from "./rpc/http.js"

// Domain ------------------------------------------------------------------------------------------
export {
  Conflict,
  ControllerError,
  CodexUnavailable,
  ControllerUnavailable,
  FAILURE_STATUS,
  GitFailed,
  failureStatus,
  InvalidArgument,
  isControllerError,
  MachineFailure,
  NotFound,
  RunCancelled,
  SpawnFailed,
  StateTransitionConflict,
  StorageError,
  ToolFailure,
  UnreadableFile,
  WorkerDiagnostic,
  WorkerError
} from "./domain/errors.js"
export { ControllerSessionId, isControllerSessionId, isRunId, RunId } from "./domain/ids.js"
export { type Environment, type ResolvedSettings, resolveSettings } from "./domain/settings.js"
export { type ToolResult, toolFailure, toolSuccess } from "./domain/toolResult.js"
export { PHASES, type RunStatus, TERMINAL_STATUSES } from "./domain/runState.js"
export { normalizeConfiguration } from "./domain/runConfig.js"
export {
  AttemptFile,
  ControllerSettings,
  Health,
  MakePortfolioArguments,
  RunConfiguration,
  RunConfigurationInput,
  RunState,
  RuntimeFile,
  StartRunPayload,
  ListThreadsArguments,
  InspectThreadArguments,
  GetReportPayload,
  ReportFormat,
  ListRunsArguments,
  type ToolName,
  type ToolPayload,
  type ToolPayloadInput,
  ToolPayloads,
  ToolResults,
  type ToolResultOf,
  BatchSummary,
  CancelRunResult,
  ControllerState,
  GetRunResult,
  InferredWorkingDirectory,
  InspectThreadResult,
  ListingProgress,
  PortfolioResult,
  PrepareBatchResult,
  PrepareResult,
  PrepareRunResult,
  ReportResult,
  RunList,
  RunSnapshot,
  RunSummary,
  StartResult,
  StartRunResult,
  StateResult,
  SynthesizedRequest,
  Supervision,
  ThreadList,
  ThreadSummary
} from "./domain/contracts/index.js"
export { Ballot } from "./domain/review/ballot.js"
export { buildPortfolio, type Portfolio, portfolioRun } from "./domain/portfolio/portfolio.js"
export { moreThreadsForSignificance, signTestPValue, wilsonInterval } from "./domain/portfolio/statistics.js"
export { renderPortfolioHtml } from "./domain/portfolio/html.js"
export { WorkerItem, WorkerPurpose, WorkerResultData, WorkerUsage } from "./domain/worker.js"
export { VERSION } from "./services/internal/packageInfo.js"
