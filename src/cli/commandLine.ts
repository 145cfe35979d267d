import * as Command from "@effect/cli/Command"
import * as ValidationError from "@effect/cli/ValidationError"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import * as NodeTerminal from "@effect/platform-node/NodeTerminal"
import { Effect, Layer } from "effect"
import { invalidArgument } from "../domain/errors.js"
import { VERSION } from "../services/internal/packageInfo.js"
import { COMMAND_HELP, helpRequested } from "./help.js"
import { CommandLineIo, writeTo } from "./io.js"

/** `@effect/cli` reads `--yes=anything` as `--yes`; a switch given a value is refused instead. */
const SWITCHES = ["--yes", "--json", "--open", "--accept-empty-beginning"] as const
const switchWithValue = (argv: ReadonlyArray<string>) =>
  argv.slice(2).find((argument) => SWITCHES.some((name) => argument.startsWith(`${name}=`)))

/** The flags `@effect/cli` itself answers on every command: past one, the command line is left to it. */
const BUILT_IN_FLAGS = new Set(["--help", "-h", "--version", "--wizard", "--completions", "--log-level"])

const orList = (values: ReadonlyArray<string>) =>
  values.length < 2 ? values.join("") : `${values.slice(0, -1).join(", ")} or ${values.at(-1)}`

/**
 * The command-line mistakes `@effect/cli` reports only as "unknown argument", in one sentence naming the
 * flag: a flag the command does not have, a flag without its value, a single-value flag given twice, a
 * value outside a flag's choices, and an argument too many. The flags are those of the command's own help.
 */
export const flagMistake = (argv: ReadonlyArray<string>): string | undefined => {
  const [command = "", ...rest] = argv.slice(2)
  const help = COMMAND_HELP[command]
  if (help === undefined) return undefined
  const flags = new Map(help.options.map(([usage, description]) => {
    const [name = "", value] = usage.split(" ")
    const choices = value !== undefined && /^[a-z]+(\|[a-z]+)+$/.test(value) ? value.split("|") : undefined
    return [name, { usage, takesValue: value !== undefined, choices, repeatable: /\brepeat it\b/.test(description) }] as const
  }))
  const named = help.options.length === 0 ? "no flags" : `the flags ${orList([...flags.keys()])}`
  const allowed = help.arguments === undefined ? 0 : help.arguments.some(([name]) => name.endsWith("…")) ? Infinity : help.arguments.length
  const seen = new Set<string>()
  let positional = 0
  for (let index = 0; index < rest.length; index++) {
    const argument = rest[index]!
    if (!argument.startsWith("-") || argument === "-") {
      positional++
      if (positional > allowed) {
        return allowed === 0
          ? `\`codex-replay ${command}\` takes no arguments (got ${JSON.stringify(argument)}).`
          : `\`codex-replay ${command}\` takes ${orList(help.arguments!.map(([name]) => name))} only; ${JSON.stringify(argument)} is one too many.`
      }
      continue
    }
    const name = argument.split("=")[0]!
    if (BUILT_IN_FLAGS.has(name)) return undefined
    const flag = flags.get(name)
    if (flag === undefined) return `\`codex-replay ${command}\` has no flag ${name}; it has ${named} (see \`codex-replay ${command} --help\`).`
    if (flag.takesValue) {
      const value = argument.includes("=") ? argument.slice(name.length + 1) : rest[index + 1]
      if (value === undefined || (!argument.includes("=") && value.startsWith("--"))) return `${name} needs a value: ${flag.usage}.`
      if (!argument.includes("=")) index++
      if (flag.choices !== undefined && !flag.choices.includes(value)) {
        return `${name} must be ${orList(flag.choices)} (got ${JSON.stringify(value)}).`
      }
    }
    if (seen.has(name) && !flag.repeatable) return `${name} is given more than once; give it once.`
    seen.add(name)
  }
  return undefined
}

/** Any terminal command whose handler needs nothing more (its name and options types are invariant). */
type Subcommand = Command.Command<any, never, unknown, any>

/**
 * What `@effect/cli` itself needs (NodeContext would add a command executor and a worker manager, whose
 * modules a short command would load and never use).
 */
const CliEnvironment = Layer.mergeAll(NodeFileSystem.layer, NodePath.layer, NodeTerminal.layer)

/**
 * The terminal commands (docs/controller.md#embedding) made of `commands`. A command-line mistake has already been printed by
 * `@effect/cli`.
 */
export const commandLineOf = (commands: readonly [Subcommand, ...Array<Subcommand>]) => {
  const cli = Command.make("codex-replay").pipe(
    Command.withDescription("Replay Claude Code tasks with Codex. With no arguments, speaks MCP on stdio."),
    Command.withSubcommands(commands)
  )
  return (argv: ReadonlyArray<string>) =>
    Effect.suspend(() => {
      const help = helpRequested(argv)
      if (help !== undefined) return Effect.flatMap(CommandLineIo, (io) => writeTo(io.stdout, help))
      const misused = switchWithValue(argv)
      if (misused !== undefined) {
        return Effect.fail(invalidArgument(`${misused.split("=")[0]} takes no value (got ${JSON.stringify(misused)}).`))
      }
      const mistake = flagMistake(argv)
      return mistake === undefined
        ? Command.run(cli, { name: "codex-replay", version: VERSION })(argv)
        : Effect.fail(invalidArgument(mistake))
    }).pipe(
      Effect.catchIf(ValidationError.isValidationError, () =>
        Effect.fail(invalidArgument("Invalid command line; see `codex-replay --help`."))),
      Effect.provide(CliEnvironment)
    )
}
