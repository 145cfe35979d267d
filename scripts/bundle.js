/**
 * The second half of `npm run build`: bundles tsc's output for the command line, the MCP server and the
 * daemon (`bin/codex-replay.js` imports `dist/bundle/main.mjs`) and for the listing's parse workers.
 * Node then reads a few dozen files at start instead of about 900 modules (effect's barrels alone pull
 * in hundreds), which is most of a short command's wall time. The embedding API (`dist/index.js`) stays
 * tsc's plain modules.
 *
 * `dist/bundle/` is as deep as `dist/cli/`, so the modules' `new URL("../../static/", import.meta.url)`
 * and the like find the same files. Code splitting keeps each mode's modules behind its dynamic import.
 */
import { build } from "esbuild"
import { rmSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { readFile, writeFile } from "node:fs/promises"
import { importsByOwnPath, modulesByOwnPath } from "./modulesByOwnPath.js"

const dist = fileURLToPath(new URL("../dist/", import.meta.url))
const outdir = `${dist}bundle`

const common = {
  bundle: true,
  platform: "node",
  target: "node20",
  // The Codex SDK finds its vendored `codex` binary beside its own module; msgpackr-extract loads a
  // native addon from its own folder.
  external: ["@openai/codex-sdk", "msgpackr-extract"],
  logLevel: "warning",
  plugins: [modulesByOwnPath(dist)]
}

rmSync(outdir, { recursive: true, force: true })
await build({
  ...common,
  entryPoints: { main: `${dist}cli/main.js`, parseWorker: `${dist}services/history/parseWorker.js` },
  outdir,
  splitting: true,
  format: "esm",
  outExtension: { ".js": ".mjs" },
  // CommonJS dependencies bundled into ESM still call require() for Node's built-ins.
  banner: { js: "import { createRequire as __bundleRequire } from \"node:module\"; const require = __bundleRequire(import.meta.url);" }
})

// The page: its TypeScript modules (and the pure domain modules they share with the reports) as one script
// for the browser, served by the daemon as `/controller.js`.
const page = `${dist}page`
rmSync(page, { recursive: true, force: true })
await build({
  entryPoints: { controller: fileURLToPath(new URL("../src/page/main.ts", import.meta.url)) },
  outdir: page,
  bundle: true,
  platform: "browser",
  format: "iife",
  target: "es2022",
  minify: true,
  sourcemap: false,
  logLevel: "warning",
  // The sources' `import { Schema } from "effect"` (no semicolon) by each module's own path, as for the bundle above.
  plugins: [{
    name: "sources-by-own-path",
    setup(build) {
      build.onLoad({ filter: /\.ts$/ }, async ({ path }) => ({
        contents: importsByOwnPath((await readFile(path, "utf8")).replace(/^(import \{[^}\n]*\} from "[^"\n]+")$/gm, "$1;")),
        loader: "ts"
      }))
    }
  }]
})

// The grid's stylesheet, from the renderer's own CSS (the page's CSP admits no inline style): the grid the
// page shows looks as it does in portfolio.html, with the reports' colours scoped to it.
const { GRID_CSS } = await import(`${dist}domain/portfolio/gridHtml.js`)
const { REPORT_CSS } = await import(`${dist}domain/report/styles.js`)
const colours = /:root\{([^}]*)\}/.exec(REPORT_CSS)?.[1] ?? ""
await writeFile(`${page}/grid.css`, `.grid-view{${colours}}\n${GRID_CSS}`)
