#!/usr/bin/env node
// CommonJS (bin/package.json): `codex-replay threads` starts its listing without loading any ES module.
"use strict"

/** One line of why (a failed `require` adds its require stack), then what to do. */
const cannotStart = (error) => {
  const why = String(error?.message ?? error).split("\n")[0]
  process.stderr.write(`codex-replay could not start: ${why}\nRun "npm run build" first.\n`)
  process.exit(1)
}

if (process.argv[2] === "threads") {
  try {
    require("../dist/bundle/listingLauncher.cjs")
  } catch (error) {
    cannotStart(error)
  }
} else {
  import("../dist/bundle/main.mjs").catch(cannotStart)
}
