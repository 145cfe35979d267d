import { commandLineOf } from "./commandLine.js"
import { run } from "./runMode.js"
import { threads } from "./threadsCommand.js"

/**
 * `codex-replay threads` on its own (src/cli/main.ts starts it): the same command and command line as the
 * full one, without the other commands' definitions. Bundled apart (`dist/bundle/listing.cjs`) so that a
 * listing answered from the thread index loads only the modules it runs, from V8's code cache.
 */
run(commandLineOf([threads])(process.argv), 130)
