/**
 * Every tool's payload and the replay configuration, Schema first. The daemon, the RPC group, the CLI
 * and embedding programs decode with these Schemas and take their types from them. A field's message is
 * a `sentence` annotation (see `describeParseError`), so a payload mistake reads the same everywhere.
 */
import { Either, ParseResult, Schema } from "effect"
import { parseSecondJudge } from "../review/secondJudge.js"
import { MAX_REPLAY_THREADS } from "../product.js"
import { MODEL_ID_PATTERN } from "../ids.js"
import { excerptOf, oneOf, optionalOrNull, text, wholeNumber } from "./fields.js"
import { InspectThreadArguments, ListThreadsArguments } from "./threadPayloads.js"
import { SynthesizeRequestPayload } from "./taskSource.js"
import { excerpt, sentence } from "../toolResult.js"
import { MAX_RUNS_PAGE, RUN_STATUSES, RUN_WINNERS } from "./files.js"
import { SubmitVotePayload, VoteRunPayload } from "./votes.js"
import { RepeatsField } from "./repeats.js"
import { DateRangeFields } from "../dateRange.js"

// ---------------------------------------------------------------------------------------------------
// The replay configuration (`prepare_run`, `start_run`)

export const StateKind = Schema.Literal("git", "non_git")
export type StateKind = typeof StateKind.Type
export const MAX_REQUEST_CHARS = 200_000
export const DEFAULT_TIMEOUT_SECONDS = 3600
export const MAX_TIMEOUT_SECONDS = 24 * 3600
const requiredText = (field: string, what: string) => {
  const message = `${what} (${field}) is required and must be a non-empty string.`
  return Schema.String.pipe(
    Schema.filter((value) => value.trim() !== ""),
    Schema.annotations(sentence(message))
  )
}

const configurationText = (field: string) => optionalOrNull(text(`${field} must be a string.`))
const pathList = (field: string) =>
  optionalOrNull(
    Schema.Array(Schema.String).pipe(
      Schema.filter((paths) => paths.every((entry) => entry.trim() !== "")),
      Schema.annotations(sentence(`${field} must be a list of file paths.`)),
      Schema.filter((paths) => !paths.some((entry) => entry.split(/[\\/]/).includes("..")), sentence(`${field} must not contain "..".`))
    )
  )

/** The longest command a check or a set-up step may be, and how many of each a configuration may name. */
export const MAX_COMMAND_CHARS = 1000
export const MAX_CHECKS = 20
export const MAX_SETUP_COMMANDS = 10

/** Whether a relative directory, resolved segment by segment, leaves the directory it is relative to. */
const climbsOut = (directory: string) => {
  let depth = 0
  for (const segment of directory.split("/")) {
    if (segment === "..") depth--
    else if (segment !== "" && segment !== ".") depth++
    if (depth < 0) return true
  }
  return false
}

/** One command to run in a copy of the project: what to run and where, relative to the project (`.`). */
const commandEntry = (field: string) =>
  Schema.Struct({
    command: Schema.String.pipe(
      Schema.filter((value) => value.trim() !== "" && value.length <= MAX_COMMAND_CHARS && !/[\u0000-\u001f\u007f]/.test(value)),
      Schema.annotations(sentence(`Every command of ${field} must be one line of at most ${MAX_COMMAND_CHARS} characters, without control characters.`))
    ),
    directory: optionalOrNull(
      Schema.String.pipe(
        // Judged as it will be used: trimmed (" /etc" is absolute, " .." climbs) and resolved ("a/../.." climbs).
        Schema.filter((value) =>
          value.length <= 1000 && !value.trim().startsWith("/") && !climbsOut(value.trim()) && !value.includes("\\") &&
          !/[\u0000-\u001f\u007f]/.test(value)
        ),
        Schema.annotations(sentence(`Every directory of ${field} must be relative to the project, without "..".`))
      )
    )
  }).annotations(sentence(`Every entry of ${field} must be an object with a command (and a directory).`))

const commandList = (field: string, most: number) =>
  optionalOrNull(
    Schema.Array(commandEntry(field)).pipe(
      Schema.annotations(sentence(`${field} must be a list of commands.`)),
      Schema.maxItems(most, sentence(`${field} may name at most ${most} commands.`))
    )
  )

/** A command a configuration approved: what runs, and in which directory of the project. */
export const ApprovedCommand = Schema.Struct({ command: Schema.String, directory: Schema.String })
export type ApprovedCommand = typeof ApprovedCommand.Type

const flag = (field: string) => optionalOrNull(Schema.Boolean.annotations(sentence(`${field} must be true or false.`)))

const stateKind = (field: string, label: string) => {
  const message = `The ${label} (${field}) must be Git or Non-Git: git or non_git`
  return StateKind.annotations(sentence((actual) =>
    actual === undefined || actual === null ? `${message}.` : `${message}, not ${excerptOf(actual, 40)}.`
  ))
}

export const COMMIT_PATTERN = /^[0-9a-f]{7,64}$/i

const commit = (field: string, label: string) =>
  optionalOrNull(
    Schema.String.pipe(
      Schema.filter((value) => value === "" || COMMIT_PATTERN.test(value)),
      Schema.annotations(sentence(`The ${label} (${field}) is invalid.`))
    )
  )

const MODEL_LIST = "models must be a list of Codex model ids."
const MODEL_ID = "Every model must be a non-empty Codex model id."
const modelId = Schema.String.pipe(Schema.filter((value) => value.trim() !== ""), Schema.annotations(sentence(MODEL_ID)))

const reviewerModelId = Schema.String.pipe(
  Schema.filter((value) => value === "" || MODEL_ID_PATTERN.test(value.trim())),
  Schema.annotations(sentence("reviewer_model must be a Codex model id such as gpt-5.5."))
)

/** `claude` or `claude:MODEL`: the second judge from the other family (docs/verdicts.md); empty: none. */
export const SecondJudgeField = Schema.String.pipe(
  Schema.filter((value) => value.trim() === "" || Either.isRight(parseSecondJudge(value))),
  Schema.annotations(sentence((actual) =>
    typeof actual === "string"
      ? Either.match(parseSecondJudge(actual), { onLeft: (message) => message, onRight: () => "" })
      : "second_judge must be claude or claude:MODEL, such as claude:sonnet."
  ))
)

/**
 * A replay configuration as a request sends it. `models` (or the older single `model`) name the Codex
 * models; `null` stands for an absent field. `decodeRunConfiguration` (runConfig.ts) checks the rules
 * between fields and gives the normalised `RunConfiguration`.
 */
export const RunConfigurationInput = Schema.Struct({
  thread_id: requiredText("thread_id", "The thread"),
  request: requiredText("request", "The task request").pipe(
    Schema.maxLength(MAX_REQUEST_CHARS, sentence(`The task request (request) is longer than ${MAX_REQUEST_CHARS} characters.`))
  ),
  beginning_kind: stateKind("beginning_kind", "beginning state"),
  ending_kind: stateKind("ending_kind", "end state"),
  baseline_commit: commit("baseline_commit", "historical Git commit"),
  ending_commit: commit("ending_commit", "historical ending Git commit"),
  repo: configurationText("repo"),
  /** The folder that holds the thread's repository now (`--repo`, Configure's “Repository folder”): the beginning is found there. */
  repository_path: configurationText("repository_path"),
  source_path: configurationText("source_path"),
  message_uuid: configurationText("message_uuid"),
  created_by_claude: pathList("created_by_claude"),
  excluded_files: pathList("excluded_files"),
  carried_forward_files: pathList("carried_forward_files"),
  confirm_empty_beginning: flag("confirm_empty_beginning"),
  confirm_file_selection: flag("confirm_file_selection"),
  confirm_repository_selection: flag("confirm_repository_selection"),
  models: optionalOrNull(Schema.Array(modelId).annotations(sentence(MODEL_LIST))),
  model: optionalOrNull(modelId),
  reviewer_model: optionalOrNull(reviewerModelId),
  /** `claude` or `claude:MODEL` adds Claude as a second judge; absent, null or empty: none. */
  second_judge: optionalOrNull(SecondJudgeField),
  timeout_seconds: optionalOrNull(
    Schema.Number.pipe(
      Schema.filter((value) => Number.isInteger(value) && value >= 1 && value <= MAX_TIMEOUT_SECONDS),
      Schema.annotations(sentence(`timeout_seconds must be a whole number of seconds from 1 through ${MAX_TIMEOUT_SECONDS}.`))
    )
  ),
  range_start: configurationText("range_start"),
  range_end: configurationText("range_end"),
  /** The checks to run on every side; absent or null: the thread's (those that passed after Claude's last edit); `[]`: none. */
  checks: commandList("checks", MAX_CHECKS),
  /** The set-up commands run before the checks; absent or null: the thread's; `[]`: none. */
  setup: commandList("setup", MAX_SETUP_COMMANDS),
  repeats: RepeatsField
}).annotations(sentence("The replay configuration must be an object."))
export type RunConfigurationInput = typeof RunConfigurationInput.Type

/** A validated replay configuration: what `prepare_run` approves and `start_run` launches. */
export const RunConfiguration = Schema.Struct({
  thread_id: Schema.String,
  source_path: Schema.NullOr(Schema.String),
  message_uuid: Schema.NullOr(Schema.String),
  request: Schema.String,
  repo: Schema.NullOr(Schema.String),
  /** The repository's current place the user gave; absent: none (absent rather than null keeps older fingerprints). */
  repository_path: Schema.optional(Schema.String),
  beginning_kind: StateKind,
  ending_kind: StateKind,
  baseline_commit: Schema.NullOr(Schema.String),
  ending_commit: Schema.NullOr(Schema.String),
  created_by_claude: Schema.Array(Schema.String),
  excluded_files: Schema.Array(Schema.String),
  carried_forward_files: Schema.Array(Schema.String),
  confirm_empty_beginning: Schema.Boolean,
  confirm_file_selection: Schema.Boolean,
  confirm_repository_selection: Schema.Boolean,
  models: Schema.Array(Schema.String),
  /** The model that reviews both sides; `null`: the controller's reviewer. */
  reviewer_model: Schema.NullOr(Schema.String),
  /** The second judge, `claude` or `claude:MODEL`; absent: none (absent rather than null keeps older fingerprints). */
  second_judge: Schema.optional(Schema.String),
  timeout_seconds: Schema.Number,
  range_start: Schema.NullOr(Schema.String),
  range_end: Schema.NullOr(Schema.String),
  /** The checks approved to run on every side; `null`: the thread's own (see `defaultChecks`). */
  checks: Schema.NullOr(Schema.Array(ApprovedCommand)),
  /** The set-up commands approved to run before them; `null`: the thread's own. */
  setup: Schema.NullOr(Schema.Array(ApprovedCommand)),
  repeats: Schema.optional(Schema.Number)
})
export type RunConfiguration = typeof RunConfiguration.Type

/** `start_run`: the configuration that was prepared, its approval and its prepare token. */
export const StartRunPayload = Schema.Struct({
  approved: Schema.Literal(true).annotations(sentence("Explicit approval (approved: true) is required before starting a replay.")),
  prepare_token: Schema.String.pipe(
    Schema.minLength(32),
    Schema.annotations(sentence("Prepare and approve this exact configuration before starting (prepare_token)."))
  ),
  ...RunConfigurationInput.fields
}).annotations(sentence("The start arguments must be an object."))
export type StartRunPayload = typeof StartRunPayload.Type

// ---------------------------------------------------------------------------------------------------
// Batches (`prepare_run` / `start_run` with `configurations`)

const BATCH_SIZE = `configurations must list from 1 through ${MAX_REPLAY_THREADS} replay configurations.`

/** The batch's configurations; each entry is checked as a configuration of its own (runConfig.ts). */
const BatchConfigurations = Schema.Array(Schema.Unknown).pipe(
  Schema.annotations(sentence(BATCH_SIZE)),
  Schema.minItems(1, sentence(BATCH_SIZE)),
  Schema.maxItems(MAX_REPLAY_THREADS, sentence(BATCH_SIZE))
)

/** `prepare_run` of a batch: 1–100 configurations, each with its models, and one reviewer for all. */
export const PrepareBatchPayload = Schema.Struct({
  configurations: BatchConfigurations,
  reviewer_model: optionalOrNull(reviewerModelId),
  /** The batch's second judge, for every replay of it. */
  second_judge: optionalOrNull(SecondJudgeField),
  repeats: RepeatsField,
  /** Every thread of the batch without a Git beginning may start from an empty folder (`batch --accept-empty-beginning`). */
  accept_empty_beginning: flag("accept_empty_beginning")
}).annotations(sentence("The batch arguments must be an object."))
export type PrepareBatchPayload = typeof PrepareBatchPayload.Type

/** `start_run` of a batch: the prepared batch, its approval and its prepare token. */
export const StartBatchPayload = Schema.Struct({
  approved: StartRunPayload.fields.approved,
  prepare_token: StartRunPayload.fields.prepare_token,
  ...PrepareBatchPayload.fields
}).annotations(sentence("The start arguments must be an object."))
export type StartBatchPayload = typeof StartBatchPayload.Type

export const isBatchPayload = (input: unknown): input is { readonly configurations: unknown } =>
  typeof input === "object" && input !== null && !Array.isArray(input) && "configurations" in input &&
  (input as { configurations?: unknown }).configurations !== null

/** The fields of one configuration that a batch may not carry beside its `configurations`. */
const singleFieldsOf = (input: object) =>
  Object.keys(RunConfigurationInput.fields).filter((field) =>
    !["reviewer_model", "second_judge", "repeats"].includes(field) && (input as Record<string, unknown>)[field] !== undefined &&
    (input as Record<string, unknown>)[field] !== null
  )

const refusal = (message: string) => Schema.Never.annotations(sentence(message))

/**
 * One configuration, or a batch when the payload has `configurations`: each is decoded by its own
 * Schema, so a mistake reads as it would on its own; both at once is refused.
 */
const singleOrBatch = <S, SI, B, BI>(single: Schema.Schema<S, SI>, batch: Schema.Schema<B, BI>) =>
  Schema.transformOrFail(Schema.Unknown, Schema.Any, {
    strict: true,
    decode: (input) => {
      if (!isBatchPayload(input)) return ParseResult.decodeUnknown(single)(input)
      const mixed = singleFieldsOf(input)
      if (mixed.length > 0) {
        return ParseResult.decodeUnknown(refusal(
          `Give either configurations (a batch) or one configuration, not both (remove ${mixed.join(", ")}).`
        ))(input)
      }
      return ParseResult.decodeUnknown(batch)(input)
    },
    encode: ParseResult.succeed
  }) as unknown as Schema.Schema<S | B, SI | BI>

export const PrepareRunPayload = singleOrBatch(RunConfigurationInput, PrepareBatchPayload)
export const StartPayload = singleOrBatch(StartRunPayload, StartBatchPayload)

export const BATCH_ID_PATTERN = /^batch-[0-9TZ]+-[0-9a-f]{10}$/

const batchId = Schema.String.annotations(sentence("batch_id is required.")).pipe(
  Schema.filter((value) => BATCH_ID_PATTERN.test(value), sentence("The batch ID is invalid."))
)

/** `get_batch` and `cancel_batch`. */
export const BatchIdPayload = Schema.Struct({ batch_id: batchId }).annotations(sentence("batch_id is required."))

// ---------------------------------------------------------------------------------------------------
// Tool payloads

export const GetStatePayload = Schema.Struct({ run_id: Schema.optional(Schema.String) })
export const RunIdPayload = Schema.Struct({ run_id: Schema.String })
export const ThreadIdPayload = Schema.Struct({ thread_id: Schema.String })
export const NoPayload = Schema.Struct({})

export const ListRunsArguments = Schema.Struct({
  query: Schema.optional(Schema.String.pipe(Schema.maxLength(1000, { message: () => "must be at most 1000 characters." }))),
  status: Schema.optional(oneOf(RUN_STATUSES)),
  winner: Schema.optional(oneOf(RUN_WINNERS)),
  limit: Schema.optional(wholeNumber(1, MAX_RUNS_PAGE)),
  offset: Schema.optional(wholeNumber(0, 1_000_000)), ...DateRangeFields
})
export type ListRunsArguments = typeof ListRunsArguments.Type

export const ReportFormat = Schema.Literal("json", "html")
export type ReportFormat = typeof ReportFormat.Type

/** `get_report`: a run id and an optional format (`null` counts as absent). */
export const GetReportPayload = Schema.Struct({
  run_id: Schema.String.annotations(sentence("run_id is required.")),
  format: optionalOrNull(ReportFormat.annotations(sentence("Report format must be json or html.")))
}).annotations(sentence("run_id is required."))
export type GetReportPayload = typeof GetReportPayload.Type

/** `make_portfolio` arguments: the runs to count, and whether to answer the HTML too (the page downloads it). */
export const MakePortfolioArguments = Schema.Struct({
  run_ids: Schema.Array(Schema.String),
  include_html: Schema.optional(Schema.Boolean)
})
export type MakePortfolioArguments = typeof MakePortfolioArguments.Type

/** Every controller tool's payload, by tool name: the one declaration the registry and the RPC group share. */
export const ToolPayloads = {
  get_state: GetStatePayload,
  get_run: RunIdPayload,
  list_runs: ListRunsArguments,
  cancel_run: RunIdPayload,
  list_threads: ListThreadsArguments,
  list_threads_progress: NoPayload,
  inspect_thread: InspectThreadArguments,
  synthesize_request: SynthesizeRequestPayload,
  infer_working_directory: ThreadIdPayload,
  get_report: GetReportPayload,
  prepare_run: PrepareRunPayload,
  start_run: StartPayload,
  make_portfolio: MakePortfolioArguments,
  get_batch: BatchIdPayload,
  cancel_batch: BatchIdPayload,
  blind_candidates: VoteRunPayload,
  submit_vote: SubmitVotePayload,
  reveal_run: VoteRunPayload,
  vote_status: VoteRunPayload
} as const
export type ToolName = keyof typeof ToolPayloads
/** A tool's payload once decoded (what the tool's program receives). */
export type ToolPayload<Name extends ToolName> = (typeof ToolPayloads)[Name]["Type"]
/** A tool's payload as a caller writes it (`null` allowed where it counts as absent). */
export type ToolPayloadInput<Name extends ToolName> = (typeof ToolPayloads)[Name]["Encoded"]

/** Why a call names no controller tool: the same words over /api/call, /api/rpc and the RPC client. */
export const unknownToolMessage = (name: string) =>
  name === "open_controller" ? "open_controller is only available through MCP." : `Unknown Codex Replay tool: ${excerpt(name)}`

// ---------------------------------------------------------------------------------------------------
// open_controller (MCP)

const CONTROLLER_SESSION_ID = /^[a-f0-9]{32}$/
export const CODEX_CLI_PATH_MESSAGE = "codex_cli_path must be an absolute executable file."
const CODEX_CLI_PATH_DESCRIPTION =
  "Optional absolute path of the Codex executable the replays should drive (an executable file). Leave it out to use CODEX_CLI_PATH from the environment, or else `codex` on PATH."
const OPEN_CONTROLLER_FIELDS = ["controller_session_id", "codex_cli_path"]

/** `open_controller`'s arguments: MCP lists this Schema as the tool's input schema and decodes with it. */
export const OpenControllerArguments = Schema.Struct({
  controller_session_id: Schema.String.pipe(Schema.pattern(CONTROLLER_SESSION_ID)).annotations({
    description:
      "A new random id for this launch: exactly 32 lowercase hexadecimal characters (16 random bytes), for example from `openssl rand -hex 16`. Use a fresh id for each new controller; the same id is used only once.",
    ...sentence("The controller session ID is invalid.")
  }),
  codex_cli_path: Schema.optional(
    Schema.String.pipe(Schema.filter((value) => value.startsWith("/"))).annotations({
      // An absolute path is checked here; that it is an executable file, when the controller starts.
      jsonSchema: { type: "string", description: CODEX_CLI_PATH_DESCRIPTION },
      ...sentence(CODEX_CLI_PATH_MESSAGE)
    })
  )
}).annotations({
  parseOptions: { onExcessProperty: "error" },
  ...sentence((actual) => {
    const given = typeof actual === "object" && actual !== null ? Object.keys(actual) : []
    const unknown = given.filter((key) => !OPEN_CONTROLLER_FIELDS.includes(key))
    return unknown.length > 0 ? `Unknown argument: ${unknown.map(excerpt).join(", ")}.` : "The controller session ID is invalid."
  })
})
export type OpenControllerArguments = typeof OpenControllerArguments.Type
