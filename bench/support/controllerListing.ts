/**
 * A running controller's thread listing, for bench/history.ts: `list_threads` (limit 100) over the built
 * services (`dist/index.js`, the code the daemon runs), once when it starts (from the thread index, as a newly
 * started controller) and again for each line on stdin. Each listing answers one JSON line on stdout: how long it
 * took in this process and how many imported threads it found. Started as
 * `node --import tsx bench/support/controllerListing.ts` with the bench's CLAUDE_CONFIG_DIR and run root.
 */
import { Layer, ManagedRuntime } from "effect"
import * as readline from "node:readline"
import { ClaudeHistory, listThreads, Samples, settingsLayer } from "../../dist/index.js"

const runtime = ManagedRuntime.make(Layer.mergeAll(ClaudeHistory.Default, Samples.Default).pipe(Layer.provideMerge(settingsLayer())))

const listOnce = async () => {
  const start = performance.now()
  const result = await runtime.runPromise(listThreads({ limit: 100 }))
  console.log(JSON.stringify({ ms: performance.now() - start, imported_total: result.imported_total }))
}

await listOnce()
for await (const _line of readline.createInterface({ input: process.stdin })) await listOnce()
await runtime.dispose()
