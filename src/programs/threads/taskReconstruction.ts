import { Effect, Either, Option, Schema } from "effect"
import { createHash } from "node:crypto"
import * as path from "node:path"
import type { SynthesizedRequest } from "../../domain/contracts/results.js"
import { SynthesisCall } from "../../domain/contracts/taskSource.js"
import { RequestGeneration } from "../../domain/contracts/threadResults.js"
import { invalidArgument } from "../../domain/errors.js"
import { MAX_RECONSTRUCTION_BYTES, REQUEST_SYNTHESIS_MODEL } from "../../domain/history/request.js"
import type { ThreadRecord } from "../../domain/history/session.js"
import { type RangeSource, renderSourceMessage, sourceInRange } from "../../domain/history/taskSource.js"
import { taskOverlap } from "../../domain/history/taskOverlap.js"
import { CodexModels } from "../../services/CodexModels.js"
import { FileStore } from "../../services/FileStore.js"
import { Settings } from "../../services/Settings.js"
import { type ConversationTurn, synthesizeRequestOutcome } from "./requestSynthesis.js"
import { chunkOffer, threadRecordById } from "./threads.js"

/**
 * `synthesize_request` (docs/history.md, "The task comes from the user"): the task prompt written from the
 * user's own messages in the thread or chunk and the questions Claude asked them, only when asked (the page's
 * button, the CLI's replay, an API call) and never when a thread is listed or opened. A model's answer is
 * cached per thread file (its path, size and modification time) and range under the cache root, so asking
 * again costs no second call; the call's model and tokens are kept with it.
 */

/** Bumped when what is sent to the model changes, so an older cached answer is not reused. */
const CACHE_VERSION = 1
const MAX_CACHE_BYTES = 1024 * 1024

export const reconstructionDirectory = (cacheRoot: string) => path.join(cacheRoot, "reconstructions")

const CachedReconstruction = Schema.Struct({
  version: Schema.Literal(CACHE_VERSION),
  request: Schema.String,
  request_generation: RequestGeneration,
  /** The call that wrote it; null for a fallback after a failed call that reported no tokens. */
  synthesis: Schema.NullOr(SynthesisCall)
})

export interface TaskRange {
  readonly start: string
  readonly end: string
}

/** The thread and, for a chunk, both ends of its range; one end alone is refused. */
export const decodeReconstructionArguments = (payload: {
  readonly thread_id: string
  readonly range_start?: string | undefined
  readonly range_end?: string | undefined
}) => {
  const start = payload.range_start?.trim() || undefined
  const end = payload.range_end?.trim() || undefined
  if ((start === undefined) !== (end === undefined)) return Either.left(invalidArgument("A chunk needs both range_start and range_end."))
  return Either.right({ threadId: payload.thread_id.trim(), range: start === undefined || end === undefined ? undefined : { start, end } })
}

/** What the model reads: each answer after the question it answers, as an assistant turn. */
export const sourceTurns = (source: RangeSource): Array<ConversationTurn> =>
  source.messages.flatMap((message): Array<ConversationTurn> => {
    const user: ConversationTurn = { role: "user", text: message.text }
    return message.asked === null ? [user] : [{ role: "assistant", text: message.asked }, user]
  })

/** The source's texts as the overlap reads them: the messages, the questions they answered and, for a chunk, the earlier prompts. */
export const sourceTexts = (source: RangeSource) => [...source.messages.map(renderSourceMessage), ...source.earlier]

/** The user's own messages alone (not Claude's questions), whose words a prompt must carry enough of (taskOverlap.ts). */
export const ownTexts = (source: RangeSource) => source.messages.map((message) => message.text)

/** The same file unchanged and the same range give the same key (the model is the one synthesis model). */
const cacheKey = (record: ThreadRecord, range: TaskRange | undefined, model: string = REQUEST_SYNTHESIS_MODEL) =>
  Effect.gen(function*() {
    const files = yield* FileStore
    const identity = yield* Effect.orElseSucceed(files.statOption(record.source_path), () => Option.none())
    if (Option.isNone(identity)) return undefined
    const parts = [CACHE_VERSION, record.imported_thread_id, record.source_path, identity.value.size, identity.value.mtimeMs, range?.start ?? null, range?.end ?? null, model]
    return createHash("sha256").update(JSON.stringify(parts)).digest("hex")
  })

const cacheFile = (key: string) => Effect.map(Settings, (settings) => path.join(reconstructionDirectory(settings.cacheRoot), `${key}.json`))

/** A cached answer, or none (a damaged cache file is as good as none: the model is asked again). */
const readCached = (key: string) =>
  Effect.gen(function*() {
    const files = yield* FileStore
    return yield* files.readDecodedOption(yield* cacheFile(key), MAX_CACHE_BYTES, CachedReconstruction)
  }).pipe(Effect.orElseSucceed(() => Option.none()))

/** Written atomically (0600) in a private folder (0700); a cache that cannot be written only costs a later call. */
const writeCached = (key: string, value: typeof CachedReconstruction.Type) =>
  Effect.gen(function*() {
    const files = yield* FileStore
    const settings = yield* Settings
    yield* files.ensurePrivateDirectory(reconstructionDirectory(settings.cacheRoot))
    yield* files.writeJson(yield* cacheFile(key), value)
  }).pipe(Effect.ignore)

/** The model that rebuilds tasks (and infers working directories), when Codex offers it. */
export const synthesisModel = Effect.gen(function*() {
  const list = yield* (yield* CodexModels).list()
  return list.options.some((option) => option.id === REQUEST_SYNTHESIS_MODEL) ? REQUEST_SYNTHESIS_MODEL : undefined
})

/**
 * The user's own messages of the source, each after the question it answered, joined: the answer when no
 * model writes one, for a whole thread as for a chunk. Never the thread's recorded request, which may
 * resolve a terse reply against a numbered list in Claude's account of its work.
 */
export const fallbackRequest = (source: RangeSource) => source.messages.map(renderSourceMessage).join("\n\n")

/**
 * The cached reconstruction of a thread (or chunk), if one was made for the thread file as it is now; never
 * calls a model. A run whose prompt is that reconstruction records the call that wrote it (its cost).
 */
export const cachedReconstruction = (record: ThreadRecord, range: TaskRange | undefined) =>
  Effect.gen(function*() {
    const key = yield* cacheKey(record, range)
    return key === undefined ? Option.none() : yield* readCached(key)
  }).pipe(Effect.orElseSucceed(() => Option.none<typeof CachedReconstruction.Type>()))

/**
 * Claims the call of the cached reconstruction for `runId`: true for the one run that claims it first (a
 * marker created exclusively beside the cache file, named after the cached answer), false for every later
 * run that replays the same prompt, so the call is counted in exactly one run. A marker that cannot be
 * written leaves the call uncounted rather than counted twice.
 */
export const claimCachedReconstruction = (record: ThreadRecord, range: TaskRange | undefined, runId: string) =>
  Effect.gen(function*() {
    const key = yield* cacheKey(record, range)
    if (key === undefined) return false
    const cached = yield* readCached(key)
    if (Option.isNone(cached) || cached.value.synthesis === null) return false
    const answer = createHash("sha256").update(JSON.stringify(cached.value)).digest("hex").slice(0, 16)
    const marker = path.join(reconstructionDirectory((yield* Settings).cacheRoot), `${key}.${answer}.charged.json`)
    return yield* (yield* FileStore).createJsonExclusive(marker, { run_id: runId, synthesis: cached.value.synthesis })
  }).pipe(Effect.orElseSucceed(() => false))

export const reconstructTask = Effect.fn("threads.reconstructTask")(function*(threadId: string, range: TaskRange | undefined) {
  const record = yield* threadRecordById(threadId)
  if (range !== undefined) yield* chunkOffer(record, range)
  const source = sourceInRange(record.task_source, record.split_points, range)
  const texts = sourceTexts(source)
  const complete = (result: SynthesizedRequest, cached: boolean): SynthesizedRequest => ({
    ...result,
    ...(range === undefined ? {} : { range_start: range.start, range_end: range.end }),
    source_messages: source.messages,
    earlier_requests: source.earlier,
    overlap: taskOverlap(result.request, texts, ownTexts(source)),
    synthesis: result.synthesis ?? null,
    cached
  })
  const method = record.request_generation.method
  // The thread's one prompt (or a packaged sample's request) is the task as the user wrote it: no model.
  if (range === undefined && (method === "single_user_prompt" || method === "packaged_sample")) {
    return complete({ thread_id: threadId, request: record.request, request_generation: { method: "single_user_prompt" } }, false)
  }
  const model = yield* synthesisModel
  const key = model === undefined ? undefined : yield* cacheKey(record, range, model)
  const cached = key === undefined ? Option.none() : yield* readCached(key)
  if (Option.isSome(cached)) {
    const { request, request_generation, synthesis } = cached.value
    return complete({ thread_id: threadId, request, request_generation, ...(synthesis === null ? {} : { synthesis }) }, true)
  }
  const turns = sourceTurns(source)
  const { result, cacheable } = yield* synthesizeRequestOutcome({
    thread_id: threadId,
    turns,
    concatenated_request: fallbackRequest(source),
    truncated: Buffer.byteLength(JSON.stringify(turns), "utf8") > MAX_RECONSTRUCTION_BYTES,
    ...(model === undefined ? {} : { model }),
    ...(source.earlier.length === 0 ? {} : { prior_user_requests: source.earlier })
  })
  // A model's answer, or the fallback after a failure that was not transient (asking again would fail alike and pay again).
  if (key !== undefined && cacheable) {
    yield* writeCached(key, { version: CACHE_VERSION, request: result.request, request_generation: result.request_generation, synthesis: result.synthesis ?? null })
  }
  return complete(result, false)
})
