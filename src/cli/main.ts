import { Cause, Effect, Exit, Logger } from "effect"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { setFlagsFromString } from "node:v8"

/** Every log line goes to stderr: stdout belongs to MCP's JSON-RPC and to command output. */
const StderrLogger = Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.logfmtLogger))

const failureMessage = (cause: Cause.Cause<unknown>) => {
  const failure = Cause.failureOption(cause)
  const message = failure._tag === "Some" ? (failure.value as { message?: unknown }).message : undefined
  return typeof message === "string" && message !== "" ? message : Cause.pretty(cause)
}

/** The daemon and MCP end cleanly (0) when signalled; a terminal command stopped by Ctrl-C answers 130. */
const exitWith = (exit: Exit.Exit<unknown, unknown>, interruptedCode: number) => {
  if (Exit.isSuccess(exit)) process.exit(0)
  if (Cause.isInterruptedOnly(exit.cause)) process.exit(interruptedCode)
  process.stderr.write(`codex-replay: ${failureMessage(exit.cause)}\n`)
  process.exit(1)
}

/**
 * Runs one mode; each mode loads only its own modules, which keeps the daemon's cold start short.
 * Spans are off: nothing exports them here, and making them costs more than answering a request.
 * An embedding program keeps them for its own tracer.
 */
const run = <E>(program: Effect.Effect<void, E>, interruptedCode = 0) =>
  NodeRuntime.runMain(program.pipe(Effect.withTracerEnabled(false), Effect.provide(StderrLogger)), {
    disableErrorReporting: true,
    disablePrettyLogger: true,
    teardown: (exit) => exitWith(exit, interruptedCode)
  })

/**
 * Under load V8 sees objects made while answering a request survive a young collection now and then
 * (a fiber waiting for a body), starts allocating them straight in old space, and their dead graphs
 * then keep young objects alive until the next full collection. With this off, and the body read as
 * controllerApp does, a daemon saturated with `get_state` promotes 0.3 MB per scavenge instead of
 * 1.5 MB and pauses 1.2 ms instead of 2.7 ms, and answers about a fifth more requests (measured with
 * `--trace-gc-nvp` and two builds under one load). Set before the daemon's own modules load.
 */
const keepRequestGarbageYoung = () => setFlagsFromString("--no-allocation-site-pretenuring")

const argv = process.argv.slice(2)
if (argv.length === 0) {
  const { mcpMain } = await import("./modes.js")
  run(mcpMain)
} else if (argv.length === 1 && argv[0] === "--http") {
  keepRequestGarbageYoung()
  const { daemonMain } = await import("./daemonMode.js")
  run(daemonMain)
} else {
  const { commandLineMain } = await import("./commands.js")
  run(commandLineMain(process.argv), 130)
}
