import { Codex, type CodexOptions, type ThreadEvent } from "@openai/codex-sdk"
import { Clock, Context, DateTime, Duration, Effect, Either, Layer, Runtime } from "effect"
import { randomBytes } from "node:crypto"
import * as path from "node:path"
import { type WorkerError, withAttemptUsage } from "../domain/errors.js"
import { RUN_TAG_VARIABLE } from "../domain/product.js"
import {
  type AttemptRecord,
  attemptTimedOut,
  classifyAttempt,
  decodeOutput,
  defaultLabel,
  emptyAttempt,
  interpretEvent,
  isReviewerOutput,
  meaningfulStderr,
  parseExitError,
  isReadOnlyPurpose,
  recordEvent,
  threadOptionsFor,
  workerError,
  WorkerPurpose,
  ZERO_USAGE
} from "../domain/worker.js"
import { agentEnvironment, codexProcessEnvironment, sandboxConfig, toolchainSecrets } from "../domain/agentSandbox.js"
import { FileStore } from "./FileStore.js"
import { homeDirectoryOf, systemTemporaryDirectory } from "./platform/environment.js"
import { LinkSafeFiles } from "./platform/LinkSafeFiles.js"
import { NodeFilesLive } from "./platform/nodeFiles.js"
import * as FileSystem from "@effect/platform/FileSystem"
import type { AttemptWatch } from "./internal/attemptWatch.js"
import { ProcessRunner } from "./ProcessRunner.js"
import { REVIEWER_OUTPUT_OMITTED, RunLog } from "./RunLog.js"
import { Settings } from "./Settings.js"

export * from "./worker/request.js"
export { runWithSchedule } from "./worker/schedule.js"
export type { FakeAnswer } from "./worker/service.js"
import { fakeResult, type FakeAnswer, makeService } from "./worker/service.js"
import { ATTEMPT_VARIABLE, type AttemptProgress, type CodexWorkerOptions, DEFAULT_ATTEMPT_TIMEOUT, DEFAULT_INTERRUPT_GRACE, type WorkerResult } from "./worker/request.js"
import { type AnyRequest, type PreparedRequest, prepareRequest } from "./worker/prepare.js"


// ---------------------------------------------------------------------------------------------
// One attempt: the SDK's event stream, drained to the end whatever happens

interface Session {
  readonly progress: AttemptProgress
  readonly attemptId: string
  readonly runTag: string
  readonly abort: AbortController
  /** True until the event generator settled; aborting after that crashes Node (protocol §3.6). */
  inFlight: boolean
  readonly record: AttemptRecord
  /** Settles with what the stream threw (or `undefined`); never rejects. */
  readonly finished: Promise<unknown>
}

const freshId = () => randomBytes(12).toString("hex")


/** Whether the attempt's stream settles within `within` (on the Effect clock; interruptible so it can time out). */
const settledWithin = (session: Session, within: Duration.Duration) =>
  Effect.timeoutTo(Effect.interruptible(Effect.promise(() => session.finished)), {
    duration: within,
    onSuccess: () => true,
    onTimeout: () => false
  })

// ---------------------------------------------------------------------------------------------

interface ResolvedOptions {
  readonly hiddenRoots: ReadonlyArray<string>
  /** `CODEX_CLI_PATH`, else undefined: the Codex CLI is looked up (`locateCodex`). */
  readonly cliPath: string | undefined
  readonly environment: Readonly<Record<string, string>>
  readonly config: CodexOptions["config"] | undefined
  readonly apiKey: string | undefined
  readonly attemptTimeout: Duration.Duration
  readonly interruptGrace: Duration.Duration
}

const resolveOptions = (options: CodexWorkerOptions, inherited: Readonly<Record<string, string | undefined>>): ResolvedOptions => {
  const base = codexProcessEnvironment(options.environment ?? inherited)
  const environment = options.codexHome === undefined ? base : { ...base, CODEX_HOME: options.codexHome }
  const codexHome = environment.CODEX_HOME ?? path.join(homeDirectoryOf(environment), ".codex")
  return {
    // The system's temporary directory holds reviewer workspaces of parallel runs; every agent gets
    // its own temporary directory instead (TMPDIR).
    hiddenRoots: [
      ...(options.hiddenRoots ?? []),
      codexHome,
      systemTemporaryDirectory(),
      ...toolchainSecrets(environment, homeDirectoryOf(environment))
    ],
    cliPath: options.cliPath,
    environment,
    config: options.config,
    apiKey: options.apiKey,
    attemptTimeout: Duration.decode(options.attemptTimeout ?? DEFAULT_ATTEMPT_TIMEOUT),
    interruptGrace: Duration.decode(options.interruptGrace ?? DEFAULT_INTERRUPT_GRACE)
  }
}

const makeCodexWorker = (options: CodexWorkerOptions) =>
  Effect.gen(function*() {
    const processes = yield* ProcessRunner
    const runLog = yield* RunLog
    const files = yield* FileStore
    const platform = Context.make(FileSystem.FileSystem, yield* FileSystem.FileSystem).pipe(Context.add(LinkSafeFiles, yield* LinkSafeFiles))
    const settings = resolveOptions(options, processes.environment)
    const inFlight = new Map<string, AttemptProgress>()

    const logger = (request: AnyRequest) => {
      const label = request.label ?? defaultLabel(request.purpose)
      const omit = isReviewerOutput(request.purpose)
      const write = (source: string, message: string) =>
        request.runDirectory === undefined ? Effect.void : Effect.ignore(runLog.append(request.runDirectory, source, message))
      return {
        note: (message: string) => write(label, message),
        stdout: (line: string) => write(`${label}:stdout`, omit ? REVIEWER_OUTPUT_OMITTED : line),
        stderr: (line: string) => write(`${label}:stderr`, omit ? REVIEWER_OUTPUT_OMITTED : line)
      }
    }
    type Logger = ReturnType<typeof logger>

    const openSession = (
      prepared: PreparedRequest,
      scratch: string | undefined,
      onEvent: (event: ThreadEvent) => Promise<void>,
      startedAt: number
    ): Session => {
      const { request } = prepared
      const attemptId = freshId()
      const progress: AttemptProgress = {
        attempt_id: attemptId,
        label: request.label ?? defaultLabel(request.purpose),
        model: request.model,
        stage: "starting Codex",
        events: 0,
        last_event: null,
        started_at: DateTime.formatIso(DateTime.unsafeMake(startedAt))
      }
      const runTag = request.runTag ?? `worker-${attemptId}`
      const writable = !isReadOnlyPurpose(request.purpose)
      const sandbox = sandboxConfig({
        writable,
        workingDirectory: request.workingDirectory,
        readable: prepared.readable,
        hiddenRoots: prepared.hiddenRoots,
        scratchDirectory: scratch,
        shellEnvironment: agentEnvironment({ environment: settings.environment, network: writable, scratchDirectory: scratch })
      })
      const codex = new Codex({
        codexPathOverride: prepared.cliPath,
        // Codex itself keeps the run tag and attempt id (the daemon finds it by them); the agent's
        // shell commands get only `shellEnvironment` (shell_environment_policy).
        env: {
          ...settings.environment,
          ...(scratch === undefined ? {} : { TMPDIR: scratch }),
          [RUN_TAG_VARIABLE]: runTag,
          [ATTEMPT_VARIABLE]: attemptId
        },
        ...(settings.config === undefined ? {} : { config: settings.config }),
        configOverrides: [...sandbox],
        ...(settings.apiKey === undefined ? {} : { apiKey: settings.apiKey })
      })
      const thread = codex.startThread(threadOptionsFor({
        purpose: request.purpose,
        model: request.model,
        workingDirectory: request.workingDirectory,
        skipGitRepoCheck: prepared.skipGitRepoCheck
      }))
      const abort = new AbortController()
      const record = emptyAttempt()
      const drain = async (): Promise<unknown> => {
        try {
          const turnOptions = { signal: abort.signal, ...(prepared.jsonSchema === undefined ? {} : { outputSchema: prepared.jsonSchema }) }
          const { events } = await thread.runStreamed(request.prompt, turnOptions)
          progress.stage = "waiting for an event"
          // Never leave this loop early: breaking out kills only the direct child and opens the
          // late-abort crash window (protocol §3.6). Cancellation aborts and keeps draining.
          for await (const event of events) {
            recordEvent(record, interpretEvent(event))
            progress.events += 1
            progress.last_event = event.type
            progress.stage = "logging an event"
            await onEvent(event)
            progress.stage = "waiting for an event"
          }
          progress.stage = "stream ended"
          return undefined
        } catch (error) {
          return error ?? new Error("unknown failure")
        }
      }
      const session: Session = {
        progress,
        attemptId,
        runTag,
        abort,
        inFlight: true,
        record,
        finished: drain().finally(() => {
          session.inFlight = false
        })
      }
      return session
    }

    /**
     * SIGINT our Codex child (real codex then kills its tool groups at once). If it is still running
     * after the grace period, freeze every process of the attempt first: signalled one by one, a
     * shell whose `sleep` died first would run its next command (a marker write) before its own
     * signal arrives. Then abort, sweep by tag (frozen processes end at SIGKILL) and drain.
     */
    const stopSession = (session: Session, log: Logger, watch: AttemptWatch) =>
      Effect.gen(function*() {
        session.progress.stage = "stopping Codex"
        // Our own Codex child (in our process group, so the group is never signalled).
        const children = yield* processes.interruptChildren(ATTEMPT_VARIABLE, session.attemptId)
        const settled = children > 0 && (yield* settledWithin(session, settings.interruptGrace))
        if (!settled) {
          yield* processes.freeze(ATTEMPT_VARIABLE, session.attemptId)
          if (session.inFlight) session.abort.abort(new Error("The Codex worker was cancelled."))
        }
        for (let round = 0; round < 3; round++) {
          yield* watch.kill
          yield* processes.sweepTag(session.runTag)
          if (yield* settledWithin(session, Duration.seconds(1))) break
        }
        yield* log.note("cancelled; Codex and its processes were stopped")
      })

    /** An implementation's own temporary directory (its TMPDIR), removed after the attempt. */
    const scratchFor = (purpose: WorkerPurpose) =>
      isReadOnlyPurpose(purpose)
        ? Effect.succeed(undefined)
        : files.privateTemporaryRoot().pipe(
          Effect.flatMap((root) => files.temporaryDirectory(root, "tmp-")),
          Effect.mapError((error) =>
            workerError({
              code: "spawn_failed",
              message: `Codex could not be started: its scratch directory cannot be created: ${error.message}`,
              retryable: false,
              stage: "spawn",
              exitCode: null,
              systemCode: null,
              elapsedMs: 0
            }))
        )

    const runAttempt = (prepared: PreparedRequest, log: Logger) =>
      Effect.gen(function*() {
        const scratch = yield* scratchFor(prepared.request.purpose)
        const launcher = yield* files.privateTemporaryRoot().pipe(
          Effect.flatMap((root) => processes.confinedLauncher(prepared.cliPath, root)),
          Effect.orElseSucceed(() => prepared.cliPath)
        )
        if (launcher === prepared.cliPath) {
          // Said in the run's log: without a pid namespace, a process the agent detaches can outlive the run.
          yield* log.note("Codex runs unconfined: this machine refused `unshare` a pid namespace, so processes the agent detaches are found only by the run's tag")
        }
        const runtime = yield* Effect.runtime<never>()
        const logEvent = (event: ThreadEvent) => {
          const interpreted = interpretEvent(event)
          const notes = interpreted.kind === "unknown"
            ? log.note(`ignoring unknown event type "${interpreted.type}"`)
            : interpreted.kind === "item_completed" && interpreted.unknownItemType
            ? log.note(`ignoring unknown item type "${interpreted.item.type}"`)
            : Effect.void
          return Runtime.runPromise(runtime)(log.stdout(JSON.stringify(event)).pipe(Effect.zipRight(notes)))
        }
        return yield* Effect.uninterruptibleMask((restore) => Effect.gen(function*() {
          const session = openSession({ ...prepared, cliPath: launcher }, scratch, logEvent, yield* Clock.currentTimeMillis)
          inFlight.set(session.attemptId, session.progress)
          const watch = yield* processes.watchConfined(session.attemptId, prepared.request.runDirectory, ATTEMPT_VARIABLE)
          return yield* restore(Effect.promise(() => session.finished)).pipe(
            Effect.map((thrown) => ({ session, thrown })),
            Effect.onInterrupt(() => stopSession(session, log, watch)),
            // Whatever Codex left in its namespace ends with it; a normal end finds nothing left.
            Effect.ensuring(Effect.zipRight(watch.kill, watch.close)),
            // Nothing of this attempt may outlive it, also after a normal end.
            Effect.tap(() => (prepared.request.runTag === undefined ? processes.sweepTag(session.runTag) : Effect.void)),
            Effect.ensuring(Effect.sync(() => inFlight.delete(session.attemptId)))
          )
        }))
      })

    const logFailure = (log: Logger, failure: WorkerError, thrown: unknown) =>
      Effect.gen(function*() {
        const exit = thrown instanceof Error ? parseExitError(thrown.message) : undefined
        const stderr = exit === undefined ? "" : meaningfulStderr(exit.stderr)
        for (const line of stderr === "" ? [] : stderr.split("\n")) yield* log.stderr(line)
        const exitText = failure.diagnostic.exit_code === null ? "" : ` (exit code ${failure.diagnostic.exit_code})`
        yield* log.note(`failed${exitText}: ${failure.code}: ${failure.message}`)
      })

    const runAny = Effect.fn("CodexWorker.run")(function*(request: AnyRequest) {
      const prepared = yield* prepareRequest(request, settings.cliPath, settings.environment, settings.hiddenRoots).pipe(Effect.provide(platform))
      const log = logger(request)
      const started = yield* Clock.currentTimeMillis
      const elapsed = Effect.map(Clock.currentTimeMillis, (now) => now - started)
      yield* log.note(`started (${request.purpose}, model ${request.model})`)
      const limit = settings.attemptTimeout
      const { session, thrown } = yield* Effect.scoped(runAttempt(prepared, log)).pipe(
        Effect.timeout(limit),
        Effect.catchTag("TimeoutException", () =>
          Effect.flatMap(elapsed, (elapsedMs) => Effect.fail(attemptTimedOut(elapsedMs, Duration.toMillis(limit))))),
        Effect.tapError((failure) => log.note(`failed: ${failure.code}: ${failure.message}`))
      )
      const elapsedMs = yield* elapsed
      const failure = classifyAttempt({ record: session.record, thrown, elapsedMs })
      if (failure !== undefined) {
        yield* logFailure(log, failure, thrown)
        return yield* withAttemptUsage(failure, session.record.usage)
      }
      const finalResponse = session.record.finalResponse ?? ""
      let output: unknown = undefined
      if (request.outputSchema !== undefined) {
        const decoded = decodeOutput(request.outputSchema, finalResponse, elapsedMs)
        if (Either.isLeft(decoded)) {
          yield* log.note(`failed: ${decoded.left.code}: ${decoded.left.message}`)
          return yield* withAttemptUsage(decoded.left, session.record.usage)
        }
        output = decoded.right
      }
      yield* log.note("finished with exit code 0")
      return {
        thread_id: session.record.threadId ?? "",
        final_response: finalResponse,
        items: session.record.items,
        usage: session.record.usage ?? ZERO_USAGE,
        elapsed_ms: elapsedMs,
        worktree: request.workingDirectory,
        output
      } satisfies WorkerResult<unknown>
    })

    return makeService((request) => runAny(request), Effect.sync(() => [...inFlight.values()].map((progress) => ({ ...progress }))))
  })

/**
 * The Codex worker (docs/security.md): drives the Codex CLI through `@openai/codex-sdk`, streams every
 * event to the run log, classifies failures and cancels completely on interruption.
 */
export class CodexWorker extends Effect.Service<CodexWorker>()("codex-replay/CodexWorker", {
  effect: Effect.gen(function*() {
    const settings = yield* Settings
    return yield* makeCodexWorker({
      cliPath: settings.codexCliPath,
      hiddenRoots: [settings.runRoot, settings.controllersRoot, settings.claudeConfigDir]
    })
  }),
  dependencies: [ProcessRunner.Default, RunLog.Default, FileStore.Default, NodeFilesLive]
}) {
  /** A live worker with explicit options over Node's files; needs ProcessRunner and RunLog. */
  static readonly layer = (options: CodexWorkerOptions) =>
    Layer.effect(CodexWorker, Effect.map(makeCodexWorker(options), (service) => CodexWorker.make(service))).pipe(
      Layer.provide(Layer.provideMerge(FileStore.DefaultWithoutDependencies, NodeFilesLive))
    )

  /**
   * A fake worker for tests: `respond` answers each request. Structured answers are still parsed
   * and validated against the request's output schema, exactly as the live worker does.
   */
  static readonly fake = (respond: (request: AnyRequest) => Effect.Effect<FakeAnswer, WorkerError>) =>
    Layer.succeed(
      CodexWorker,
      CodexWorker.make(makeService((request) =>
        Effect.gen(function*() {
          const result = fakeResult(request, yield* respond(request))
          if (request.outputSchema === undefined) return { ...result, output: undefined }
          const output = yield* decodeOutput(request.outputSchema, result.final_response, result.elapsed_ms).pipe(
            Effect.mapError((error) => withAttemptUsage(error, result.usage))
          )
          return { ...result, output }
        })
      ))
    )
}
