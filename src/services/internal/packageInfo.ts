import { readFileAtBoundary } from "../platform/nodeFiles.js"
import { fileURLToPath } from "node:url"

const PACKAGE_NAME = "codex-replay"

/** The version in `url` when it is this package's manifest. */
const versionAt = (url: URL): string | undefined => {
  try {
    const manifest = JSON.parse(readFileAtBoundary(url).toString("utf8")) as { name?: unknown; version?: unknown }
    return manifest.name === PACKAGE_NAME && typeof manifest.version === "string" ? manifest.version : undefined
  } catch {
    return undefined
  }
}

/**
 * The package's folder and version, found once from its own `package.json`: the nearest above this module,
 * which sits one level deeper in `src/` and tsc's `dist/` than in the bundle.
 */
const found = ((): { readonly root: URL; readonly version: string } => {
  for (const up of ["../../", "../../../"]) {
    const root = new URL(up, import.meta.url)
    const version = versionAt(new URL("package.json", root))
    if (version !== undefined) return { root, version }
  }
  return { root: new URL("../../../", import.meta.url), version: "0.0.0" }
})()

export const VERSION: string = found.version

/** A file or folder of the installed package, e.g. `static/` or `bin/codex-replay.js`. */
export const packagePath = (relative: string) => fileURLToPath(new URL(relative, found.root))
