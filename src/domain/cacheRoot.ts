import * as path from "node:path"

/**
 * Where the run root and the cache beside it are (README.md#configuration). Plain `node:path` only: the command line's
 * start reads it before any other module loads (see src/cli/main.ts).
 */

export type Environment = Readonly<Record<string, string | undefined>>

export const expandHome = (value: string, home: string) =>
  value === "~" ? home : value.startsWith("~/") ? path.join(home, value.slice(2)) : value

export const nonEmpty = (value: string | undefined) => (value !== undefined && value.trim() !== "" ? value : undefined)

export const runRootOf = (env: Environment, home: string) =>
  path.resolve(expandHome(nonEmpty(env.CODEX_REPLAY_RUN_ROOT) ?? "~/.cache/codex-replay/runs", home))

/** The run root's parent holds the caches that are not runs (the thread index, controllers, samples). */
export const cacheRootOf = (runRoot: string) => path.dirname(runRoot)

/** The folder of the thread index. */
export const indexDirectory = (cacheRoot: string) => path.join(cacheRoot, "index")
