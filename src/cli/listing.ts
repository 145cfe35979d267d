import { commandLineOf } from "./commandLine.js"
import { run } from "./runMode.js"
import { threadsCommand } from "./threads.js"
import { threadsAnsweredBy } from "./threadsCommand.js"

/**
 * `codex-replay threads` on its own (src/cli/main.ts starts it): the same command and command line as the
 * full one, without the other commands' definitions. Bundled apart (`dist/bundle/listing.cjs`) so that a
 * listing answered from the thread index loads only the modules it runs, from V8's code cache. Its modules are
 * imported, not loaded when the command runs: a bundle with no dynamic import runs each module's code once,
 * in order, instead of behind a lazy initialiser (bytes and start time: 45 KB and about 13 ms less).
 */
run(commandLineOf([threadsAnsweredBy(threadsCommand)])(process.argv), 130)
