import * as FileSystem from "@effect/platform/FileSystem"
import { Effect, Layer, Option, Schema } from "effect"
import * as path from "node:path"
import { LinkSafeFiles } from "./platform/LinkSafeFiles.js"
import { NodeFilesLive } from "./platform/nodeFiles.js"
import { packagePath } from "./internal/packageInfo.js"
import { gitFailed, notFound, StorageError } from "../domain/errors.js"
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
import type { ThreadInspection } from "./history/ClaudeHistory.js"
import { Git } from "./Git.js"
import { LOCAL_TRANSPORT } from "./internal/gitNeutral.js"
import { cachedOnceComputed } from "./internal/cachedFor.js"
import { Settings } from "./Settings.js"

/** A sample's manifest is a few hundred bytes; anything over this is not one. */
const MAX_MANIFEST_BYTES = 64 * 1024
/** The packaged transcripts are a few KB; this leaves room for a much longer sample and still refuses a runaway file. */
const MAX_TRANSCRIPT_BYTES = 16 * 1024 * 1024

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

/** A sample as the package has it: its manifest and where its files are. */
interface PackagedSample {
  readonly manifest: SampleManifest
  readonly directory: string
  readonly transcriptPath: string
}

export interface SampleThread extends PackagedSample {
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
 * Sample threads shipped with the package (docs/history.md), read from `root`. A git sample's repository is
 * materialised from its bundle into the cache, so that it can really be replayed; the package itself is never
 * written.
 */
const makeSamples = (root: string) =>
  Effect.gen(function*() {
    const settings = yield* Settings
    const git = yield* Git
    const fs = yield* FileSystem.FileSystem
    const links = yield* LinkSafeFiles
    /** A packaged file, opened without following a link; `None` when it is missing, unreadable or larger than `maxBytes`. */
    const readPackagedFile = (file: string, maxBytes: number) =>
      Effect.map(Effect.option(links.readRegular(file, maxBytes)), Option.flatten)
    const materialisedRoot = path.join(settings.cacheRoot, "samples")

    /**
     * Every sample whose manifest can be read and whose transcript is there (the samples are optional content
     * of the package: the others are left out, so that counting and listing them agree). A few small files of
     * the package, read at once: a listing of imported threads needs only their number.
     */
    const isFile = (file: string) => Effect.orElseSucceed(Effect.map(fs.stat(file), (info) => info.type === "File"), () => false)
    const readPackaged = Effect.gen(function*() {
      const names = yield* Effect.orElseSucceed(fs.readDirectory(root), (): Array<string> => [])
      const found: Array<PackagedSample> = []
      for (const name of names.sort()) {
        const directory = path.join(root, name)
        const manifestText = yield* readPackagedFile(path.join(directory, "sample.json"), MAX_MANIFEST_BYTES)
        const manifest = decodeManifest(Option.getOrElse(manifestText, () => ""))
        if (manifest._tag === "Left") continue
        const transcriptPath = path.join(directory, manifest.right.transcript)
        if (yield* isFile(transcriptPath)) found.push({ manifest: manifest.right, directory, transcriptPath })
      }
      return found
    })

    const load = (sample: PackagedSample) =>
      readPackagedFile(sample.transcriptPath, MAX_TRANSCRIPT_BYTES).pipe(
        Effect.flatMap(Option.match({
          onNone: () =>
            new StorageError({ message: `The packaged sample ${sample.manifest.id} is missing its transcript; reinstall the package.` }),
          onSome: Effect.succeed
        })),
        Effect.map((text): LoadedSample => {
          const { id, title } = sample.manifest
          const analysis = analyzeSession({ threadId: id, mainPath: sample.transcriptPath, main: decodeText(text), agents: [] })
          return { ...sample, analysis, summary: { ...threadSummary(analysis), imported_thread_id: id, title, source: "sample" } }
        })
      )

    // The packaged samples never change while the process runs: read and analysed once (a load that
    // was interrupted, by a client that gave up, is done again by the next caller).
    const packaged = yield* cachedOnceComputed(readPackaged)
    const loaded = yield* cachedOnceComputed(Effect.flatMap(packaged, (samples) => Effect.forEach(samples, load)))

    /** How many samples the package has, without reading their transcripts. */
    const count = Effect.fn("Samples.count")(function*() {
      return (yield* packaged).length
    })

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
      yield* Effect.zipRight(fs.remove(target, { recursive: true, force: true }), fs.makeDirectory(materialisedRoot, { recursive: true, mode: 0o700 })).pipe(
        Effect.mapError((error) => new StorageError({ message: `The packaged sample repository could not be prepared: ${error.message}` }))
      )
      yield* git.run([...LOCAL_TRANSPORT, "clone", "--quiet", "--no-hardlinks", path.join(sample.directory, bundle), target], { cwd: materialisedRoot }).pipe(
        Effect.mapError((error) => gitFailed("The packaged sample repository could not be prepared", error.message))
      )
      if (sample.manifest.branch !== undefined) {
        yield* git.run(["checkout", "--quiet", sample.manifest.branch], { cwd: target }).pipe(
          Effect.mapError((error) => gitFailed("The packaged sample repository could not be prepared", error.message))
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

    return { root, count, list, find, inspect, materialise } as const
  })

export class Samples extends Effect.Service<Samples>()("codex-replay/Samples", {
  effect: makeSamples(PACKAGED_SAMPLES_ROOT),
  dependencies: [Git.Default, NodeFilesLive]
}) {
  /** The samples of another folder laid out as the package's (tests), read from the real disk. */
  static readonly layerAt = (root: string) =>
    Layer.effect(Samples, Effect.map(makeSamples(root), (service) => Samples.make(service))).pipe(Layer.provide(NodeFilesLive))
}
