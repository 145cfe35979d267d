/**
 * The threads of `codex-replay batch`, chosen in this process before any controller is asked or started:
 * `--threads` by `#N`, whole ids or unique prefixes, `--query` and `--recent` from the history's listing.
 * A mistake in the command line, or a selection that names no thread, starts nothing.
 */
import { Effect, Either } from "effect"
import { invalidArgument, notFound } from "../domain/errors.js"
import { THREAD_ID_PATTERN } from "../domain/ids.js"
import { MAX_REPLAY_THREADS } from "../domain/product.js"
import { listThreads } from "../programs/threads/threadList.js"
import { type BatchOptions, validateBatchOptions } from "./batch.js"
import { HistoryLive } from "./historyLayer.js"
import { resolveThread } from "./threadRefs.js"

type Selection = Pick<BatchOptions, "query" | "threads" | "recent" | "models" | "reviewerModel" | "secondJudge">

export interface SelectedThreads {
  /** The thread ids, separated by commas, as `--threads` takes them. */
  readonly threads: string
  readonly titles: ReadonlyMap<string, string>
}

const listed = (payload: { readonly query?: string; readonly limit: number }) =>
  Effect.map(listThreads(payload), (result) => result.threads.map((thread) => ({ threadId: thread.imported_thread_id, title: thread.title })))

export const selectBatchThreads = (selection: Selection) =>
  Effect.gen(function*() {
    const given = [selection.query, selection.threads, selection.recent].filter((value) => value !== undefined).length
    if (given !== 1) return yield* invalidArgument("Choose the threads with exactly one of --query, --threads and --recent.")
    // Every other mistake (models, --recent's range, an empty --query) is said before the history is read.
    const probe = { ...selection, threads: selection.threads === undefined ? undefined : "probe", yes: false, json: false }
    yield* Either.match(validateBatchOptions(probe), { onLeft: Effect.fail, onRight: () => Effect.void })
    const references = (selection.threads ?? "").split(",").map((reference) => reference.trim()).filter((reference) => reference !== "")
    const invalid = references.find((reference) => !/^#\d+$/.test(reference) && !THREAD_ID_PATTERN.test(reference))
    if (invalid !== undefined) return yield* invalidArgument(`Invalid thread ID ${JSON.stringify(invalid.slice(0, 100))}; see \`codex-replay threads\`.`)
    const repeated = references.find((reference, index) => references.indexOf(reference) !== index)
    if (repeated !== undefined) return yield* invalidArgument(`Thread ${repeated} is given more than once in --threads.`)
    const threads = selection.threads !== undefined
      ? yield* Effect.forEach(references, resolveThread)
      : selection.query !== undefined
      ? yield* listed({ query: selection.query.trim(), limit: MAX_REPLAY_THREADS })
      : yield* listed({ limit: selection.recent! })
    if (threads.length === 0) {
      return yield* selection.threads !== undefined
        ? invalidArgument("--threads must name at least one thread ID.")
        : notFound(selection.query !== undefined ? `No thread matches ${JSON.stringify(selection.query.trim())}.` : "There is no thread to replay.")
    }
    const chosen: SelectedThreads = {
      threads: threads.map((thread) => thread.threadId).join(","),
      titles: new Map(threads.map((thread) => [thread.threadId, thread.title]))
    }
    // The ids as resolved are checked as `--threads` always was (each once, at most 100).
    yield* Either.match(validateBatchOptions({ ...selection, query: undefined, recent: undefined, threads: chosen.threads, yes: false, json: false }), {
      onLeft: Effect.fail,
      onRight: () => Effect.void
    })
    return chosen
  }).pipe(Effect.provide(HistoryLive))
