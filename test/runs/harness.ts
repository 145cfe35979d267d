import { Effect, Either, Layer } from "effect"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { DIMENSIONS } from "../../src/domain/review/dimensions.js"
import { resolveSettings } from "../../src/domain/settings.js"
import { CoreLive, RunPipelineLive } from "../../src/layers.js"
import { Baseline } from "../../src/services/Baseline.js"
import { ClaudeHistory } from "../../src/services/history/ClaudeHistory.js"
import { CodexModels } from "../../src/services/CodexModels.js"
import { CodexWorker, type FakeAnswer } from "../../src/services/CodexWorker.js"
import type { CoordinatorRequest } from "../../src/services/RunCoordinator.js"
import { Git } from "../../src/services/Git.js"
import { Samples } from "../../src/services/Samples.js"
import { Settings } from "../../src/services/Settings.js"

export const FAKE_CODEX = fileURLToPath(new URL("../fake-codex/codex", import.meta.url))

/** A fresh cache (run root, controllers, Claude config) and the settings of a controller over it. */
export const testSettings = () => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "codex-replay-pipeline-")))
  fs.mkdirSync(path.join(root, "claude", "projects"), { recursive: true })
  const resolved = resolveSettings(
    {
      CODEX_REPLAY_RUN_ROOT: path.join(root, "runs"),
      CODEX_REPLAY_CONTROLLER_SESSION_ID: randomBytes(16).toString("hex"),
      CLAUDE_CONFIG_DIR: path.join(root, "claude"),
      CODEX_CLI_PATH: FAKE_CODEX
    },
    os.homedir(),
    () => randomBytes(16).toString("hex")
  )
  if (Either.isLeft(resolved)) throw new Error(resolved.left.message)
  fs.mkdirSync(resolved.right.runRoot, { recursive: true, mode: 0o700 })
  return resolved.right
}

/** A schema-valid ballot in which every check passes for both candidates. */
export const tieBallot = JSON.stringify({
  dimensions: Object.fromEntries(DIMENSIONS.map((dimension) => {
    const candidate = {
      checks: Object.fromEntries(dimension.checks.map((check) => [check.id, { evidence: "seen", result: 1 }])),
      score: 1
    }
    return [dimension.id, { candidates: { A: candidate, B: candidate }, comparison: "equal", reason: "Candidate A and Candidate B are equal.", winner: "tie" }]
  }))
})

export type Respond = Parameters<typeof CodexWorker.fake>[0]

/** Implementation answers with `implement`; reviewers answer a valid tie ballot. */
export const fakeWorker = (implement: Respond): Layer.Layer<CodexWorker> =>
  CodexWorker.fake((request) =>
    request.purpose === "implementation" ? implement(request) : Effect.succeed<FakeAnswer>(tieBallot)
  )

/** The model list without spawning anything. */
export const FakeModels = Layer.succeed(
  CodexModels,
  CodexModels.make({
    list: () =>
      Effect.succeed({
        options: [{ id: "gpt-5.6-sol", label: "Sol" }, { id: "gpt-5.6-terra", label: "Terra" }],
        source: "codex" as const
      })
  })
)

/** The run pipeline with its own settings, a fake worker and the real files, git and samples. */
export const pipelineLayer = (
  settings: ReturnType<typeof testSettings>,
  worker: Layer.Layer<CodexWorker>
) =>
  RunPipelineLive.pipe(
    Layer.provideMerge(Layer.mergeAll(ClaudeHistory.Default, Samples.DefaultWithoutDependencies, Baseline.DefaultWithoutDependencies, FakeModels, worker)),
    Layer.provideMerge(Git.DefaultWithoutDependencies),
    Layer.provideMerge(CoreLive),
    Layer.provideMerge(Settings.layer(settings))
  )

/** What `start_run` hands the coordinator for a non-git replay of the hello-cli sample. */
export const coordinatorRequest = (runId: string, overrides: Partial<CoordinatorRequest> = {}): CoordinatorRequest => ({
  run_id: runId,
  run_tag: runId,
  thread_id: "sample-hello-cli",
  model: "gpt-5.6-sol",
  request: "Create greet.py.",
  timeout_seconds: 600,
  workspace: { kind: "non_git", repository: null, commit: null, carriedForwardFiles: [] },
  claude: {
    model: "claude",
    patch: "",
    final_response: "Done.",
    files: [],
    worktree: null,
    elapsed_ms: 1000,
    tokens: null,
    cost: { usd: null, reason: "unknown" }
  },
  reviewer_model: "gpt-review",
  ...overrides
})
