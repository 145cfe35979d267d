import type { ComparabilityFacts } from "../domain/report/comparability.js"
import type { CandidateSide } from "../domain/report/report.js"
import type { ReportTaskSource } from "../domain/report/taskSourceHtml.js"
import type { RunChecks, ClaudeState } from "./checks/CheckRunner.js"
import type { ModelCall } from "./runSpend.js"
import type { WorkspacePlan } from "./Workspace.js"

/**
 * Everything one run's fiber needs. `coordinator-request.json` gets it without `claude` when the run
 * is approved, and Claude's side only once the implementation has finished: nothing the implementer
 * could read tells it what Claude did.
 */
export interface CoordinatorRequest {
  readonly run_id: string
  readonly run_tag: string
  readonly thread_id: string
  readonly model: string
  /** The task prompt; it reaches Codex on stdin through the SDK, never on a command line. */
  readonly request: string
  readonly timeout_seconds: number
  readonly workspace: WorkspacePlan
  /** Claude's historical side of the comparison. */
  readonly claude: CandidateSide
  /** How the two sides compare (beginning state, capability gaps, Claude's final response); absent in older runs. */
  readonly comparability?: ComparabilityFacts
  /** The model that reviews both sides. */
  readonly reviewer_model: string
  /** The approved checks and set-up commands (absent in older runs: none ran). */
  readonly checks?: RunChecks
  /** How Claude's result is rebuilt for its checks. */
  readonly claude_state?: ClaudeState
  /** The user's messages the task came from, kept in the report (absent in older runs). */
  readonly task_source?: ReportTaskSource | null
  /** The model call that reconstructed the request, when one did: counted in the run's spend. */
  readonly reconstruction?: ModelCall
  /** The second judge asked for (`claude` or `claude:MODEL`); absent: none. */
  readonly second_judge?: string
}

/**
 * What `coordinator-request.json` holds while the implementer works: nothing of Claude's side, not even
 * which files it changed (the comparability facts list them).
 */
export const requestWithoutClaude = (
  { claude: _claude, comparability: _comparability, claude_state: _state, ...rest }: CoordinatorRequest
) => rest
