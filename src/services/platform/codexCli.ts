import { Effect } from "effect"
import { createRequire } from "node:module"
import * as path from "node:path"
import { LinkSafeFiles } from "./LinkSafeFiles.js"

/**
 * Where the Codex CLI is: the one lookup the worker, the checks' sandbox, the model list and the
 * preflight share. `CODEX_CLI_PATH` when it is set (a path, or a name looked up on `PATH`); else `codex`
 * on `PATH`; else the Codex installed with this package (`node_modules/.bin/codex`, then the native
 * binary `@openai/codex-sdk` would fall back to).
 */

export type CodexSource = "CODEX_CLI_PATH" | "PATH" | "bundled"

export type CodexLocation =
  | { readonly found: true; readonly path: string; readonly source: CodexSource }
  | { readonly found: false; readonly message: string }

export const INSTALL_CODEX = "install Codex (npm install -g @openai/codex) or set CODEX_CLI_PATH to its executable"

/** A name looked up on `PATH`, or a path (relative to the current folder) taken as it is. */
export const resolveCli = (cliPath: string, searchPath: string | undefined) =>
  Effect.gen(function*() {
    const links = yield* LinkSafeFiles
    if (cliPath.includes("/")) {
      const absolute = path.resolve(cliPath)
      return (yield* links.isExecutable(absolute)) ? absolute : undefined
    }
    for (const directory of (searchPath ?? "").split(path.delimiter).filter((entry) => entry !== "")) {
      const candidate = path.join(directory, cliPath)
      if (yield* links.isExecutable(candidate)) return candidate
    }
    return undefined
  })

const PLATFORM_PACKAGES: Readonly<Record<string, string>> = {
  "linux-x64": "x86_64-unknown-linux-musl",
  "linux-arm64": "aarch64-unknown-linux-musl",
  "darwin-x64": "x86_64-apple-darwin",
  "darwin-arm64": "aarch64-apple-darwin"
}

/** A module's file as this package's dependencies resolve it, or undefined when it is not installed. */
const resolveFrom = (from: string, specifier: string) => {
  try {
    return createRequire(from).resolve(specifier)
  } catch {
    return undefined
  }
}

/**
 * The Codex installed with this package, in the order it is tried: the `codex` launcher of
 * `@openai/codex` (what `node_modules/.bin/codex` links to), then the native binary of its platform
 * package (where `@openai/codex-sdk` finds it when given no path).
 */
export const bundledCandidates = (): ReadonlyArray<string> => {
  const manifest = resolveFrom(import.meta.url, "@openai/codex/package.json")
  if (manifest === undefined) return []
  const launcher = path.join(path.dirname(manifest), "bin", "codex.js")
  const key = `${process.platform}-${process.arch}`
  const triple = PLATFORM_PACKAGES[key]
  const platformManifest = triple === undefined ? undefined : resolveFrom(manifest, `@openai/codex-${key}/package.json`)
  const native = platformManifest === undefined || triple === undefined
    ? []
    : [path.join(path.dirname(platformManifest), "vendor", triple, "bin", "codex"), path.join(path.dirname(platformManifest), "vendor", triple, "codex", "codex")]
  return [launcher, ...native]
}

/** The Codex CLI to run, from `CODEX_CLI_PATH` (`configured`), the environment's `PATH` and this package's install. */
export const locateCodex = (configured: string | undefined, environment: Readonly<Record<string, string | undefined>>) =>
  Effect.gen(function*() {
    const links = yield* LinkSafeFiles
    if (configured !== undefined && configured.trim() !== "") {
      const found = yield* resolveCli(configured, environment.PATH)
      return found === undefined
        ? { found: false, message: `The Codex CLI ${configured} does not exist or is not executable.` } satisfies CodexLocation
        : { found: true, path: found, source: "CODEX_CLI_PATH" } satisfies CodexLocation
    }
    const onPath = yield* resolveCli("codex", environment.PATH)
    if (onPath !== undefined) return { found: true, path: onPath, source: "PATH" } satisfies CodexLocation
    for (const candidate of bundledCandidates()) {
      if (yield* links.isExecutable(candidate)) return { found: true, path: candidate, source: "bundled" } satisfies CodexLocation
    }
    return { found: false, message: "No Codex CLI was found: CODEX_CLI_PATH is unset, there is no codex on PATH and none is installed with Codex Replay." } satisfies CodexLocation
  })

/** The executable's path, or undefined with the reason: for callers that only need the path. */
export const codexExecutable = (configured: string | undefined, environment: Readonly<Record<string, string | undefined>>) =>
  Effect.map(locateCodex(configured, environment), (location) => (location.found ? location.path : undefined))
