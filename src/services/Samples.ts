import { Effect, Schema } from "effect"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { packagePath } from "./internal/packageInfo.js"
import { controllerError, notFound, StorageError } from "../domain/errors.js"
import { decodeText } from "../domain/history/lines.js"
import { excerpt } from "../domain/toolResult.js"
import {
  analyzeSession,
  capabilityEvidenceOf,
  type SessionAnalysis,
  threadRecord,
  type ThreadSummary,
  threadSummary
} from "../domain/history/session.js"
import type { ThreadInspection } from "./ClaudeHistory.js"
import { Git } from "./Git.js"
import { cachedOnceComputed } from "./internal/cachedFor.js"
import { describeError } from "../domain/ioErrors.js"
import { Settings } from "./Settings.js"

export const SAMPLE_ID_PREFIX = "sample-"

/** `samples/<name>/sample.json`: what a packaged sample is and where its repository state lives. */
export const SampleManifest = Schema.Struct({
  id: Schema.String.pipe(Schema.pattern(/^sample-[a-z0-9-]{1,60}$/)),
  title: Schema.String,
  description: Schema.String,
  transcript: Schema.String,
  /** A git bundle of the project's history; absent for a non-git sample. */
  repository_bundle: Schema.optional(Schema.String),
  branch: Schema.optional(Schema.String),
  baseline_commit: Schema.optional(Schema.String),
  ending_commit: Schema.optional(Schema.String)
})
export type SampleManifest = typeof SampleManifest.Type

export interface SampleThread {
  readonly manifest: SampleManifest
  readonly directory: string
  readonly transcriptPath: string
  readonly summary: ThreadSummary
}

/** A sample as loaded: with the analysis of its transcript, for `inspect`. */
interface LoadedSample extends SampleThread {
  readonly analysis: SessionAnalysis
}

/** The package's `samples/` directory, two levels above this module in both `src/` and `dist/`. */
export const PACKAGED_SAMPLES_ROOT = packagePath("samples")

export const isSampleThreadId = (threadId: string) => threadId.startsWith(SAMPLE_ID_PREFIX)

const decodeManifest = Schema.decodeUnknownEither(Schema.parseJson(SampleManifest))

/**
 * Sample threads shipped with the package (SPEC §8.2). A git sample's repository is materialised from
 * its bundle into the cache, so that it can really be replayed; the package itself is never written.
 */
export class Samples extends Effect.Service<Samples>()("codex-replay/Samples", {
  effect: Effect.gen(function*() {
    const settings = yield* Settings
    const git = yield* Git
    const root = PACKAGED_SAMPLES_ROOT
    const materialisedRoot = path.join(settings.cacheRoot, "samples")

    const loadAll = Effect.fn("Samples.loadAll")(function*() {
      // The samples are optional content of the package: any that cannot be read are left out.
      const names = yield* Effect.tryPromise(() => fs.readdir(root, { withFileTypes: true })).pipe(
        Effect.map((entries) => entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort()),
        Effect.orElseSucceed(() => [] as Array<string>)
      )
      const samples: Array<LoadedSample> = []
      for (const name of names) {
        const directory = path.join(root, name)
        const text = yield* Effect.tryPromise(() => fs.readFile(path.join(directory, "sample.json"), "utf8")).pipe(
          Effect.orElseSucceed(() => "")
        )
        const manifest = decodeManifest(text)
        if (manifest._tag === "Left") continue
        const transcriptPath = path.join(directory, manifest.right.transcript)
        const analysis = yield* load(manifest.right, transcriptPath)
        samples.push({
          manifest: manifest.right,
          directory,
          transcriptPath,
          analysis,
          summary: { ...threadSummary(analysis), imported_thread_id: manifest.right.id, title: manifest.right.title, source: "sample" }
        })
      }
      return samples
    })

    const load = (manifest: SampleManifest, transcriptPath: string) =>
      Effect.tryPromise({
        try: () => fs.readFile(transcriptPath, "utf8"),
        catch: () => controllerError(`The packaged sample ${manifest.id} is missing its transcript.`)
      }).pipe(
        Effect.map((text) =>
          analyzeSession({ threadId: manifest.id, mainPath: transcriptPath, main: decodeText(text), agents: [] })
        )
      )

    // The packaged samples never change while the process runs: read and analysed once (a load that
    // was interrupted, by a client that gave up, is done again by the next caller).
    const loaded = yield* cachedOnceComputed(loadAll())

    const list = Effect.fn("Samples.list")(function*() {
      return (yield* loaded).map((sample) => sample.summary)
    })

    const find = Effect.fn("Samples.find")(function*(threadId: string) {
      const sample = (yield* loaded).find((candidate) => candidate.manifest.id === threadId)
      if (sample === undefined) return yield* notFound(`No packaged sample has the ID ${excerpt(threadId)}.`)
      return sample
    })

    /** Clones the sample's bundle into the cache once; later calls reuse the clone. */
    const materialise = Effect.fn("Samples.materialise")(function*(sample: SampleThread) {
      const bundle = sample.manifest.repository_bundle
      if (bundle === undefined) return undefined
      const target = path.join(materialisedRoot, sample.manifest.id)
      const ready = yield* git.probe(["rev-parse", "--verify", "--quiet", "HEAD"], { cwd: target })
      if (ready !== undefined) return target
      yield* Effect.tryPromise({
        try: async () => {
          await fs.rm(target, { recursive: true, force: true })
          await fs.mkdir(materialisedRoot, { recursive: true, mode: 0o700 })
        },
        catch: (error) => new StorageError({ message: `The packaged sample repository could not be prepared: ${describeError(error)}` })
      })
      yield* git.run(["clone", "--quiet", path.join(sample.directory, bundle), target], { cwd: materialisedRoot }).pipe(
        Effect.mapError((error) => controllerError(`The packaged sample repository could not be prepared: ${error.message}`))
      )
      if (sample.manifest.branch !== undefined) {
        yield* git.run(["checkout", "--quiet", sample.manifest.branch], { cwd: target }).pipe(
          Effect.mapError((error) => controllerError(`The packaged sample repository could not be prepared: ${error.message}`))
        )
      }
      return target
    })

    /** The sample's thread record; a git sample's project directory is its materialised repository. */
    const inspect = Effect.fn("Samples.inspect")(function*(threadId: string) {
      const sample = yield* find(threadId)
      const analysis = sample.analysis
      const repository = yield* materialise(sample)
      const record = threadRecord(analysis)
      const inspection: ThreadInspection = {
        record: {
          ...record,
          imported_thread_id: sample.manifest.id,
          title: sample.manifest.title,
          source: "sample",
          request_generation: { method: "packaged_sample" },
          ...(repository === undefined ? {} : { project_dir: repository, project_dirs: [repository] })
        },
        evidence: capabilityEvidenceOf(analysis)
      }
      return { inspection, manifest: sample.manifest }
    })

    return { root, list, find, inspect, materialise } as const
  }),
  dependencies: [Git.Default]
}) {}
