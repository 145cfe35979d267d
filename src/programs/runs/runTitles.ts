/**
 * The titles of the threads runs replayed, as the history names them now (`list_runs` shows and searches
 * them). A run's state keeps only its thread id; the title comes from the thread listing (imported threads)
 * and the packaged samples, when this process has them. Without them (an embedding that provides neither),
 * or for a thread no longer in the history, the title is null.
 */
import { Clock, Effect, Option } from "effect"
import { ClaudeHistory } from "../../services/history/ClaudeHistory.js"
import { Samples } from "../../services/Samples.js"

/** A thread missing from the history is looked up again after this long; a title found is kept. */
const MISSING_FOR_MILLIS = 60_000

interface Known {
  readonly title: string | null
  readonly at: number
}

/**
 * Titles found, per history: the page's Runs view lists runs every few seconds, and a listing of the history
 * (one directory walk) is taken only for a thread id not seen yet.
 */
const cache = new WeakMap<object, Map<string, Known>>()
const NO_HISTORY = {}

/** Each thread id's title, or null when the history has no such thread. */
export const threadTitles = (threadIds: Iterable<string>) =>
  Effect.gen(function*() {
    const history = yield* Effect.serviceOption(ClaudeHistory)
    const samples = yield* Effect.serviceOption(Samples)
    const known = cache.get(Option.getOrElse(history, () => NO_HISTORY)) ?? new Map<string, Known>()
    cache.set(Option.getOrElse(history, () => NO_HISTORY), known)
    const now = yield* Clock.currentTimeMillis
    const wanted = [...new Set(threadIds)]
    const unknown = wanted.filter((id) => {
      const entry = known.get(id)
      return entry === undefined || (entry.title === null && now - entry.at > MISSING_FOR_MILLIS)
    })
    if (unknown.length > 0 && (Option.isSome(history) || Option.isSome(samples))) {
      const found = new Map<string, string>()
      if (Option.isSome(samples)) {
        for (const sample of yield* Effect.orElseSucceed(samples.value.list(), () => [])) found.set(sample.imported_thread_id, sample.title)
      }
      if (Option.isSome(history)) {
        const listing = yield* Effect.option(history.value.listing())
        const asked = new Set(unknown)
        for (const thread of Option.isSome(listing) ? listing.value.threads : []) {
          if (!asked.has(thread.imported_thread_id)) continue
          const summary = yield* Effect.option(thread.summary)
          if (Option.isSome(summary)) found.set(thread.imported_thread_id, summary.value.title)
        }
      }
      for (const id of unknown) known.set(id, { title: found.get(id) ?? null, at: now })
    }
    return new Map(wanted.map((id) => [id, known.get(id)?.title ?? null] as const))
  })
