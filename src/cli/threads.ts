import { Effect, Fiber, Layer, Schedule } from "effect"
import { invalidArgument } from "../domain/errors.js"
import { formatUsd } from "../domain/report/format.js"
import { listThreads, readingMessage } from "../programs/threads/threadList.js"
import { ClaudeHistory } from "../services/history/ClaudeHistory.js"
import { Samples } from "../services/Samples.js"
import { Settings } from "../services/Settings.js"
import { makeOutput, orDash, pageLine } from "./terminal.js"

export interface ThreadsOptions {
  readonly query: string | undefined
  readonly source: "imported" | "sample" | undefined
  readonly sort: "date" | "cost"
  readonly limit: number
  readonly offset: number
  readonly json: boolean
}

/**
 * The history is read in this process: listing needs no controller, and only the two services it reads
 * (loading the run engine's modules would cost a second listing, answered from the index, most of its time).
 */
const HistoryLive = Layer.mergeAll(ClaudeHistory.layerWith({ workers: "auto" }), Samples.Default).pipe(
  Layer.provideMerge(Settings.fromEnv)
)

const validate = (options: ThreadsOptions) =>
  Effect.gen(function*() {
    if (!(Number.isInteger(options.limit) && options.limit >= 1 && options.limit <= 100)) {
      return yield* invalidArgument("--limit must be a whole number from 1 through 100.")
    }
    if (!(Number.isInteger(options.offset) && options.offset >= 0 && options.offset <= 100_000)) {
      return yield* invalidArgument("--offset must be a whole number from 0 through 100000.")
    }
    if (options.query !== undefined && options.query.length > 1000) {
      return yield* invalidArgument("--query must be at most 1000 characters.")
    }
  })

const day = (iso: string | null) => (iso === null ? "-" : iso.slice(0, 10))
const cost = (usd: number | null) => (usd === null ? "-" : formatUsd(usd))

const PROGRESS_INTERVAL = "200 millis"

/**
 * On a terminal, a cold listing says how far it is ("Reading 812 of 3,200 sessions…") on stderr, on one line
 * that is cleared when the listing ends; a listing answered from the index shows nothing.
 */
const withProgress = <A, E, R>(listing: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    if (process.stderr.isTTY !== true) return yield* listing
    const history = yield* ClaudeHistory
    let shown = false
    const show = Effect.flatMap(history.listingProgress, (progress) =>
      Effect.sync(() => {
        if (!progress.reading || progress.total === 0) return
        shown = true
        process.stderr.write(`\r${readingMessage(progress.done, progress.total)}\u001b[K`)
      }))
    const ticker = yield* Effect.fork(Effect.repeat(show, Schedule.spaced(PROGRESS_INTERVAL)).pipe(Effect.delay(PROGRESS_INTERVAL)))
    return yield* listing.pipe(Effect.ensuring(Effect.andThen(Fiber.interrupt(ticker), Effect.sync(() => {
      if (shown) process.stderr.write("\r\u001b[K")
    }))))
  })

/** `codex-replay threads`: one line per thread, numbered as in the browser (`#N`), and the paging. */
export const threadsCommand = (options: ThreadsOptions) =>
  Effect.gen(function*() {
    yield* validate(options)
    const out = makeOutput(options.json)
    const result = yield* withProgress(listThreads({
      sort: options.sort,
      offset: options.offset,
      limit: options.limit,
      ...(options.query === undefined ? {} : { query: options.query }),
      ...(options.source === undefined ? {} : { source: options.source })
    }))
    if (options.json) return yield* out.result(result)
    if (result.empty_history !== null && result.source === "sample" && options.source === undefined) {
      yield* out.say(`${result.empty_history} Showing the packaged samples.`)
    }
    if (result.threads.length === 0) {
      if (result.source === "imported" && result.empty_history !== null) {
        return yield* out.say(`${result.empty_history} Try the packaged samples: codex-replay threads --source sample`)
      }
      return yield* out.say(result.total === 0 && options.query !== undefined ? "No thread matches the search." : "No threads.")
    }
    for (const [index, thread] of result.threads.entries()) {
      yield* out.say(
        `#${result.offset + index + 1}  ${thread.imported_thread_id}  ${day(thread.started_at)}  ${cost(thread.cost_usd)}  ${
          orDash(thread.project_dir)
        }  ${thread.title}`
      )
    }
    const page = { offset: result.offset, shown: result.threads.length, total: result.total, hasMore: result.has_more }
    yield* out.say(pageLine(page, `${result.source} thread(s)`))
  }).pipe(Effect.provide(HistoryLive))
