/**
 * Where a terminal command's log lines go: `<cache>/cli/codex-replay.log` (private, beside the last listing),
 * never the user's terminal. A warning the user must see is a sentence the command prints itself.
 * Plain `node:fs`, appended whole line by line: a logger is synchronous, and losing a log line is no failure.
 */
import { Logger } from "effect"
import { appendFileSync, chmodSync, mkdirSync } from "node:fs"
import * as path from "node:path"
import { cacheRootOf, type Environment, runRootOf } from "../../domain/cacheRoot.js"

export const commandLogFile = (env: Environment, home: string) => path.join(cacheRootOf(runRootOf(env, home)), "cli", "codex-replay.log")

/** A logfmt logger that appends to `file` (created 0600 in a 0700 folder). */
export const fileLogger = (file: string) =>
  Logger.map(Logger.logfmtLogger, (line) => {
    try {
      mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 })
      appendFileSync(file, `${line}\n`, { mode: 0o600 })
      chmodSync(file, 0o600)
    } catch {
      // Nowhere to write: the line is dropped rather than shown on the terminal.
    }
  })

/** The default logger replaced by one writing to the command log. */
export const CommandLogLive = (env: Environment, home: string) => Logger.replace(Logger.defaultLogger, fileLogger(commandLogFile(env, home)))
