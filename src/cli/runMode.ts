import { Cause, Effect, Exit, Layer, Logger } from "effect"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"

/** Every log line goes to stderr: stdout belongs to MCP's JSON-RPC and to command output. */
const StderrLogger = Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.logfmtLogger))

const failureMessage = (cause: Cause.Cause<unknown>) => {
  const failure = Cause.failureOption(cause)
  const message = failure._tag === "Some" ? (failure.value as { message?: unknown }).message : undefined
  return typeof message === "string" && message !== "" ? message : Cause.pretty(cause)
}

/**
 * How a mode ends: its exit code, and the line said on stderr when it failed. The daemon and MCP end cleanly
 * (0) when signalled; a terminal command stopped by Ctrl-C answers 130.
 */
export const endingOf = (exit: Exit.Exit<unknown, unknown>, interruptedCode: number): { readonly code: number; readonly said?: string } =>
  Exit.isSuccess(exit)
    ? { code: 0 }
    : Cause.isInterruptedOnly(exit.cause)
    ? { code: interruptedCode }
    : { code: 1, said: `codex-replay: ${failureMessage(exit.cause)}\n` }

const exitWith = (exit: Exit.Exit<unknown, unknown>, interruptedCode: number) => {
  const { code, said } = endingOf(exit, interruptedCode)
  if (said !== undefined) process.stderr.write(said)
  process.exit(code)
}

/**
 * Runs one mode; each mode loads only its own modules, which keeps the daemon's cold start short.
 * Spans are off: nothing exports them here, and making them costs more than answering a request.
 * An embedding program keeps them for its own tracer. Log lines go to stderr (the daemon's is its log file)
 * unless `logger` says otherwise (a terminal command's go to the command log).
 */
export const run = <E>(program: Effect.Effect<void, E>, interruptedCode = 0, logger: Layer.Layer<never> = StderrLogger) => {
  endQuietlyWhenStdoutCloses()
  NodeRuntime.runMain(program.pipe(Effect.withTracerEnabled(false), Effect.provide(logger)), {
    disableErrorReporting: true,
    disablePrettyLogger: true,
    teardown: (exit) => exitWith(exit, interruptedCode)
  })
}

/** What a shell reports for a process that SIGPIPE ended (128 + 13), which Node itself ignores. */
const BROKEN_PIPE_EXIT = 141

/**
 * A reader that stops early (`codex-replay threads | head`, a closed MCP client) closes stdout: the process
 * ends there quietly, as a Unix tool ended by SIGPIPE does (141, which `set -o pipefail` notices), rather
 * than on an unhandled EPIPE with a stack trace. The daemon's stdout is its log file.
 */
const endQuietlyWhenStdoutCloses = () =>
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(BROKEN_PIPE_EXIT)
    throw error
  })

/** A terminal command: Ctrl-C answers 130, and its log lines go where the command puts them (`terminalCommand`'s command log). */
export const runCommand = <E>(program: Effect.Effect<void, E>) => run(program, 130, Layer.empty)
