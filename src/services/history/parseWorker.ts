/**
 * Entry point of the listing's parse workers (started by parsePool.ts through `@effect/platform`'s Worker, from
 * src under tsx/vitest, from dist, or from the bundle): each request names one session's files; the answer is
 * its digest, or why it could not be read. Reads are synchronous: a worker has nothing else to do meanwhile.
 */
import * as WorkerRunner from "@effect/platform/WorkerRunner"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeWorkerRunner from "@effect/platform-node/NodeWorkerRunner"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { digestSession, type SessionFiles } from "../../domain/history/reader.js"
import { errnoOf } from "../../domain/ioErrors.js"
import { readChunksSync } from "../platform/transcriptFiles.js"
import type { ParseFailure } from "./parsePool.js"

const failureOf = (error: unknown): ParseFailure => ({
  message: error instanceof Error ? error.message : String(error),
  code: errnoOf(error)
})

WorkerRunner.layer((files: SessionFiles) =>
  Effect.tryPromise({ try: () => digestSession(files, readChunksSync), catch: failureOf })
).pipe(Layer.provide(NodeWorkerRunner.layer), Layer.launch, NodeRuntime.runMain)
