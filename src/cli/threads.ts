import { Effect, Layer } from "effect"
import { controllerError } from "../domain/errors.js"
import { CoreLive, EngineLive } from "../layers.js"
import { listThreads } from "../programs/threads.js"
import { Settings } from "../services/Settings.js"
import { makeOutput, orDash } from "./terminal.js"

export interface ThreadsOptions {
  readonly query: string | undefined
  readonly source: "imported" | "sample" | undefined
  readonly limit: number
  readonly offset: number
  readonly json: boolean
}

/** The history is read in this process: listing needs no controller. */
const HistoryLive = EngineLive.pipe(Layer.provideMerge(CoreLive), Layer.provideMerge(Settings.fromEnv))

const validate = (options: ThreadsOptions) =>
  Effect.gen(function*() {
    if (!(Number.isInteger(options.limit) && options.limit >= 1 && options.limit <= 100)) {
      return yield* controllerError("--limit must be a whole number from 1 through 100.")
    }
    if (!(Number.isInteger(options.offset) && options.offset >= 0 && options.offset <= 100_000)) {
      return yield* controllerError("--offset must be a whole number from 0 through 100000.")
    }
    if (options.query !== undefined && options.query.length > 1000) {
      return yield* controllerError("--query must be at most 1000 characters.")
    }
  })

const day = (iso: string | null) => (iso === null ? "-" : iso.slice(0, 10))

/** `codex-replay threads`: one line per thread, numbered as in the browser (`#N`), and the paging. */
export const threadsCommand = (options: ThreadsOptions) =>
  Effect.gen(function*() {
    yield* validate(options)
    const out = makeOutput(options.json)
    const result = yield* listThreads({
      offset: options.offset,
      limit: options.limit,
      ...(options.query === undefined ? {} : { query: options.query }),
      ...(options.source === undefined ? {} : { source: options.source })
    })
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
        `#${result.offset + index + 1}  ${thread.imported_thread_id}  ${day(thread.started_at)}  ${orDash(thread.project_dir)}  ${thread.title}`
      )
    }
    const last = result.offset + result.threads.length
    yield* out.say(
      `${result.offset + 1}–${last} of ${result.total} ${result.source} thread(s)${
        result.has_more ? `; more with --offset ${last}` : ""
      }.`
    )
  }).pipe(Effect.provide(HistoryLive))
