import * as vm from "node:vm"

const probeSource = (n: number) => `(function () { return 1 + 1 })() // ${String(n).padStart(9, "0")}`
/** Made with the flags this process started with: V8 refuses a code cache made under other flags. */
const cacheAtStart = new vm.Script(probeSource(0)).createCachedData()
let probes = 0

/**
 * Whether V8's flags are now those the process started with: a code cache carries a hash of them, and a script
 * given one made at the start is refused once they differ. Each probe compiles a new source of the same length
 * (a cache is checked against the source's length), which V8's own compilation cache cannot answer.
 */
export const v8FlagsAsAtStart = () => new vm.Script(probeSource(++probes), { cachedData: cacheAtStart }).cachedDataRejected !== true
