import { createRequire } from "node:module"

/**
 * `threads` starts its own bundle from V8's code cache (src/cli/listingLauncher.ts): a listing answered from the
 * thread index is over in a few hundred milliseconds, most of which loading the full command line would
 * otherwise spend compiling modules. (`bin/codex-replay.js` requires the launcher itself; this is for
 * `dist/bundle/main.mjs` started otherwise.) From tsc's output (or src) the same module loads as usual.
 */
const listThreads = async () => {
  if (!import.meta.url.endsWith(".mjs")) return void (await import("./listing.js"))
  createRequire(import.meta.url)("./listingLauncher.cjs")
}

const argv = process.argv.slice(2)
if (argv.length === 0) {
  const [{ mcpMain }, { run }] = await Promise.all([import("./modes.js"), import("./runMode.js")])
  run(mcpMain)
} else if (argv.length === 1 && argv[0] === "--http") {
  const [{ daemonMain }, { run }] = await Promise.all([import("./daemonMode.js"), import("./runMode.js")])
  run(daemonMain)
} else if (argv[0] === "threads") {
  await listThreads()
} else {
  const [{ commandLineMain }, { run }] = await Promise.all([import("./commands.js"), import("./runMode.js")])
  run(commandLineMain(process.argv), 130)
}
