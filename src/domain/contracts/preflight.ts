/** Whether a Codex CLI runs here and is logged in: checked before a replay or batch is approved. */
import { Schema } from "effect"
import { NullableString } from "./resultFields.js"

/** Where the Codex CLI was found: `CODEX_CLI_PATH`, `PATH`, or the one installed with Codex Replay. */
export const CodexSource = Schema.Literal("CODEX_CLI_PATH", "PATH", "bundled")

/**
 * `ready`: a Codex CLI runs and is logged in. `codex_missing`: none was found or it would not run.
 * `not_logged_in`: `codex login status` says so. `message` is the one sentence saying what to do, null when ready.
 */
export const Preflight = Schema.Struct({
  status: Schema.Literal("ready", "codex_missing", "not_logged_in"),
  ready: Schema.Boolean,
  /** The executable that was checked (and that the replays will run), null when none was found. */
  codex_path: NullableString,
  codex_source: Schema.NullOr(CodexSource),
  /** What `codex login status` said (its "Logged in…" or "Not logged in" line), null when it did not run or said nothing. */
  login: NullableString,
  message: NullableString
})
export type Preflight = typeof Preflight.Type
