/**
 * The thread tools' payloads (`list_threads`, `inspect_thread`); the folder's index re-exports them.
 */
import { Schema } from "effect"
import { boundedInteger, optionalOrNull, text } from "./fields.js"
import { sentence } from "../toolResult.js"
import { dayField } from "../dateRange.js"

export const THREAD_SORTS = ["date", "cost"] as const
export type ThreadSort = (typeof THREAD_SORTS)[number]
export const DEFAULT_THREADS_PAGE = 20
export const MAX_THREADS_PAGE = 100
export const MAX_THREADS_OFFSET = 100_000

/** `list_threads`: a page of one source's threads, optionally searched, by date (default) or cost. */
export const ListThreadsArguments = Schema.Struct({
  source: optionalOrNull(Schema.Literal("imported", "sample").annotations(sentence("source must be imported or sample."))),
  sort: optionalOrNull(Schema.Literal(...THREAD_SORTS).annotations(sentence("sort must be date or cost."))),
  offset: optionalOrNull(boundedInteger("offset", 0, MAX_THREADS_OFFSET)),
  limit: optionalOrNull(boundedInteger("limit", 1, MAX_THREADS_PAGE)),
  query: optionalOrNull(text("query must be a string.")),
  since: optionalOrNull(dayField("since")),
  until: optionalOrNull(dayField("until"))
}).annotations(sentence("The tool arguments must be an object."))
export type ListThreadsArguments = typeof ListThreadsArguments.Type

const inspectionText = (field: string) =>
  optionalOrNull(
    text(`${field} must be a string.`).pipe(
      Schema.filter((value) => value.trim() !== "", sentence(`${field} must not be empty.`))
    )
  )

const inspectionKind = (field: string) =>
  optionalOrNull(Schema.Literal("git", "non_git", "").annotations(sentence(`${field} must be Git or Non-Git ("git" or "non_git").`)))

/** `inspect_thread`: the thread, and the beginning and end the user chose so far (`""` leaves a kind unset). */
export const InspectThreadArguments = Schema.Struct({
  thread_id: Schema.String.pipe(Schema.filter((value) => value.trim() !== ""), Schema.annotations(sentence("thread_id is required."))),
  repo: inspectionText("repo"),
  beginning_kind: inspectionKind("beginning_kind"),
  ending_kind: inspectionKind("ending_kind"),
  baseline_commit: inspectionText("baseline_commit"),
  ending_commit: inspectionText("ending_commit"),
  excluded_files: optionalOrNull(Schema.Array(Schema.String).annotations(sentence("excluded_files must be a list of file paths."))),
  range_start: inspectionText("range_start"),
  range_end: inspectionText("range_end")
}).annotations(sentence("The tool arguments must be an object."))
export type InspectThreadArguments = typeof InspectThreadArguments.Type
