/**
 * What to do about a failed run, in one sentence, from the codes its state records
 * (`failure_diagnostic.worker_code` and `controller_code`): the page's Run view and the command line's
 * failure line say the same words.
 */

const WAIT_AND_REPLAY = "The model service was busy or limited the rate of requests: wait a few minutes, then replay it again."

const WORKER_ADVICE: Readonly<Record<string, string>> = {
  rate_limited: WAIT_AND_REPLAY,
  server_error: WAIT_AND_REPLAY,
  stream_error: "The connection to the model service dropped: check the network, then replay it again.",
  timeout: "Codex ran out of time: replay it again with a longer timeout, or a smaller part of the thread.",
  usage_limit: "Your plan's usage limit or API quota is used up: check the plan or quota (codex login status names the account), then replay it again.",
  unauthorized: "Codex is not logged in or its key was refused: run `codex login` (or set CODEX_API_KEY), then replay it again.",
  cli_unavailable: "The Codex CLI could not be run: install it (npm install -g @openai/codex) or set CODEX_CLI_PATH, run `codex login`, then replay it again.",
  spawn_failed: "The Codex CLI could not be started: install it (npm install -g @openai/codex) or set CODEX_CLI_PATH, then replay it again.",
  untrusted_directory: "Codex refused the workspace as untrusted: update the Codex CLI, then replay it again.",
  bad_request: "The model service refused the request: check that the model is offered to your account, then replay it again.",
  killed: "Codex was stopped from outside: replay it again."
}

const CONTROLLER_ADVICE: Readonly<Record<string, string>> = {
  coordinator_stopped: "The controller stopped while the run was in progress: replay it again.",
  launch_failed: "The run could not be launched: read the error above, then replay it again.",
  codex_unavailable: "The Codex CLI could not be run: install it (npm install -g @openai/codex) or set CODEX_CLI_PATH, run `codex login`, then replay it again.",
  git_failed: "Git failed on the replay's workspace: check that the repository and its start commit are still there, then replay it again.",
  storage_error: "The run root could not be written: free some disk space or fix its permissions, then replay it again."
}

const text = (value: unknown) => (typeof value === "string" && value !== "" ? value : null)

/** The codes of a run's `failure_diagnostic`, when it has one. */
const codesOf = (diagnostic: unknown): { readonly worker: string | null; readonly controller: string | null } => {
  if (typeof diagnostic !== "object" || diagnostic === null) return { worker: null, controller: null }
  return {
    worker: text(Reflect.get(diagnostic, "worker_code")),
    controller: text(Reflect.get(diagnostic, "controller_code"))
  }
}

/** The error text's own hints, for a run whose diagnostic names no code (an older run). */
const FROM_ERROR: ReadonlyArray<readonly [RegExp, string]> = [
  [/usage limit|insufficient_quota|quota/i, WORKER_ADVICE["usage_limit"] ?? ""],
  [/not logged in|unauthori[sz]ed|invalid[_ ]api[_ ]key|\b401\b/i, WORKER_ADVICE["unauthorized"] ?? ""],
  [/rate.?limit|too many requests|\b429\b|overloaded|high demand|service unavailable|\b50[234]\b/i, WAIT_AND_REPLAY]
]

/**
 * One sentence saying what to do about a failed run, from its `failure_diagnostic` (worker code first,
 * then controller code) and, for an older run without one, its error text; null when nothing is known.
 */
export const failureAdvice = (diagnostic: unknown, error: unknown): string | null => {
  const codes = codesOf(diagnostic)
  const byWorker = codes.worker === null ? undefined : WORKER_ADVICE[codes.worker]
  if (byWorker !== undefined) return byWorker
  const byController = codes.controller === null ? undefined : CONTROLLER_ADVICE[codes.controller]
  if (byController !== undefined) return byController
  const message = text(error)
  if (message === null) return null
  return FROM_ERROR.find(([pattern]) => pattern.test(message))?.[1] ?? null
}
