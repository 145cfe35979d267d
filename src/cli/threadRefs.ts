/**
 * What names a thread or a run on the command line: a whole id, any unique prefix of one, or (a thread)
 * the `#N` of the last `codex-replay threads` listing. Resolved in this process, from the history and the
 * run root, before any controller is asked or started: a reference that names nothing, or more than one
 * thing, is one sentence (with the candidates) and changes nothing.
 */
import { Effect, Option } from "effect"
import * as path from "node:path"
import { invalidArgument, notFound } from "../domain/errors.js"
import { isRunId } from "../domain/ids.js"
import { ClaudeHistory } from "../services/history/ClaudeHistory.js"
import { FileStore } from "../services/FileStore.js"
import { Samples } from "../services/Samples.js"
import { Settings } from "../services/Settings.js"
import { readLastListing } from "./lastListing.js"

/** At most this many candidates are listed for an ambiguous prefix. */
const SHOWN_CANDIDATES = 10

export interface Candidate {
  readonly id: string
  /** A title to tell it apart (a thread's), or "" (a run). */
  readonly label: string
}

const NUMBERED = /^#(\d+)$/

/**
 * The one candidate `reference` names: its whole id, else the only id that starts with it (case-insensitive).
 * `what` is "thread" or "run"; `hint` where to find the ids.
 */
export const pickByPrefix = (reference: string, ids: ReadonlyArray<string>, what: string, hint: string) => {
  const wanted = reference.trim()
  if (wanted === "") return { _tag: "None" as const, message: `Give a ${what} ID or the start of one; ${hint}.` }
  if (ids.includes(wanted)) return { _tag: "One" as const, id: wanted }
  const lower = wanted.toLowerCase()
  const matching = ids.filter((id) => id.toLowerCase().startsWith(lower))
  if (matching.length === 1) return { _tag: "One" as const, id: matching[0]! }
  if (matching.length === 0) {
    return { _tag: "None" as const, message: `No ${what} has the ID or ID prefix ${JSON.stringify(wanted.slice(0, 100))}; ${hint}.` }
  }
  return { _tag: "Many" as const, ids: matching }
}

/** "…matches 3 threads; give more of its ID:" and one line per candidate. */
export const ambiguityMessage = (reference: string, what: string, candidates: ReadonlyArray<Candidate>) => {
  const shown = candidates.slice(0, SHOWN_CANDIDATES)
  const more = candidates.length - shown.length
  return [
    `${JSON.stringify(reference.trim())} matches ${candidates.length} ${what}s; give more of the ID (nothing was changed):`,
    ...shown.map((candidate) => `  ${candidate.id}${candidate.label === "" ? "" : `  ${candidate.label}`}`),
    ...(more > 0 ? [`  … and ${more} more`] : [])
  ].join("\n")
}

/** Every thread this history can replay: imported ones newest first, then the packaged samples. */
const knownThreads = Effect.gen(function*() {
  const history = yield* ClaudeHistory
  const samples = yield* Samples
  const imported = (yield* history.listing()).threads
  const sampled = yield* Effect.orElseSucceed(samples.list(), () => [])
  return [
    ...imported.map((thread) => ({ id: thread.imported_thread_id, title: Effect.map(thread.summary, (summary) => summary.title) })),
    ...sampled.map((sample) => ({ id: sample.imported_thread_id, title: Effect.succeed(sample.title) }))
  ]
})

export interface ResolvedThread {
  readonly threadId: string
  readonly title: string
}

/** The thread `reference` names (`#N`, a whole id or a unique prefix), with its title. */
export const resolveThread = (reference: string) =>
  Effect.gen(function*() {
    const threads = yield* knownThreads
    const titleOf = (id: string) =>
      Effect.orElseSucceed(threads.find((thread) => thread.id === id)?.title ?? Effect.succeed(""), () => "")
    const numbered = NUMBERED.exec(reference.trim())
    if (numbered !== null) {
      const listing = yield* readLastListing
      if (Option.isNone(listing)) {
        return yield* notFound(`${reference.trim()} refers to the last \`codex-replay threads\` listing, and there is none yet; run \`codex-replay threads\` first.`)
      }
      const { offset, thread_ids: ids } = listing.value
      const id = ids[Number(numbered[1]) - offset - 1]
      if (id === undefined) {
        return yield* notFound(
          ids.length === 0
            ? `${reference.trim()} is not in the last \`codex-replay threads\` listing, which showed no thread.`
            : `${reference.trim()} is not in the last \`codex-replay threads\` listing (#${offset + 1}–#${offset + ids.length}); list it again with --offset.`
        )
      }
      if (!threads.some((thread) => thread.id === id)) {
        return yield* notFound(`${reference.trim()} was thread ${id}, which this history no longer has; run \`codex-replay threads\` again.`)
      }
      return { threadId: id, title: yield* titleOf(id) } satisfies ResolvedThread
    }
    const picked = pickByPrefix(reference, threads.map((thread) => thread.id), "thread", "see `codex-replay threads`")
    if (picked._tag === "None") return yield* notFound(picked.message)
    if (picked._tag === "Many") {
      const candidates = yield* Effect.forEach(picked.ids, (id) => Effect.map(titleOf(id), (label) => ({ id, label })))
      return yield* invalidArgument(ambiguityMessage(reference, "thread", candidates))
    }
    return { threadId: picked.id, title: yield* titleOf(picked.id) } satisfies ResolvedThread
  })

/** The run `reference` names: its whole id or a unique prefix of one, among the run root's runs. */
export const resolveRunId = (reference: string) =>
  Effect.gen(function*() {
    const runRoot = (yield* Settings).runRoot
    const wanted = reference.trim()
    if (!isRunId(wanted)) return yield* invalidArgument("The run ID is invalid.")
    const files = yield* FileStore
    if (yield* Effect.orElseSucceed(files.isDirectory(path.join(runRoot, wanted)), () => false)) return wanted
    const ids = (yield* Effect.orElseSucceed(files.listDirectories(runRoot), () => [] as Array<string>)).filter(isRunId).sort().reverse()
    const picked = pickByPrefix(wanted, ids, "run", "see `codex-replay runs`")
    if (picked._tag === "None") return yield* notFound(`No run ${wanted} in ${runRoot}.`)
    if (picked._tag === "Many") return yield* invalidArgument(ambiguityMessage(wanted, "run", picked.ids.map((id) => ({ id, label: "" }))))
    return picked.id
  })
