import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { type Effect, Option } from "effect"
import { dayOption, json, wholeNumber } from "./options.js"
import type { ThreadsOptions } from "./threads.js"

const options = {
  query: Options.text("query").pipe(
    Options.withDescription("Search title, project directory, model and thread id (case-insensitive)."),
    Options.optional
  ),
  source: Options.choice("source", ["imported", "sample"]).pipe(
    Options.withDescription("Imported Claude Code threads or the packaged samples."),
    Options.optional
  ),
  sort: Options.choice("sort", ["date", "cost"]).pipe(
    Options.withDescription("Most recent first (date, the default) or most expensive first (cost)."),
    Options.withDefault("date" as const)
  ),
  limit: wholeNumber("limit", "Threads per page: a whole number from 1 through 100.", 20),
  offset: wholeNumber("offset", "Threads to skip: a whole number from 0 through 100000.", 0),
  since: dayOption("since", "Only threads started on or after this day (YYYY-MM-DD or YYYYMMDD)."),
  until: dayOption("until", "Only threads started on or before this day (YYYY-MM-DD or YYYYMMDD)."),
  json
}

/**
 * `codex-replay threads` answered by `list`: the command's one definition.
 */
export const threadsAnsweredBy = <E, R>(list: (options: ThreadsOptions) => Effect.Effect<void, E, R>) =>
  Command.make("threads", options, (given) =>
    list({
      query: Option.getOrUndefined(given.query),
      source: Option.getOrUndefined(given.source),
      sort: given.sort,
      limit: given.limit,
      offset: given.offset,
      since: Option.getOrUndefined(given.since),
      until: Option.getOrUndefined(given.until),
      json: given.json
    })).pipe(Command.withDescription("List (or search) the Claude Code threads that can be replayed."))
