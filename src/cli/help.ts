/**
 * The `--help` text of every command, in the project's words. Plain text only: it never carries
 * ANSI colour, whatever the terminal.
 */
interface CommandHelp {
  readonly usage: string
  readonly summary: string
  readonly arguments?: ReadonlyArray<readonly [string, string]>
  readonly options: ReadonlyArray<readonly [string, string]>
  readonly notes?: ReadonlyArray<string>
}

const JSON_OPTION = ["--json", "Print exactly one JSON document on stdout; progress and questions go to stderr."] as const

export const COMMAND_HELP: Readonly<Record<string, CommandHelp>> = {
  open: {
    usage: "codex-replay open",
    summary:
      "Print the URL of the local controller for this history folder, run root and Codex path, starting one if none is running. Says on stderr which controller it reused or started, and why.",
    options: []
  },
  threads: {
    usage: "codex-replay threads [--query TEXT] [--source imported|sample] [--sort date|cost] [--since DAY] [--until DAY] [--limit N] [--offset N] [--json]",
    summary:
      "List the Claude Code threads that can be replayed, newest first, as a table numbered #N as in the browser (the next command takes #N). Reads $CLAUDE_CONFIG_DIR/projects (default ~/.claude/projects); no controller needed.",
    options: [
      ["--query TEXT", "Only threads whose title, project directory, model or thread id contains TEXT (case-insensitive)."],
      ["--source imported|sample", "Your imported Claude Code threads, or the packaged sample threads."],
      ["--sort date|cost", "Most recent first (date, the default) or most expensive first (cost)."],
      ["--since DAY", "Only threads started on or after DAY (YYYY-MM-DD or YYYYMMDD, local time)."],
      ["--until DAY", "Only threads started on or before DAY (YYYY-MM-DD or YYYYMMDD, local time)."],
      ["--limit N", "Threads per page, 1 through 100 (default 20)."],
      ["--offset N", "Threads to skip, 0 through 100000 (default 0)."],
      JSON_OPTION
    ]
  },
  replay: {
    usage: "codex-replay replay <thread-id> --model MODEL [--model MODEL …] [--reviewer-model MODEL] [--second-judge claude[:MODEL]] [--check CMD …] [--setup CMD …] [--no-checks] [--repeats K] [--yes] [--accept-empty-beginning] [--repo PATH] [--json]",
    summary:
      "Replay a thread with one to four Codex models in parallel: show the configuration, ask for approval, follow each model's phase with an elapsed-time counter, then print the verdict per model and the report paths. Ctrl-C cancels the started runs.",
    arguments: [["<thread-id>", "The thread to replay: its #N in the last `codex-replay threads` listing, its ID or any unique start of it."]],
    options: [
      ["--model MODEL", "A Codex model to replay with; repeat it for several models (at most 4)."],
      ["--reviewer-model MODEL", "The Codex model that reviews both sides (default: CODEX_REPLAY_REVIEWER_MODEL, else a Codex model that implements none of the replays)."],
      ["--second-judge claude[:MODEL]", "Add Claude (Claude Code, when installed) as a second judge of the same anonymous candidates; the verdict says when the judges split."],
      ["--yes", "Approve the configuration without asking."],
      ["--accept-empty-beginning", "Replay from an empty directory although Claude changed files that already existed (not like-for-like)."],
      ["--repo PATH", "The folder that holds the thread's repository now, when it moved: it must hold the thread's start commit."],
      ["--check CMD", "A check to run on every side, from the project directory; repeat it for several. Without --check, the checks Claude ran that passed after its last edit."],
      ["--setup CMD", "A set-up command (a dependency install) to run before the checks; repeat it for several. Without --setup, the ones Claude ran."],
      ["--no-checks", "Run no check and no set-up command."],
      ["--repeats K", "Replay with each model K times from the same start, 1 through 5 (each repeat a run of its own, reviewed on its own)."],
      JSON_OPTION
    ],
    notes: ["Exit code 0 only when every run completed."]
  },
  batch: {
    usage: "codex-replay batch (--query TEXT | --threads ID,… | --recent N) --model MODEL [--model MODEL …] [--reviewer-model MODEL] [--second-judge claude[:MODEL]] [--repeats K] [--yes] [--accept-empty-beginning] [--json]",
    summary:
      "Replay many threads with the same models as one batch: configure each thread as replay does, report the blocked ones and leave them out, ask for approval, run 4 replays at a time with a progress line, then print the batch's portfolio verdict. Ctrl-C cancels the batch.",
    options: [
      ["--query TEXT", "The threads whose title, project directory, model or thread id contains TEXT (at most 100)."],
      ["--threads ID,…", "These threads, separated by commas (at most 100): each a #N of the last listing, an ID or a unique start of one."],
      ["--recent N", "The N most recent threads, 1 through 100."],
      ["--model MODEL", "A Codex model to replay every thread with; repeat it for several models (at most 4)."],
      ["--reviewer-model MODEL", "The Codex model that reviews every replay (default: CODEX_REPLAY_REVIEWER_MODEL, else a Codex model that implements none of the replays)."],
      ["--second-judge claude[:MODEL]", "Add Claude (Claude Code, when installed) as a second judge of every replay; the portfolio counts splits."],
      ["--repeats K", "Replay every (thread, model) K times from the same start, 1 through 5; the portfolio counts each thread once."],
      ["--yes", "Approve the batch without asking."],
      ["--accept-empty-beginning", "Let threads without a Git beginning start from an empty folder, even where Claude changed existing files (not like-for-like)."],
      JSON_OPTION
    ],
    notes: ["Exit code 0 only when every replay of the batch completed."]
  },
  report: {
    usage: "codex-replay report <run-id> [--open] [--json]",
    summary:
      "Print the verdict of a run (winner, dimensions won, tied and lost, time and cost on both sides, and what the evaluation itself cost) and the paths of its report.html and report.json; a cancelled or failed run says so.",
    arguments: [["<run-id>", "A run of the run root, as listed by `codex-replay runs`: its ID or any unique start of it."]],
    options: [["--open", "Open report.html with the desktop's browser."], ["--json", "Print the run's state as one JSON document on stdout (any run: a cancelled or failed one too)."]]
  },
  runs: {
    usage: "codex-replay runs [--query TEXT] [--status STATUS] [--winner WINNER] [--since DAY] [--until DAY] [--limit N] [--offset N] [--json]",
    summary: "List every replay run in the run root as a table, newest first, whichever controller ran it. No controller needed.",
    options: [
      ["--query TEXT", "Only runs whose thread title, thread id, run id, model or controller session contains TEXT (case-insensitive)."],
      ["--status running|completed|failed|cancelled", "Only runs with this status."],
      ["--winner codex|claude|tie|inconclusive", "Only runs with this verdict."],
      ["--since DAY", "Only runs started on or after DAY (YYYY-MM-DD or YYYYMMDD, local time)."],
      ["--until DAY", "Only runs started on or before DAY (YYYY-MM-DD or YYYYMMDD, local time)."],
      ["--limit N", "Runs per page, 1 through 200 (default 50)."],
      ["--offset N", "Runs to skip (default 0)."],
      JSON_OPTION
    ]
  },
  portfolio: {
    usage: "codex-replay portfolio (<run-id> … | --recent N) [--csv | --json]",
    summary:
      "Write the portfolio verdict of completed runs under the run root (portfolios/<id>/portfolio.html and portfolio.json) and print it: per Codex model, wins, ties and losses against Claude, the win rate with a 95% Wilson interval, the sign test, flips, comparability, time and cost. No controller needed.",
    arguments: [["<run-id> …", "1 to 100 completed runs, as listed by `codex-replay runs` (an ID or any unique start of one)."]],
    options: [
      ["--recent N", "Count the N most recent completed runs instead, 1 through 100."],
      ["--csv", "Print the runs as a thread × model grid in CSV, one line per run (portfolio.csv beside portfolio.html holds the same)."],
      JSON_OPTION
    ]
  },
  stop: {
    usage: "codex-replay stop [--session ID] [--json]",
    summary:
      "Stop the local controllers of this installation. A controller that is running a replay refuses and is named (exit code 1): cancel the run or wait for it first.",
    options: [["--session ID", "Stop only the controller with this session id (32 hexadecimal characters)."], JSON_OPTION]
  }
}

const table = (rows: ReadonlyArray<readonly [string, string]>) => {
  const width = Math.max(...rows.map(([name]) => name.length))
  return rows.map(([name, description]) => `  ${name.padEnd(width)}  ${description}`).join("\n")
}

export const commandHelp = (name: string) => {
  const help = COMMAND_HELP[name]
  if (help === undefined) return topLevelHelp()
  const sections = [`Usage: ${help.usage}`, help.summary]
  if (help.arguments !== undefined) sections.push(`Arguments:\n${table(help.arguments)}`)
  sections.push(`Options:\n${table([...help.options, ["--help", "Show this help."]])}`)
  if (help.notes !== undefined) sections.push(help.notes.join("\n"))
  return `${sections.join("\n\n")}\n`
}

export const topLevelHelp = () =>
  [
    "Usage: codex-replay <command> [options]",
    "Replay past Claude Code tasks with OpenAI Codex and compare the results with a blind, order-balanced review.\nWith no arguments and stdin not a terminal, codex-replay speaks MCP on stdio; `codex-replay --http` is the controller daemon.",
    `Commands:\n${table(Object.entries(COMMAND_HELP).map(([name, help]) => [name, help.summary.split(". ")[0]!.replace(/\.$/, "") + "."]))}`,
    `Options:\n${table([["--help", "Show this help; `codex-replay <command> --help` shows a command's."], ["--version", "Print the version."]])}`,
    "Settings come from the environment: CODEX_REPLAY_RUN_ROOT, CLAUDE_CONFIG_DIR, CODEX_CLI_PATH, …"
  ].join("\n\n") + "\n"

/** The help asked for on a command line, or undefined when none was. */
export const helpRequested = (argv: ReadonlyArray<string>) => {
  const args = argv.slice(2)
  if (!args.some((argument) => argument === "--help" || argument === "-h")) return undefined
  const command = args.find((argument) => !argument.startsWith("-"))
  return command !== undefined && command in COMMAND_HELP ? commandHelp(command) : topLevelHelp()
}

/** What a bare `codex-replay` on a terminal prints (on a pipe it is the MCP server). */
export const usageHint = () =>
  [
    "codex-replay replays past Claude Code tasks with OpenAI Codex and compares the results.",
    "",
    "  codex-replay open                  the browser controller's URL (starts one if none runs)",
    "  codex-replay threads               the threads you can replay, numbered #N",
    "  codex-replay replay #1 --model M   replay one with a Codex model",
    "  codex-replay runs                  the runs so far, with their verdicts and costs",
    "  codex-replay --help                every command; codex-replay <command> --help for one",
    "",
    "With stdin not a terminal, codex-replay speaks MCP on stdio (for an MCP client)."
  ].join("\n") + "\n"
