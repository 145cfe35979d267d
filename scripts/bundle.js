/**
 * The second half of `npm run build`: bundles tsc's output for the command line, the MCP server and the
 * daemon (`bin/codex-replay.js` imports `dist/bundle/main.mjs`, or requires `dist/bundle/listingLauncher.cjs` for
 * `threads`) and for the listing's worker threads.
 * Node then reads a few dozen files at start instead of about 900 modules (effect's barrels alone pull
 * in hundreds), which is most of a short command's wall time. The embedding API (`dist/index.js`) stays
 * tsc's plain modules.
 *
 * `dist/bundle/` is as deep as `dist/cli/`, so the modules' `new URL("../../static/", import.meta.url)`
 * and the like find the same files. Code splitting keeps each mode's modules behind its dynamic import.
 */
import { build } from "esbuild"
import { spawnSync } from "node:child_process"
import { chmodSync, copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { modulesByOwnPath } from "./modulesByOwnPath.js"

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
  entryPoints: { main: `${dist}cli/main.js`, summaryWorker: `${dist}domain/history/summaryWorker.js` },
  outdir,
  splitting: true,
  format: "esm",
  outExtension: { ".js": ".mjs" },
  // CommonJS dependencies bundled into ESM still call require() for Node's built-ins.
  banner: { js: "import { createRequire as __bundleRequire } from \"node:module\"; const require = __bundleRequire(import.meta.url);" }
})
// `codex-replay threads` alone, as one CommonJS script: Node 20 keeps no compiled code of ES modules, while a
// script runs from V8's code cache (src/services/internal/codeCache.ts). Minified, it is a fraction of the bytes to read,
// hash and compile. Its launcher is CommonJS too, so that the bin starts a listing without loading an ES module.
// `import.meta.url` becomes the script's own URL.
await build({
  ...common,
  entryPoints: { listing: `${dist}cli/listing.js`, listingLauncher: `${dist}cli/listingLauncher.js` },
  outdir,
  format: "cjs",
  outExtension: { ".js": ".cjs" },
  minify: process.env.BUNDLE_MINIFY !== "0",
  define: { "import.meta.url": "__bundleUrl" },
  banner: { js: "const __bundleUrl = require(\"node:url\").pathToFileURL(__filename).href;" }
})

/**
 * The listing's code cache, shipped beside its bundle: one `codex-replay threads` over the test fixtures (or an
 * empty history), run by the Node that builds and without NODE_OPTIONS (V8 refuses a cache made under other
 * flags), leaves the bytecode of what a listing runs. A user's first listing then starts from it as well. A
 * build that cannot make it warns and goes on: the listing compiles, and caches for itself.
 */
const shipCodeCache = () => {
  const scratch = mkdtempSync(join(tmpdir(), "codex-replay-build-"))
  try {
    const fixtures = fileURLToPath(new URL("../test/fixtures/claude-home/", import.meta.url))
    const listing = spawnSync(
      process.execPath,
      [fileURLToPath(new URL("../bin/codex-replay.js", import.meta.url)), "threads", "--json", "--limit", "100"],
      {
        encoding: "utf8",
        env: {
          PATH: process.env.PATH,
          HOME: scratch,
          CLAUDE_CONFIG_DIR: existsSync(fixtures) ? fixtures : scratch,
          CODEX_REPLAY_RUN_ROOT: join(scratch, "runs")
        }
      }
    )
    const made = join(scratch, "index", "listing-code-v1.bin")
    if (listing.status !== 0 || !existsSync(made)) {
      console.warn(`No code cache shipped with the listing: ${listing.stderr || `exit ${listing.status}`}`)
      return
    }
    copyFileSync(made, join(outdir, "listing-code-v1.bin"))
    chmodSync(join(outdir, "listing-code-v1.bin"), 0o644)
  } finally {
    rmSync(scratch, { recursive: true, force: true })
  }
}

shipCodeCache()
