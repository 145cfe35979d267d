#!/usr/bin/env node
import("../dist/bundle/main.mjs").catch((error) => {
  process.stderr.write(`codex-replay could not start: ${error?.message ?? error}\nRun "npm run build" first.\n`)
  process.exit(1)
})
