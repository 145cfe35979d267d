import { setFlagsFromString } from "node:v8"

/**
 * TurboFan's inlining, off while a cold listing's worker threads parse (`ClaudeHistoryOptions.withoutInlining`).
 * The parse's hot functions read JSON objects of many shapes: each is optimised, deoptimised on a new shape and
 * optimised again several times per thread, and with the small helpers they call inlined each compile is several
 * times dearer, on the same two cores as the parse. Without inlining, 10 alternating cold listings of 2,000
 * sessions were a median 308 ms (7%) faster, 9 of them faster (README, "The thread list and its index").
 *
 * V8's flags are the process's, so only the command line's listing, a process that ends when it has answered,
 * asks for this; the daemon and an embedding program keep V8's defaults. Inlining is back on as soon as the last
 * pool that turned it off stops, before the process exits: a code cache made at exit carries a hash of V8's
 * flags, and the next start would refuse one made with inlining off. A process started with an inlining flag of
 * its own (`node --no-turbo-inlining`; NODE_OPTIONS may not carry one) is left as it was started.
 */
const givenAtStart = process.execArgv.some((argument) => /^--(no-)?turbo[-_]inlining\b/.test(argument))
let pools = 0

export const turnInliningOff = () => {
  if (!givenAtStart && pools++ === 0) setFlagsFromString("--no-turbo-inlining")
}

export const turnInliningBackOn = () => {
  if (!givenAtStart && pools > 0 && --pools === 0) setFlagsFromString("--turbo-inlining")
}
