import { readFile } from "node:fs/promises"

/**
 * `import { Effect, Schema } from "effect"` reaches each module through the package's index (`export * as Schema
 * from "./Schema.js"`), and esbuild bundles a module reached that way whole, as an object of all its exports:
 * every function of Effect.js, every schema Schema.js defines (made when the bundle starts), and what those
 * need. tsc's output is bundled with each such import (one line, as tsc writes it) rewritten to the module's own
 * path, as the libraries import each other (`import * as Schema from "effect/Schema"`), so that only what is
 * used is bundled (docs/decisions/0005-bundle-imports-by-own-path.md).
 * Each capitalised name of these indexes is its module at its own path (`pipe` and the like stay imported from
 * the index, which makes no object of a module); a name without a path of its own fails the build.
 */
const PACKAGES_WITH_AN_INDEX = ["effect", "@effect/platform", "@effect/rpc", "@effect/cli", "@effect/platform-node"]
const importFromIndex = new RegExp(`^import \\{([^}\\n]*)\\} from "(${PACKAGES_WITH_AN_INDEX.join("|")})";$`, "gm")
/** `Name` or `Name as local`: anything else (a comment, nothing at all) leaves the import as it is. */
const SPECIFIER = /^[A-Za-z_$][\w$]*(\s+as\s+[A-Za-z_$][\w$]*)?$/

const isModule = (specifier) => /^[A-Z]/.test(specifier)

const byOwnPath = (whole, names, packageName) => {
  const specifiers = names.split(",").map((name) => name.trim()).filter((name) => name !== "")
  if (specifiers.length === 0 || !specifiers.every((specifier) => SPECIFIER.test(specifier))) return whole
  const modules = specifiers.filter(isModule).map((specifier) => {
    const [name, local = name] = specifier.split(/\s+as\s+/)
    return `import * as ${local} from "${packageName}/${name}";`
  })
  const others = specifiers.filter((specifier) => !isModule(specifier))
  return [...modules, ...(others.length === 0 ? [] : [`import { ${others.join(", ")} } from "${packageName}";`])].join(" ")
}

/** Each such import of a module of `source`, as tsc writes it, imported from the module's own path. */
export const importsByOwnPath = (source) => source.replace(importFromIndex, byOwnPath)

/** The esbuild plugin: tsc's output under `dist` (a folder's path, ending in a separator) is bundled so. */
export const modulesByOwnPath = (dist) => ({
  name: "modules-by-own-path",
  setup(build) {
    build.onLoad({ filter: /\.js$/ }, async ({ path }) =>
      path.startsWith(dist) ? { contents: importsByOwnPath(await readFile(path, "utf8")), loader: "js" } : undefined)
  }
})
