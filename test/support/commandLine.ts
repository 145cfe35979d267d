/**
 * A terminal command run in the test's own process: the commands of `bin/codex-replay.js` (`terminalCommand`)
 * on a terminal of the test's making (`CommandLineIo`: its environment, home, folder and streams), ended as
 * the binary ends (`endingOf`: exit code, and the failure's line on stderr). What needs the process itself (a
 * pipe closed under it, Ctrl-C, the bundle) is run with `runBin` instead.
 */
import { Effect } from "effect"
import * as os from "node:os"
import { Readable, Writable } from "node:stream"
import { terminalCommand } from "../../src/cli/commands.js"
import { CommandLineIo } from "../../src/cli/io.js"
import { endingOf } from "../../src/cli/runMode.js"
import { BIN, type BinResult, REPO } from "./spawnBin.js"

export interface CommandLineOptions {
  /** The whole environment of the command (nothing of the test's is added). */
  readonly env: Readonly<Record<string, string | undefined>>
  readonly cwd?: string
  /** Text for stdin, then its end; without it stdin ends at once. */
  readonly input?: string
}

/** A stream that keeps what is written to it; not a terminal. */
const collected = () => {
  let text = ""
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      text += typeof chunk === "string" ? chunk : chunk.toString("utf8")
      done()
    }
  })
  return { stream, text: () => text }
}

/** Runs `codex-replay <args>` in this process and collects how it ends, as `runBin` does for the binary. */
export const runCommandLine = async (args: ReadonlyArray<string>, options: CommandLineOptions): Promise<BinResult> => {
  // Local times are the process's (vitest.config.ts keeps the tests' in UTC): one command cannot have a zone of its own here.
  if (options.env.TZ !== undefined && options.env.TZ !== process.env.TZ) {
    throw new Error(`A command run in process keeps this process's time zone (${process.env.TZ}), not TZ=${options.env.TZ}: run it with runBin.`)
  }
  const stdout = collected()
  const stderr = collected()
  const terminal = {
    env: options.env,
    home: options.env.HOME ?? os.homedir(),
    cwd: options.cwd ?? REPO,
    stdout: stdout.stream,
    stderr: stderr.stream,
    stdin: Readable.from(options.input === undefined ? [] : [options.input])
  }
  const exit = await Effect.runPromiseExit(
    terminalCommand([process.execPath, BIN, ...args]).pipe(Effect.provideService(CommandLineIo, terminal), Effect.withTracerEnabled(false))
  )
  const { code, said } = endingOf(exit, 130)
  return { code, signal: null, stdout: stdout.text(), stderr: stderr.text() + (said ?? "") }
}
