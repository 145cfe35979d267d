/** What `codex-replay replay` runs on every side: `--check`, `--setup` and `--no-checks`, checked and shown. */
import { MAX_COMMAND_CHARS } from "../domain/contracts/index.js"
import { visible } from "../domain/report/visible.js"

/** The checks and set-up commands asked for on the command line. */
export interface CommandChoice {
  readonly checks: ReadonlyArray<string>
  readonly setup: ReadonlyArray<string>
  readonly none: boolean
}

/** The configuration's `checks` and `setup`: those given, none with `--no-checks`, else absent (the thread's own). */
export const commandFields = (choice: CommandChoice | undefined) => {
  if (choice === undefined) return {}
  if (choice.none) return { checks: [], setup: [] }
  return {
    ...(choice.checks.length === 0 ? {} : { checks: choice.checks.map((command) => ({ command })) }),
    ...(choice.setup.length === 0 ? {} : { setup: choice.setup.map((command) => ({ command })) })
  }
}

/** A command-line mistake in the checks asked for, in one sentence, or undefined. */
export const commandMistake = (choice: CommandChoice | undefined) => {
  if (choice === undefined) return undefined
  if (choice.none && (choice.checks.length > 0 || choice.setup.length > 0)) return "Give --check and --setup, or --no-checks, not both."
  for (const [flag, commands] of [["--check", choice.checks], ["--setup", choice.setup]] as const) {
    const bad = commands.find((command) => command.trim() === "" || command.length > MAX_COMMAND_CHARS || /[\u0000-\u001f\u007f]/.test(command))
    if (bad !== undefined) return `${flag} takes one command of one line without control characters, at most ${MAX_COMMAND_CHARS} characters (got ${JSON.stringify(bad.slice(0, 100))}).`
  }
  return undefined
}

/** The commands approved to run, as one line: each with its directory when it is not the project's own. */
export const commandsLine = (commands: ReadonlyArray<{ readonly command: string; readonly directory: string }>) =>
  commands.length === 0
    ? "none"
    : commands.map(({ command, directory }) => (directory === "." ? visible(command) : `${visible(command)} (in ${visible(directory)})`)).join(" · ")

export { visible } from "../domain/report/visible.js"
