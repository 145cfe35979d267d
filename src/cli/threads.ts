import { Effect, Either, Fiber, Schedule } from "effect"
import { dateRangeOf, localDay } from "../domain/dateRange.js"
import { invalidArgument } from "../domain/errors.js"
import { shortThreadId } from "../domain/report/format.js"
import type { ThreadSummary } from "../domain/history/session.js"
import { promptTokens } from "../domain/history/pricing.js"
import { listThreads, readingMessage } from "../programs/threads/threadList.js"
import { ClaudeHistory } from "../services/history/ClaudeHistory.js"
import { HistoryLive } from "./historyLayer.js"
import { CommandLineIo } from "./io.js"
import { saveLastListing } from "./lastListing.js"
import { knownSum, renderTable, type TableSpec, tokens, usd } from "./table.js"
import { daysWords, makeOutput, pageLine } from "./terminal.js"

export interface ThreadsOptions {
  readonly query: string | undefined
  readonly source: "imported" | "sample" | undefined
  readonly sort: "date" | "cost"
  readonly limit: number
  readonly offset: number
  /** `--since` / `--until`: the local days the threads started in (YYYY-MM-DD or YYYYMMDD). */
  readonly since?: string | undefined
  readonly until?: string | undefined
  readonly json: boolean
}

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
    return yield* Either.mapLeft(dateRangeOf(options), invalidArgument)
  })

/** The listing as a table: `#N`, the day it started, title, project, Claude's tokens and cost, and a totals row. */
export const threadsTable = (threads: ReadonlyArray<ThreadSummary>, offset: number, whole: boolean): TableSpec => {
  const sum = (value: (thread: ThreadSummary) => number) => threads.reduce((total, thread) => total + value(thread), 0)
  return {
    columns: [
      { header: "#", align: "right", whole: true },
      { header: "Date" },
      { header: "Title", wraps: true },
      { header: "Project", wraps: true, dropOrder: 2 },
      { header: "Input", align: "right", dropOrder: 1 },
      { header: "Output", align: "right", dropOrder: 1 },
      { header: "Cost", align: "right" },
      { header: "Thread", whole: true }
    ],
    rows: threads.map((thread, index) => [
      `#${offset + index + 1}`,
      localDay(thread.started_at) ?? "-",
      thread.title,
      thread.project_dir ?? "-",
      tokens(promptTokens(thread.tokens)),
      tokens(thread.tokens.output),
      usd(thread.cost_usd),
      shortThreadId(thread.imported_thread_id)
    ]),
    totals: [
      whole ? "Total" : "Page",
      "",
      "",
      "",
      tokens(sum((thread) => promptTokens(thread.tokens))),
      tokens(sum((thread) => thread.tokens.output)),
      knownSum(threads.map((thread) => thread.cost_usd), usd),
      ""
    ]
  }
}

const PROGRESS_INTERVAL = "200 millis"

/**
 * On a terminal, a cold listing says how far it is ("Reading 812 of 3,200 sessions…") on stderr, on one line
 * that is cleared when the listing ends; a listing answered from the index shows nothing.
 */
const withProgress = <A, E, R>(listing: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const stderr = (yield* CommandLineIo).stderr
    if (stderr.isTTY !== true) return yield* listing
    const history = yield* ClaudeHistory
    let shown = false
    const show = Effect.flatMap(history.listingProgress, (progress) =>
      Effect.sync(() => {
        if (!progress.reading || progress.total === 0) return
        shown = true
        stderr.write(`\r${readingMessage(progress.done, progress.total)}\u001b[K`)
      }))
    const ticker = yield* Effect.fork(Effect.repeat(show, Schedule.spaced(PROGRESS_INTERVAL)).pipe(Effect.delay(PROGRESS_INTERVAL)))
    return yield* listing.pipe(Effect.ensuring(Effect.andThen(Fiber.interrupt(ticker), Effect.sync(() => {
      if (shown) stderr.write("\r\u001b[K")
    }))))
  })

/** `codex-replay threads`: a table of threads, numbered as in the browser (`#N`, kept for the next command), and the paging. */
export const threadsCommand = (options: ThreadsOptions) =>
  Effect.gen(function*() {
    const range = yield* validate(options)
    const out = yield* makeOutput(options.json)
    const result = yield* withProgress(listThreads({
      sort: options.sort,
      offset: options.offset,
      limit: options.limit,
      ...range,
      ...(options.query === undefined ? {} : { query: options.query }),
      ...(options.source === undefined ? {} : { source: options.source })
    }))
    // What `#N` names on the next command (`replay #3`).
    yield* saveLastListing({ offset: result.offset, thread_ids: result.threads.map((thread) => thread.imported_thread_id) })
    if (options.json) return yield* out.result(result)
    if (result.empty_history !== null && result.source === "sample" && options.source === undefined) {
      yield* out.say(`${result.empty_history} Showing the packaged samples.`)
    }
    if (result.threads.length === 0) {
      if (result.source === "imported" && result.empty_history !== null) {
        return yield* out.say(`${result.empty_history} Try the packaged samples: codex-replay threads --source sample`)
      }
      const days = daysWords(range)
      if (result.total === 0 && days !== undefined) {
        return yield* out.say(`No thread started ${days}${options.query === undefined ? "" : " matches the search"}.`)
      }
      return yield* out.say(result.total === 0 && options.query !== undefined ? "No thread matches the search." : "No threads.")
    }
    const whole = result.offset === 0 && !result.has_more
    yield* out.say(renderTable(threadsTable(result.threads, result.offset, whole), out.look))
    const page = { offset: result.offset, shown: result.threads.length, total: result.total, hasMore: result.has_more }
    yield* out.say(pageLine(page, `${result.source} thread(s)`))
  }).pipe(Effect.provide(HistoryLive))
