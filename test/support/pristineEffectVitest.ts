import { it } from "@effect/vitest"

/**
 * Set-up of every file of the in-process tier, whose files share worker threads and their modules.
 *
 * `@effect/vitest`'s `it.layer(layer)(…)` hands its callback the package's own `it` with `effect`,
 * `scoped` and `layer` replaced by versions bound to that layer's runtime (0.30: `Object.assign` on the
 * shared object). In a process of its own nothing follows; in a shared one the next file's plain
 * `it.effect` would run on the previous file's services, and its `it.layer(x)` would become a layer
 * nested in the previous one (its memo map, its services first). Each file starts from the methods the
 * package was loaded with.
 */
const METHODS = ["effect", "scoped", "live", "scopedLive", "layer", "flakyTest", "prop"] as const

type Methods = Pick<typeof it, (typeof METHODS)[number]>

const holder = globalThis as { __codexReplayPristineIt?: Methods }
holder.__codexReplayPristineIt ??= Object.fromEntries(METHODS.map((name) => [name, it[name]])) as Methods
Object.assign(it, holder.__codexReplayPristineIt)
