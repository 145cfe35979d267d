import { Console, Context, Effect } from "effect"
import { Console as NodeConsole } from "node:console"
import * as os from "node:os"
import type { Environment } from "../domain/cacheRoot.js"

/** A stream a terminal command writes to: a TTY (with its width) or a pipe or file. */
export interface OutputStream {
  readonly isTTY?: boolean
  readonly columns?: number
  /** Writes `text`; `done` runs once the stream took it. */
  readonly write: (text: string, done?: (error?: Error | null) => void) => unknown
}

/**
 * What a terminal command is given by whoever started it: its environment, home and working folder, and its
 * three streams. The command line's edge: the commands read these here and nowhere else, so that the same
 * commands run in another process's place (an embedding, a test) with other streams and variables.
 */
export interface Terminal {
  readonly env: Environment
  readonly home: string
  readonly cwd: string
  readonly stdout: OutputStream
  readonly stderr: OutputStream
  readonly stdin: NodeJS.ReadableStream
}

/** The terminal of this process, unless a caller provides another one. */
export class CommandLineIo extends Context.Reference<CommandLineIo>()("codex-replay/CommandLineIo", {
  defaultValue: (): Terminal => ({
    env: process.env,
    home: os.homedir(),
    cwd: process.cwd(),
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin
  })
}) {}

/** Writes `text` to `stream`, done once the stream took it. */
export const writeTo = (stream: OutputStream, text: string) =>
  Effect.async<void>((resume) => {
    stream.write(text, () => resume(Effect.void))
  })

/** Effect's `Console` (what `@effect/cli` prints `--version` and its wizard with) on a terminal's streams. */
export const consoleOn = (io: Terminal): Console.Console => {
  const node = new NodeConsole({ stdout: io.stdout as NodeJS.WritableStream, stderr: io.stderr as NodeJS.WritableStream })
  const on = <Args extends ReadonlyArray<unknown>>(method: (...args: Args) => void) => (...args: Args) => Effect.sync(() => method(...args))
  return {
    [Console.TypeId]: Console.TypeId,
    assert: on((condition: boolean, ...args: ReadonlyArray<unknown>) => node.assert(condition, ...args)),
    clear: Effect.sync(() => node.clear()),
    count: on((label?: string) => node.count(label)),
    countReset: on((label?: string) => node.countReset(label)),
    debug: on((...args: ReadonlyArray<unknown>) => node.debug(...args)),
    dir: on((item: unknown, options?: object) => node.dir(item, options)),
    dirxml: on((...args: ReadonlyArray<unknown>) => node.dirxml(...args)),
    error: on((...args: ReadonlyArray<unknown>) => node.error(...args)),
    group: on((options?: { readonly label?: string | undefined; readonly collapsed?: boolean | undefined }) =>
      options?.collapsed === true ? node.groupCollapsed(options.label) : node.group(options?.label)),
    groupEnd: Effect.sync(() => node.groupEnd()),
    info: on((...args: ReadonlyArray<unknown>) => node.info(...args)),
    log: on((...args: ReadonlyArray<unknown>) => node.log(...args)),
    table: on((data: unknown, properties?: ReadonlyArray<string>) => node.table(data, properties === undefined ? undefined : [...properties])),
    time: on((label?: string) => node.time(label)),
    timeEnd: on((label?: string) => node.timeEnd(label)),
    timeLog: on((label?: string, ...args: ReadonlyArray<unknown>) => node.timeLog(label, ...args)),
    trace: on((...args: ReadonlyArray<unknown>) => node.trace(...args)),
    warn: on((...args: ReadonlyArray<unknown>) => node.warn(...args)),
    unsafe: node
  }
}
