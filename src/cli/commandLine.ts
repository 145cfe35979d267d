import * as Command from "@effect/cli/Command"
import * as ValidationError from "@effect/cli/ValidationError"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import * as NodeTerminal from "@effect/platform-node/NodeTerminal"
import { Effect, Layer } from "effect"
import { invalidArgument } from "../domain/errors.js"
import { VERSION } from "../services/internal/packageInfo.js"
import { helpRequested } from "./help.js"

/** `@effect/cli` reads `--yes=anything` as `--yes`; a switch given a value is refused instead. */
const SWITCHES = ["--yes", "--json", "--open", "--accept-empty-beginning"] as const
const switchWithValue = (argv: ReadonlyArray<string>) =>
  argv.slice(2).find((argument) => SWITCHES.some((name) => argument.startsWith(`${name}=`)))

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
      if (help !== undefined) return Effect.sync(() => void process.stdout.write(help))
      const misused = switchWithValue(argv)
      return misused === undefined
        ? Command.run(cli, { name: "codex-replay", version: VERSION })(argv)
        : Effect.fail(invalidArgument(`${misused.split("=")[0]} takes no value (got ${JSON.stringify(misused)}).`))
    }).pipe(
      Effect.catchIf(ValidationError.isValidationError, () =>
        Effect.fail(invalidArgument("Invalid command line; see `codex-replay --help`."))),
      Effect.provide(CliEnvironment)
    )
}
