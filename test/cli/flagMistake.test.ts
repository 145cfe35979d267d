import { CliConfig, Command, HelpDoc } from "@effect/cli"
import { describe, expect, it } from "vitest"
import { flagMistake } from "../../src/cli/commandLine.js"
import { COMMANDS } from "../../src/cli/commands.js"
import { COMMAND_HELP } from "../../src/cli/help.js"

const BUILT_INS = ["--help", "--version", "--wizard", "--completions", "--log-level"]

const mistake = (...args: Array<string>) => flagMistake(["node", "codex-replay", ...args])

describe("flagMistake", () => {
  it.each([
    [["threads", "--bogus"], "`codex-replay threads` has no flag --bogus; it has the flags --query, --source, --sort, --since, --until, --limit, --offset or --json (see `codex-replay threads --help`)."],
    [["open", "--bogus"], "`codex-replay open` has no flag --bogus; it has no flags (see `codex-replay open --help`)."],
    [["report", "run-x", "--format", "pdf"], "`codex-replay report` has no flag --format;"],
    [["report", "run-x", "-f"], "`codex-replay report` has no flag -f;"],
    [["replay", "t", "--model", "m", "--approve"], "`codex-replay replay` has no flag --approve;"],
    [["report", "a", "b"], "`codex-replay report` takes <run-id> only; \"b\" is one too many."],
    [["threads", "extra"], "`codex-replay threads` takes no arguments (got \"extra\")."],
    [["threads", "--source", "elsewhere"], "--source must be imported or sample (got \"elsewhere\")."],
    [["threads", "--sort=size"], "--sort must be date or cost (got \"size\")."],
    [["threads", "--limit"], "--limit needs a value: --limit N."],
    [["threads", "--limit", "--json"], "--limit needs a value: --limit N."],
    [["threads", "--limit", "5", "--limit", "6"], "--limit is given more than once; give it once."]
  ])("names the mistake in %j", (args, message) => {
    expect(mistake(...args)).toContain(message)
  })

  it.each([
    [["threads", "--source", "sample", "--sort=cost", "--offset", "-0", "--json"]],
    [["replay", "t", "--model", "a", "--model", "b", "--yes"]],
    [["portfolio", "r1", "r2", "r3"]],
    [["threads", "--help"]],
    [["threads", "--log-level", "debug", "anything"]],
    [["nonsense", "--bogus"]]
  ])("leaves %j alone", (args) => {
    expect(mistake(...args)).toBeUndefined()
  })
})

describe("the help and the command line", () => {
  // flagMistake knows a command's flags from its help: a flag missing there would be refused as unknown.
  const commands: ReadonlyArray<Command.Command<any, never, unknown, any>> = COMMANDS
  it.each(commands.map((command) => [[...Command.getNames(command)][0]!, command] as const))(
    "%s: the help lists exactly the flags the command takes",
    (name, command) => {
      const text = HelpDoc.toAnsiText(Command.getHelp(command, CliConfig.defaultConfig))
      const taken = new Set(text.match(/--[a-z][a-z-]*/g))
      for (const builtIn of BUILT_INS) taken.delete(builtIn)
      const listed = COMMAND_HELP[name]!.options.map(([usage]) => usage.split(" ")[0])
      expect([...listed].sort()).toEqual([...taken].sort())
    }
  )
})
