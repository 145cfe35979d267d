#!/usr/bin/env node
"use strict"

/** One line of why, then what to do. */
const cannotStart = (error) => {
  const why = String(error?.message ?? error).split("\n")[0]
  process.stderr.write(`codex-replay could not start: ${why}\nRun "npm run build" first.\n`)
  process.exit(1)
}

import("../dist/bundle/main.mjs").catch(cannotStart)
