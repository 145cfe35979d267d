import { Clock, DateTime, Effect } from "effect"
import * as path from "node:path"
import { MAX_RUN_LOG_TAIL_BYTES, RUN_LOG_FILE } from "../domain/product.js"
import { boundLogMessage } from "../domain/report/ceilings.js"
import { FileStore } from "./FileStore.js"

export const REVIEWER_OUTPUT_OMITTED = "[reviewer output omitted]"

/**
 * One log line: `<ISO time> [<source>] <message>`; embedded newlines are escaped to keep one event per line, and a
 * message longer than the log-line ceiling keeps its start and says how long it was.
 */
export const formatLogLine = (at: Date, source: string, message: string) =>
  `${at.toISOString()} [${source}] ${boundLogMessage(message).replace(/\r?\n/g, "\\n")}\n`

/** The append-only `run.log` of a run directory (docs/security.md), private, one whole line per write. */
export class RunLog extends Effect.Service<RunLog>()("codex-replay/RunLog", {
  effect: Effect.gen(function*() {
    const files = yield* FileStore

    const append = Effect.fn("RunLog.append")(function*(runDirectory: string, source: string, message: string) {
      const now = yield* Clock.currentTimeMillis
      const file = path.join(runDirectory, RUN_LOG_FILE)
      const line = formatLogLine(DateTime.toDateUtc(DateTime.unsafeMake(now)), source, message)
      // Never through a symlink: a link named run.log must not make the daemon append elsewhere. No lock: each line is
      // one write to a file opened with O_APPEND, which the kernel places whole at the end, whoever else appends.
      yield* files.appendText(file, line)
    })

    const tail = (runDirectory: string, maxBytes = MAX_RUN_LOG_TAIL_BYTES) =>
      files.readTail(path.join(runDirectory, RUN_LOG_FILE), maxBytes)

    return { append, tail } as const
  }),
  dependencies: [FileStore.Default]
}) {}
