import { Schema } from "effect"
import { anonymizeProse } from "../review/anonymize.js"

/**
 * The checks Claude ran (tests, builds, linters), run again on three states of a replay — the start,
 * Claude's result and Codex's result — and what their outcomes mean side by side (docs/checks.md).
 * Pure: the runner (services/CheckRunner.ts) gives the outcomes, everything else reads them here.
 */

export const CheckStatus = Schema.Literal("passed", "failed", "timed_out", "could_not_run")
export type CheckStatus = typeof CheckStatus.Type

/** One approved command run on one state. */
export const CommandOutcome = Schema.Struct({
  command: Schema.String,
  directory: Schema.String,
  status: CheckStatus,
  /** The exit code when the command ended by itself. */
  exit_code: Schema.NullOr(Schema.Number),
  /** Why it timed out or could not run; null otherwise. */
  reason: Schema.NullOr(Schema.String),
  /** The output's bounded, scrubbed excerpt (stdout and stderr together, head and tail). */
  excerpt: Schema.String,
  elapsed_ms: Schema.Number,
  /**
   * For `could not run`: `state` when what the state holds may be why (command not found, a missing
   * directory, a sandbox that would not start in it, a failed set-up, a result too large to copy);
   * absent when the replay could not make the state at all. On a result, a `state` cause counts as a
   * failure when the command ran on the start: a result cannot hide a failing check by breaking it.
   */
  cause: Schema.optional(Schema.Literal("state"))
})
export type CommandOutcome = typeof CommandOutcome.Type

/** Every approved command run on one state: set-up first, then the checks. */
export const StateChecks = Schema.Struct({
  setup: Schema.Array(CommandOutcome),
  checks: Schema.Array(CommandOutcome),
  /** From the copy's creation to the last check's end. */
  elapsed_ms: Schema.Number
})
export type StateChecks = typeof StateChecks.Type

/** How a result's outcome compares with the start's (as SWE-bench counts FAIL_TO_PASS and PASS_TO_PASS). */
export const CheckChange = Schema.Literal("fixed", "kept", "broke", "still_failing", "not_comparable")
export type CheckChange = typeof CheckChange.Type

export const CHECK_STATUS_LABELS: Record<CheckStatus, string> = {
  passed: "passed",
  failed: "failed",
  timed_out: "timed out",
  could_not_run: "could not run"
}

export const CHECK_CHANGE_LABELS: Record<CheckChange, string> = {
  fixed: "fixed",
  kept: "kept",
  broke: "broke",
  still_failing: "still failing",
  not_comparable: "not comparable"
}

const ran = (status: CheckStatus) => status !== "could_not_run"
const passes = (status: CheckStatus) => status === "passed"

/** A result's outcome against the start's; a command that could not run on either is never counted against a side. */
export const changeOf = (start: CheckStatus, result: CheckStatus): CheckChange => {
  if (!ran(start) || !ran(result)) return "not_comparable"
  if (passes(start)) return passes(result) ? "kept" : "broke"
  return passes(result) ? "fixed" : "still_failing"
}

/** One check on one side of the comparison. */
export const SideCheck = Schema.Struct({
  status: CheckStatus,
  exit_code: Schema.NullOr(Schema.Number),
  reason: Schema.NullOr(Schema.String),
  change: CheckChange
})
export type SideCheck = typeof SideCheck.Type

export const CheckRow = Schema.Struct({
  command: Schema.String,
  directory: Schema.String,
  start: CheckStatus,
  claude: SideCheck,
  codex: SideCheck
})
export type CheckRow = typeof CheckRow.Type

/** A side's count: checks passed out of those that ran on it. */
export const SideTally = Schema.Struct({ passed: Schema.Number, ran: Schema.Number, could_not_run: Schema.Number })
export type SideTally = typeof SideTally.Type

/**
 * Which side does better on the checks that ran on both: `codex` when Codex passes every check Claude
 * passes and one more, `claude` the other way round, `same` when they pass the same ones, `mixed` when
 * each passes one the other fails; null when no check ran on both.
 */
export const ChecksEdge = Schema.NullOr(Schema.Literal("codex", "claude", "same", "mixed"))
export type ChecksEdge = typeof ChecksEdge.Type

/** The `checks` section of a report. */
export const ChecksComparison = Schema.Struct({
  /** The time limit of each command, in seconds. */
  time_limit_seconds: Schema.Number,
  setup: Schema.Array(Schema.Struct({ command: Schema.String, directory: Schema.String })),
  rows: Schema.Array(CheckRow),
  start: StateChecks,
  claude: StateChecks,
  codex: StateChecks,
  tally: Schema.Struct({ claude: SideTally, codex: SideTally }),
  edge: ChecksEdge,
  /** Whether Codex's result passes every check Claude's result passed; null when Claude's passed none that ran on both. */
  codex_keeps_claude_passes: Schema.NullOr(Schema.Boolean),
  /**
   * Files each result changed that a check may run or read (tests, scripts, build and linter settings):
   * a result can pass a check by changing the check, so these are named beside its outcomes.
   */
  definitions_changed: Schema.optional(Schema.Struct({
    claude: Schema.Array(Schema.String),
    codex: Schema.Array(Schema.String),
    /** False when a result's file list was cut at its ceiling: the files named may not be all. */
    complete: Schema.optional(Schema.Boolean)
  })),
  /** One sentence for every view: "checks: Codex 4 of 4, Claude 3 of 4; Codex fixed `npm test`, which Claude's result still failed". */
  sentence: Schema.String
})
export type ChecksComparison = typeof ChecksComparison.Type

/**
 * A result's outcomes as counted: a command that could not run there for a reason the state may hold
 * (`cause: "state"`) while it ran on the start is the result's failure — a result that breaks a check
 * (a test that exits 127, a folder it deleted, a set-up it broke) does not get it left out.
 */
const counted = (start: StateChecks, result: StateChecks): StateChecks => ({
  ...result,
  checks: result.checks.map((outcome) => {
    if (outcome.status !== "could_not_run" || outcome.cause !== "state") return outcome
    const atStart = start.checks.find((candidate) => keyOf(candidate) === keyOf(outcome))
    if (atStart === undefined || atStart.status === "could_not_run") return outcome
    return { ...outcome, status: "failed", reason: `${outcome.reason ?? "It could not run here."} It ran on the start, so it counts as a failure of this result.` }
  })
})

const keyOf = (command: { readonly command: string; readonly directory: string }) => `${command.directory}\u0000${command.command}`

const NOT_RUN: CommandOutcome = {
  command: "",
  directory: ".",
  status: "could_not_run",
  exit_code: null,
  reason: "It was not run on this state.",
  excerpt: "",
  elapsed_ms: 0
}

const outcomeFor = (state: StateChecks, key: string) => state.checks.find((outcome) => keyOf(outcome) === key) ?? NOT_RUN

const sideCheck = (start: CheckStatus, outcome: CommandOutcome): SideCheck => ({
  status: outcome.status,
  exit_code: outcome.exit_code,
  reason: outcome.reason,
  change: changeOf(start, outcome.status)
})

const tallyOf = (state: StateChecks): SideTally => ({
  passed: state.checks.filter((outcome) => passes(outcome.status)).length,
  ran: state.checks.filter((outcome) => ran(outcome.status)).length,
  could_not_run: state.checks.filter((outcome) => !ran(outcome.status)).length
})

export const commandLabel = (row: { readonly command: string; readonly directory: string }) =>
  row.directory === "." ? `\`${row.command}\`` : `\`${row.command}\` (in ${row.directory})`

const list = (items: ReadonlyArray<string>) =>
  items.length <= 1 ? items.join("") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`

/**
 * Files a check may run or read: test files and folders, package scripts, build files, the settings of
 * test runners, type checkers and linters. A table, not a guess per file.
 */
const CHECK_DEFINITIONS: ReadonlyArray<RegExp> = [
  /(^|\/)(package\.json|Makefile|makefile|GNUmakefile|justfile|Taskfile\.ya?ml|Rakefile|Gemfile|\.rspec)$/,
  /(^|\/)(pyproject\.toml|setup\.cfg|setup\.py|tox\.ini|pytest\.ini|noxfile\.py|conftest\.py|mypy\.ini|\.flake8|\.?ruff\.toml)$/,
  /(^|\/)(Cargo\.toml|clippy\.toml|go\.mod|build\.gradle(\.kts)?|settings\.gradle(\.kts)?|pom\.xml|mix\.exs|[^/]+\.csproj|\.golangci\.ya?ml)$/,
  /(^|\/)(tsconfig[^/]*\.json|(jest|vitest|vite|playwright|karma|babel)\.config\.[^/]+|\.eslintrc[^/]*|eslint\.config\.[^/]+|\.prettierrc[^/]*|biome\.json)$/,
  /(^|\/)(\.npmrc|\.yarnrc(\.yml)?|\.pnpmfile\.c?js|\.nvmrc|\.node-version|\.tool-versions|\.python-version)$/,
  /(^|\/)(sitecustomize|usercustomize|pytest|unittest|conftest)\.py$/,
  /(^|\/)(\.cargo\/config(\.toml)?|build\.rs|go\.work|\.mocharc[^/]*|jest\.setup\.[^/]+|vitest\.setup\.[^/]+|setupTests\.[^/]+)$/,
  /(^|\/)(tests?|__tests__|spec|specs|scripts?|bin|node_modules)\//,
  /[._-](test|spec)\.[^/]+$/,
  /(^|\/)test_[^/]+\.py$/,
  /\.(sh|bash)$/
]

const MAX_DEFINITIONS_NAMED = 20

/** The words of the approved commands a file could answer to: `./run_tests.sh`, `unittest` (`unittest.py`), `jest`. */
const commandWords = (commands: ReadonlyArray<string>) =>
  new Set(commands.flatMap((command) => command.split(/[\s;&|()<>=]+/)).map((word) => word.replace(/^\.\//, "")).filter((word) => word.length > 1))

const answersTo = (file: string, words: ReadonlySet<string>) => {
  const base = file.slice(file.lastIndexOf("/") + 1)
  return words.has(file) || words.has(base) || words.has(base.replace(/\.[^.]+$/, ""))
}

/**
 * The files among `paths` that a check may run or read (at most 20): those of the table, and those the
 * approved commands name (a script they run, a module that shadows the runner they name).
 */
export const checkDefinitions = (paths: ReadonlyArray<string>, commands: ReadonlyArray<string> = []) => {
  const words = commandWords(commands)
  return paths.filter((file) => CHECK_DEFINITIONS.some((pattern) => pattern.test(file)) || answersTo(file, words)).slice(0, MAX_DEFINITIONS_NAMED)
}

const definitionsClause = (name: string, files: ReadonlyArray<string>) =>
  files.length === 0
    ? []
    : [`${name} changed what the checks run (${files.length > 3 ? `${files.slice(0, 3).join(", ")} and ${files.length - 3} more` : list(files)}): its patch shows whether it changed a check to pass it`]

/** The sentence of a comparison: both tallies, then what differs between the sides and what both still fail. */
export const checksSentence = (
  rows: ReadonlyArray<CheckRow>,
  tally: { readonly claude: SideTally; readonly codex: SideTally },
  definitions: { readonly claude: ReadonlyArray<string>; readonly codex: ReadonlyArray<string>; readonly complete?: boolean } = { claude: [], codex: [] }
) => {
  if (rows.length === 0) return "checks: none were approved."
  const count = (name: string, side: SideTally) =>
    side.ran === 0 ? `${name} could not run any` : `${name} ${side.passed} of ${side.ran}`
  const parts = [`checks: ${count("Codex", tally.codex)}, ${count("Claude", tally.claude)}`]
  const both = rows.filter((row) => ran(row.codex.status) && ran(row.claude.status))
  const onlyCodex = both.filter((row) => passes(row.codex.status) && !passes(row.claude.status))
  const onlyClaude = both.filter((row) => passes(row.claude.status) && !passes(row.codex.status))
  const verb = (row: CheckRow, side: "codex" | "claude") => (row[side].change === "fixed" ? "fixed" : "passed")
  for (const row of onlyCodex) parts.push(`Codex ${verb(row, "codex")} ${commandLabel(row)}, which Claude's result still failed`)
  for (const row of onlyClaude) parts.push(`Claude ${verb(row, "claude")} ${commandLabel(row)}, which Codex's result failed`)
  const bothFail = both.filter((row) => !passes(row.codex.status) && !passes(row.claude.status))
  if (bothFail.length > 0) parts.push(`both results fail ${list(bothFail.map(commandLabel))}`)
  const unrun = rows.filter((row) => !ran(row.codex.status) || !ran(row.claude.status))
  if (unrun.length > 0) parts.push(`${list(unrun.map(commandLabel))} could not run on every side (not counted)`)
  parts.push(...definitionsClause("Codex's result", definitions.codex), ...definitionsClause("Claude's result", definitions.claude))
  if (definitions.complete === false) parts.push("a result changed more files than are listed, so the files the checks run that it changed may not all be named")
  return `${parts.join("; ")}.`
}

/** Which side does better on the checks that ran on both (see `ChecksEdge`). */
export const edgeOf = (rows: ReadonlyArray<CheckRow>): ChecksEdge => {
  const both = rows.filter((row) => ran(row.codex.status) && ran(row.claude.status))
  if (both.length === 0) return null
  const codexOnly = both.some((row) => passes(row.codex.status) && !passes(row.claude.status))
  const claudeOnly = both.some((row) => passes(row.claude.status) && !passes(row.codex.status))
  return codexOnly && claudeOnly ? "mixed" : codexOnly ? "codex" : claudeOnly ? "claude" : "same"
}

/** The `checks` section of a report from the three states' outcomes. */
export const compareChecks = (input: {
  readonly timeLimitSeconds: number
  readonly setup: ReadonlyArray<{ readonly command: string; readonly directory: string }>
  readonly commands: ReadonlyArray<{ readonly command: string; readonly directory: string }>
  readonly start: StateChecks
  readonly claude: StateChecks
  readonly codex: StateChecks
  /** The paths each result changed; `complete` is false when a list was cut at its ceiling. */
  readonly changedFiles?: { readonly claude: ReadonlyArray<string>; readonly codex: ReadonlyArray<string>; readonly complete?: boolean }
}): ChecksComparison => {
  const claudeState = counted(input.start, input.claude)
  const codexState = counted(input.start, input.codex)
  const rows = input.commands.map((command): CheckRow => {
    const key = keyOf(command)
    const start = outcomeFor(input.start, key).status
    return {
      command: command.command,
      directory: command.directory,
      start,
      claude: sideCheck(start, outcomeFor(claudeState, key)),
      codex: sideCheck(start, outcomeFor(codexState, key))
    }
  })
  const tally = { claude: tallyOf(claudeState), codex: tallyOf(codexState) }
  const kept = rows.filter((row) => passes(row.claude.status) && ran(row.codex.status))
  const commandTexts = [...input.commands, ...input.setup].map((command) => command.command)
  const definitions = {
    claude: checkDefinitions(input.changedFiles?.claude ?? [], commandTexts),
    codex: checkDefinitions(input.changedFiles?.codex ?? [], commandTexts),
    complete: input.changedFiles?.complete ?? true
  }
  return {
    time_limit_seconds: input.timeLimitSeconds,
    setup: input.setup.map(({ command, directory }) => ({ command, directory })),
    rows,
    start: input.start,
    claude: claudeState,
    codex: codexState,
    tally,
    edge: edgeOf(rows),
    codex_keeps_claude_passes: kept.length === 0 ? null : kept.every((row) => passes(row.codex.status)),
    definitions_changed: definitions,
    sentence: checksSentence(rows, tally, definitions)
  }
}

/**
 * What the reviewer sees of one candidate's checks: each command with its outcome at the start and on
 * the candidate, the change, and the excerpt scrubbed like the rest of the candidate (no time: it
 * differs between copies for reasons of no merit).
 */
export const reviewerChecks = (comparison: ChecksComparison, side: "codex" | "claude") =>
  // Only what ran on both results, without the reasons: why a command could not run can name a side.
  comparison.rows.filter((row) => ran(row.claude.status) && ran(row.codex.status)).map((row) => {
    const outcome = comparison[side].checks.find((candidate) => keyOf(candidate) === keyOf(row))
    return {
      command: row.command,
      directory: row.directory,
      outcome_at_start: CHECK_STATUS_LABELS[row.start],
      outcome: CHECK_STATUS_LABELS[row[side].status],
      exit_code: row[side].exit_code,
      change_from_start: CHECK_CHANGE_LABELS[row[side].change],
      output_excerpt: anonymizeProse(outcome?.excerpt ?? "")
    }
  })
export type ReviewerCheck = ReturnType<typeof reviewerChecks>[number]

/** At most this much of a command's output is kept: its head and its tail, where failures are reported. */
export const EXCERPT_HEAD = 1500
export const EXCERPT_TAIL = 4500

/** ANSI escapes and control characters other than newline and tab. */
// eslint-disable-next-line no-control-regex
const TERMINAL_NOISE = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|[\u0000-\u0008\u000b-\u001f\u007f]/g

/** Characters that reorder or hide text (bidi controls, zero-width), which could make an excerpt read as something else. */
const HIDDEN_FORMATTING = /[\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g

const printable = (text: string) => text.replace(/\r\n?/g, "\n").replace(TERMINAL_NOISE, "").replace(HIDDEN_FORMATTING, "")

/**
 * Collects a command's output as it arrives, keeping only its head and a rolling tail: a check that
 * prints gigabytes costs the daemon no more than the excerpt. `finish` gives the printable excerpt,
 * with what was left out said in between.
 */
export const excerptCollector = () => {
  let head = ""
  let tail = ""
  let total = 0
  return {
    push: (chunk: string) => {
      total += chunk.length
      if (head.length < EXCERPT_HEAD) {
        const room = EXCERPT_HEAD - head.length
        head += chunk.slice(0, room)
        chunk = chunk.slice(room)
      }
      if (chunk !== "") tail = (tail + chunk).slice(-EXCERPT_TAIL)
    },
    finish: () => {
      const omitted = total - head.length - tail.length
      return omitted <= 0 ? printable(head + tail) : `${printable(head)}\n… ${omitted} characters left out …\n${printable(tail)}`
    }
  }
}
