import { Command } from "@effect/cli"
import { NodeContext } from "@effect/platform-node"
import { Console, Effect, Layer } from "effect"
import { homedir } from "node:os"
import { VERSION } from "../domain/product.js"
import { LauncherLive } from "../layers.js"
import { ensureController } from "../programs/ensureController.js"

const open = Command.make("open", {}, () =>
  Effect.flatMap(ensureController(process.env, homedir()), (url) => Console.log(url))
).pipe(Command.withDescription("Start (or reuse) the local controller and print its URL."))

const cli = Command.make("codex-replay").pipe(
  Command.withDescription("Replay Claude Code tasks with Codex. With no arguments, speaks MCP on stdio."),
  Command.withSubcommands([open])
)

/** The terminal commands (SPEC §12). */
export const commandLineMain = (argv: ReadonlyArray<string>) =>
  Command.run(cli, { name: "codex-replay", version: VERSION })(argv).pipe(
    Effect.provide(Layer.merge(LauncherLive, NodeContext.layer))
  )
