/**
 * What a portfolio page carries besides its figures, each read where it is available and left out where it
 * is not (none of them is worth failing a portfolio for): the threads' titles from the history, the runs'
 * `report.html` to embed, and this controller's origin for the runs' addresses.
 */
import { Effect, Option } from "effect"
import { ClaudeHistory } from "../../services/history/ClaudeHistory.js"
import { ControllerRuntime } from "../../services/ControllerRuntime.js"
import { FileStore } from "../../services/FileStore.js"
import { Samples } from "../../services/Samples.js"
import { locateReport } from "../reports/reports.js"

/** Titles of the given threads: packaged samples' and imported threads' (from the history's listing). */
export const threadTitles = (threadIds: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const wanted = new Set(threadIds)
    const titles = new Map<string, string>()
    if (wanted.size === 0) return titles
    const samples = yield* Effect.serviceOption(Samples)
    if (Option.isSome(samples)) {
      for (const sample of yield* Effect.catchAllCause(samples.value.list(), () => Effect.succeed([]))) {
        if (wanted.has(sample.imported_thread_id)) titles.set(sample.imported_thread_id, sample.title)
      }
    }
    const history = yield* Effect.serviceOption(ClaudeHistory)
    if (Option.isSome(history)) {
      const listing = yield* Effect.catchAllCause(Effect.option(history.value.listing()), () => Effect.succeed(Option.none()))
      const threads = Option.match(listing, { onNone: () => [], onSome: (found) => found.threads })
      yield* Effect.forEach(threads.filter((thread) => wanted.has(thread.imported_thread_id) && !titles.has(thread.imported_thread_id)), (thread) =>
        Effect.matchCause(thread.summary, { onFailure: () => undefined, onSuccess: (summary) => void titles.set(thread.imported_thread_id, summary.title) }), { discard: true })
    }
    return titles as ReadonlyMap<string, string>
  }).pipe(Effect.catchAllCause(() => Effect.succeed(new Map<string, string>() as ReadonlyMap<string, string>)))

/** A run's `report.html` as written, or null when it cannot be read. */
export const reportHtmlOf = (directory: string) =>
  Effect.gen(function*() {
    const files = yield* FileStore
    const found = yield* locateReport(directory, "html")
    return yield* files.readBounded(found.path, Number.MAX_SAFE_INTEGER)
  }).pipe(Effect.catchAllCause(() => Effect.succeed(null)))

/** This controller's origin (`http://127.0.0.1:PORT`) when the portfolio is written by a running controller. */
export const controllerOriginHere = Effect.map(Effect.serviceOption(ControllerRuntime), Option.match({ onNone: () => null, onSome: (runtime) => runtime.origin }))
