import { Effect, Option, Ref, Schema } from "effect"
import { randomBytes } from "node:crypto"
import * as path from "node:path"
import {
  BATCH_RECORD_FILE,
  BATCH_RECORD_MAX_BYTES,
  BatchConfiguration,
  BATCHES_DIRECTORY,
  type BatchRecord,
  BatchRecord as BatchRecordSchema,
  type BlockedThread,
  isBatchId
} from "../domain/batch.js"
import { conflict, invalidArgument, isOutOfSpace, notFound, unreadableFile } from "../domain/errors.js"
import { FileStore } from "./FileStore.js"
import { Settings } from "./Settings.js"

export const BATCH_CONFIGURATIONS_FILE = "configurations.json"

/** What `prepare_run` approved for a batch, kept in memory under its token until `start_run` uses it. */
export interface PreparedBatch {
  readonly controller_session_id: string
  readonly fingerprint: string
  readonly reviewer_model: string
  readonly configurations: ReadonlyArray<BatchConfiguration>
  readonly blocked: ReadonlyArray<BlockedThread>
  /** The batch its start created. */
  readonly started?: string
}

/** Prepared batches kept at once; the oldest is dropped first. */
const MAX_PREPARED_BATCHES = 16

const decodeConfigurations = Schema.decodeUnknown(Schema.Struct({ configurations: Schema.Array(BatchConfiguration) }))

/**
 * The batches of the run root (`batches/<batch id>/batch.json`, 0600, written atomically) and this
 * controller's own in memory, written through on every change. The approved configurations are
 * written once, beside the record (`configurations.json`), so the record stays small.
 */
export class Batches extends Effect.Service<Batches>()("codex-replay/Batches", {
  effect: Effect.gen(function*() {
    const settings = yield* Settings
    const files = yield* FileStore
    const own = yield* Ref.make(new Map<string, BatchRecord>())
    const latest = yield* Ref.make<string | null>(null)
    const prepared = yield* Ref.make(new Map<string, PreparedBatch>())
    const writing = yield* Effect.makeSemaphore(1)
    /** Batches held in memory whose record (and, for a new one, configurations) a full disk refused: written by `persist`. */
    const unwritten = yield* Ref.make(new Map<string, ReadonlyArray<BatchConfiguration> | null>())
    /** Why each batch waits for disk space now, one note per write that waits. */
    const waiting = yield* Ref.make(new Map<string, ReadonlyMap<symbol, string>>())
    const root = path.join(settings.runRoot, BATCHES_DIRECTORY)
    const directoryOf = (batchId: string) => path.join(root, batchId)

    const write = (record: BatchRecord) =>
      Effect.gen(function*() {
        yield* files.ensurePrivateDirectoryInside(settings.runRoot, directoryOf(record.batch_id))
        yield* files.writeJson(path.join(directoryOf(record.batch_id), BATCH_RECORD_FILE), record)
        yield* Ref.update(own, (current) => new Map(current).set(record.batch_id, record))
      })

    const writeNew = (record: BatchRecord, configurations: ReadonlyArray<BatchConfiguration>) =>
      Effect.gen(function*() {
        yield* files.ensurePrivateDirectoryInside(settings.runRoot, directoryOf(record.batch_id))
        yield* files.writeJson(path.join(directoryOf(record.batch_id), BATCH_CONFIGURATIONS_FILE), { configurations })
        yield* write(record)
      })

    /** Keeps `record` in memory as this controller's when the disk has no room for it; `persist` writes it later. */
    const holdWhenFull = (record: BatchRecord, configurations: ReadonlyArray<BatchConfiguration> | null) =>
    <E extends { readonly message: string }, R>(written: Effect.Effect<void, E, R>) =>
      Effect.as(written, true).pipe(Effect.catchIf(isOutOfSpace, (error) =>
        Effect.gen(function*() {
          yield* Ref.update(own, (current) => new Map(current).set(record.batch_id, record))
          yield* Ref.update(unwritten, (current) => new Map(current).set(record.batch_id, current.get(record.batch_id) ?? configurations))
          yield* Effect.logWarning(`Batch ${record.batch_id}: its record will be written when the disk allows: ${error.message}`)
          return false
        })))

    /**
     * A new batch of this controller: its configurations, then its record. A disk without room does not
     * refuse the batch: it is held in memory, and its fiber writes it (`persist`) before anything starts.
     */
    const create = (record: BatchRecord, configurations: ReadonlyArray<BatchConfiguration>) =>
      writing.withPermits(1)(Effect.gen(function*() {
        yield* holdWhenFull(record, configurations)(writeNew(record, configurations))
        yield* Ref.set(latest, record.batch_id)
      }))

    /** The batch is on disk as memory holds it. */
    const written = (batchId: string) =>
      Ref.update(unwritten, (current) => {
        const next = new Map(current)
        next.delete(batchId)
        return next
      })

    /** Writes a batch held in memory for want of disk space; fails (to be tried again) while the disk still has no room. */
    const persist = (batchId: string) =>
      writing.withPermits(1)(Effect.gen(function*() {
        const pending = (yield* Ref.get(unwritten)).get(batchId)
        const record = (yield* Ref.get(own)).get(batchId)
        if (pending === undefined || record === undefined) return
        yield* pending === null ? write(record) : writeNew(record, pending)
        yield* written(batchId)
      }))

    /**
     * Changes a batch of this controller; the record on disk changes first. With `holdWhenFull` (an ending
     * that must not wait, a cancel), a disk without room keeps the change in memory until `persist`.
     */
    const update = (batchId: string, change: (record: BatchRecord) => BatchRecord, options?: { readonly holdWhenFull?: boolean }) =>
      writing.withPermits(1)(Effect.gen(function*() {
        const current = (yield* Ref.get(own)).get(batchId)
        if (current === undefined) return yield* conflict(`The batch ${batchId} is not this controller's.`)
        const next = change(current)
        if (next === current) return next
        const pending = (yield* Ref.get(unwritten)).get(batchId)
        const toDisk = pending === undefined || pending === null ? write(next) : writeNew(next, pending)
        const onDisk = options?.holdWhenFull === true ? yield* holdWhenFull(next, null)(toDisk) : yield* Effect.as(toDisk, true)
        if (onDisk && pending !== undefined) yield* written(batchId)
        return next
      }))

    /** Tries once to write every batch held in memory (at shutdown: a cancel must not be lost); what the disk refuses stays. */
    const flushUnwritten = Effect.gen(function*() {
      const pending = [...(yield* Ref.get(unwritten)).keys()]
      yield* Effect.forEach(pending, (batchId) =>
        persist(batchId).pipe(
          Effect.catchAll((error) => Effect.logWarning(`Batch ${batchId} stays unwritten: ${error.message}`))
        ), { discard: true })
    })

    /** Whether a batch of this controller is held in memory, its record not yet on disk. */
    const isUnwritten = (batchId: string) => Effect.map(Ref.get(unwritten), (current) => current.has(batchId))

    /** Notes that a write of the batch waits for disk space, until the returned effect clears the note. */
    const noteWaiting = (batchId: string, note: string) =>
      Effect.gen(function*() {
        const key = Symbol(batchId)
        const set = (change: (notes: Map<symbol, string>) => void) =>
          Ref.update(waiting, (current) => {
            const notes = new Map(current.get(batchId) ?? [])
            change(notes)
            const next = new Map(current)
            if (notes.size === 0) next.delete(batchId)
            else next.set(batchId, notes)
            return next
          })
        yield* set((notes) => void notes.set(key, note))
        return set((notes) => void notes.delete(key))
      })

    /** What the batch waits for now (its first note), if anything. */
    const waitingOf = (batchId: string) =>
      Effect.map(Ref.get(waiting), (current) => Option.fromNullable([...(current.get(batchId)?.values() ?? [])][0]))

    /** Takes over a batch whose controller is gone: from now on it is this controller's. */
    const adopt = (record: BatchRecord) =>
      writing.withPermits(1)(Effect.zipRight(write(record), Ref.set(latest, record.batch_id)))

    const readFile = (batchId: string) =>
      files.readDecodedOption(path.join(directoryOf(batchId), BATCH_RECORD_FILE), BATCH_RECORD_MAX_BYTES, BatchRecordSchema).pipe(
        Effect.catchTag("UnreadableFile", (error) =>
          unreadableFile(`The record of batch ${batchId} is damaged (${error.message}); start the batch again.`))
      )

    /** Any batch of the run root: this controller's from memory, another's as it is on disk. */
    const read = (batchId: string) =>
      Effect.gen(function*() {
        if (!isBatchId(batchId)) return yield* invalidArgument("The batch ID is invalid.")
        const known = (yield* Ref.get(own)).get(batchId)
        if (known !== undefined) return known
        const found = yield* readFile(batchId)
        if (Option.isNone(found)) return yield* notFound(`No batch ${batchId} in ${settings.runRoot}.`)
        return found.value
      })

    const readConfigurations = (batchId: string) =>
      files.readJson(path.join(directoryOf(batchId), BATCH_CONFIGURATIONS_FILE), BATCH_RECORD_MAX_BYTES).pipe(
        Effect.flatMap((value) =>
          decodeConfigurations(value).pipe(
            Effect.map((file) => file.configurations),
            Effect.mapError(() => unreadableFile(`The configurations of batch ${batchId} cannot be read (the file is damaged); start the batch again.`))
          )
        )
      )

    /** Every readable batch record of the run root. */
    const listAll = Effect.gen(function*() {
      const names = (yield* files.listDirectories(root)).filter(isBatchId)
      const found = yield* Effect.forEach(names, (name) =>
        readFile(name).pipe(
          Effect.catchAll((error) =>
            Effect.as(Effect.logWarning(`Batch ${name} is left out of the batches: ${error.message}`), Option.none<BatchRecord>()))
        ))
      return found.flatMap(Option.toArray)
    })

    const latestRecord = Effect.flatMap(Ref.get(latest), (batchId) =>
      batchId === null
        ? Effect.succeed(Option.none<BatchRecord>())
        : Effect.map(Ref.get(own), (records) => Option.fromNullable(records.get(batchId))))

    /** A new prepare token for `batch`: a secret, so from the system's cryptographic source. */
    const issuePrepared = (batch: PreparedBatch) =>
      Effect.gen(function*() {
        const token = randomBytes(32).toString("base64url")
        yield* Ref.update(prepared, (current) => {
          const next = new Map(current).set(token, batch)
          for (const oldest of next.keys()) {
            if (next.size <= MAX_PREPARED_BATCHES) break
            next.delete(oldest)
          }
          return next
        })
        return token
      })

    const lookupPrepared = (token: string) => Effect.map(Ref.get(prepared), (current) => Option.fromNullable(current.get(token)))

    const markPreparedStarted = (token: string, batchId: string) =>
      Ref.update(prepared, (current) => {
        const batch = current.get(token)
        return batch === undefined ? current : new Map(current).set(token, { ...batch, started: batchId })
      })

    /** This controller's batch started with this prepare token, if any. */
    const ownByToken = (tokenHash: string) =>
      Effect.map(Ref.get(own), (current) => Option.fromNullable([...current.values()].find((record) => record.prepare_token_hash === tokenHash)))

    /**
     * Claims the takeover of a batch from its dead controller: one file per (batch, dead controller),
     * created exclusively, so one controller only resumes it.
     */
    const claimTakeover = (record: BatchRecord, sessionId: string) =>
      files.createJsonExclusive(
        path.join(directoryOf(record.batch_id), `takeover-${record.coordinator_pid}-${record.coordinator_start_time ?? "unknown"}.json`),
        { controller_session_id: sessionId }
      )

    return {
      claimTakeover,
      create,
      persist,
      isUnwritten,
      flushUnwritten,
      noteWaiting,
      waitingOf,
      update,
      adopt,
      read,
      readConfigurations,
      listAll,
      latestRecord,
      issuePrepared,
      lookupPrepared,
      markPreparedStarted,
      ownByToken
    } as const
  }),
  dependencies: [FileStore.Default]
}) {}
