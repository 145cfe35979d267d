import { settingsOf } from "../../services/Settings.js"
import { Clock, DateTime, Duration, Effect, Either, Option, Schedule, Schema } from "effect"
import * as path from "node:path"
import { AttemptFile, CODEX_CLI_PATH_MESSAGE, OpenControllerArguments, type OpenControllerResult } from "../../domain/contracts/index.js"
import { conflict, controllerUnavailable, invalidArgument, isInternalFailure, publicFailure } from "../../domain/errors.js"
import {
  ATTEMPT_FILE,
  ATTEMPT_MAX_BYTES,
  CONTROLLER_LOG_FILE,
  compareVersions,
  controllerOrigin
} from "../../domain/product.js"
import { VERSION } from "../../services/internal/packageInfo.js"
import type { ResolvedSettings } from "../../domain/settings.js"
import { describeParseError } from "../../domain/toolResult.js"
import { isControllerSessionId } from "../../domain/ids.js"
import { ControllerClient } from "../../services/ControllerClient.js"
import { FileStore } from "../../services/FileStore.js"
import { launchUrlOf } from "../../services/ControllerRuntime.js"

const READY_WITHIN = Duration.seconds(8)

export interface OpenControllerInput {
  readonly controller_session_id: string
  readonly codex_cli_path?: string | undefined
}

/** The controller's address with its API token, which the browser trades for a cookie as it opens it. */
export const readyResult = (sessionId: string, port: number, apiToken: string | undefined): OpenControllerResult => ({
  prepared: true,
  opened: false,
  launch_url: launchUrlOf(controllerOrigin(port), apiToken),
  controller_session_id: sessionId
})

/** The text MCP shows beside a ready controller. */
export const openControllerText = (result: OpenControllerResult) => `Codex Replay is ready. [Open Codex Replay](${result.launch_url})`

const nowIso = Effect.map(Clock.currentTimeMillis, (millis) => DateTime.formatIso(DateTime.unsafeMake(millis)))

/** Checks everything about the request before anything touches the disk: its Schema, then the executable. */
export const validateLaunchInput = (input: unknown) =>
  Effect.gen(function*() {
    const args = yield* Either.match(Schema.decodeUnknownEither(OpenControllerArguments)(input ?? {}), {
      onLeft: (error) => Effect.fail(invalidArgument(describeParseError(error))),
      onRight: Effect.succeed
    })
    const cliPath = args.codex_cli_path
    if (cliPath === undefined) return { controller_session_id: args.controller_session_id } satisfies OpenControllerInput
    const client = yield* ControllerClient
    if (!(yield* client.isExecutable(cliPath))) return yield* invalidArgument(CODEX_CLI_PATH_MESSAGE)
    return { controller_session_id: args.controller_session_id, codex_cli_path: cliPath } satisfies OpenControllerInput
  })

/** Waits until the daemon answers `/health` with a valid proof for its own runtime token. */
const awaitReady = (controllersRoot: string, sessionId: string, port: number, exited: () => boolean, logPath: string) =>
  Effect.gen(function*() {
    const client = yield* ControllerClient
    /** One look: the proven daemon, `None` while it is not ready yet, a failure once it has exited. */
    const look = Effect.gen(function*() {
      const runtime = yield* client.readRuntime(controllersRoot, sessionId)
      if (Option.isSome(runtime) && runtime.value.port === port) {
        const { status, health } = yield* client.probe(port, runtime.value.controlToken, runtime.value.apiToken)
        if (status === "compatible" && health.controller_session_id === sessionId) {
          return Option.some({ health, apiToken: runtime.value.apiToken })
        }
      }
      if (exited()) return yield* controllerUnavailable(`The local controller could not start. See ${logPath} for details.`)
      return Option.none()
    })
    const ready = yield* Effect.repeat(look, {
      // The schedule's output is the last look, so a deadline reached without a proven daemon is `None`.
      schedule: Schedule.identity<Effect.Effect.Success<typeof look>>().pipe(
        Schedule.addDelay(() => Duration.millis(50)),
        Schedule.upTo(READY_WITHIN)
      ),
      until: Option.isSome
    })
    if (Option.isSome(ready)) return ready.value
    return yield* controllerUnavailable(
      `The local controller did not become ready within ${Duration.format(READY_WITHIN)}. See ${logPath} for details, then try again.`
    )
  })

/** Asks older, idle, proven controllers of this install to stop before a new one starts. */
export const retireStaleControllers = (controllersRoot: string) =>
  Effect.gen(function*() {
    const files = yield* FileStore
    const client = yield* ControllerClient
    const sessions = (yield* files.listDirectories(controllersRoot)).filter(isControllerSessionId)
    yield* Effect.forEach(sessions, (sessionId) =>
      Effect.gen(function*() {
        const runtime = yield* client.readRuntime(controllersRoot, sessionId)
        if (Option.isNone(runtime)) return
        const { status, health } = yield* client.probe(runtime.value.port, runtime.value.controlToken, runtime.value.apiToken)
        const stale = status === "compatible" && health.controller_session_id === sessionId &&
          health.active_runs === 0 && typeof health.version === "string" &&
          compareVersions(health.version, VERSION) < 0
        if (stale) yield* client.shutdown(runtime.value)
      }), { concurrency: 4, discard: true })
  })

const decodeAttempt = Schema.decodeUnknownOption(AttemptFile)

/** A retried launch: the same answer while that controller lives, otherwise a refusal. */
const answerRetry = (settings: ResolvedSettings, sessionId: string, attemptPath: string) =>
  Effect.gen(function*() {
    const files = yield* FileStore
    const client = yield* ControllerClient
    const attempt = decodeAttempt(yield* files.readJson(attemptPath, ATTEMPT_MAX_BYTES))
    const runtime = yield* client.readRuntime(settings.controllersRoot, sessionId)
    const ready = Option.exists(attempt, (launch) => launch.controller_ready === true)
    if (ready && Option.isSome(runtime)) {
      const { status, health } = yield* client.probe(runtime.value.port, runtime.value.controlToken, runtime.value.apiToken)
      if (status === "compatible" && health.controller_session_id === sessionId) {
        return readyResult(sessionId, runtime.value.port, runtime.value.apiToken)
      }
    }
    return yield* conflict("This controller launch was already attempted; it will not be retried.")
  })

/** What the daemon is told of the settings it serves (the port and socket are added as it starts). */
const daemonEnvironment = (settings: ResolvedSettings, input: OpenControllerInput): Record<string, string> => ({
  CODEX_REPLAY_RUN_ROOT: settings.runRoot,
  CLAUDE_CONFIG_DIR: settings.claudeConfigDir,
  CODEX_REPLAY_CONTROLLER_SESSION_ID: input.controller_session_id,
  ...(input.codex_cli_path === undefined ? {} : { CODEX_CLI_PATH: input.codex_cli_path })
})

const launch = (settings: ResolvedSettings, input: OpenControllerInput, attemptPath: string, attempt: AttemptFile) =>
  Effect.gen(function*() {
    const files = yield* FileStore
    const client = yield* ControllerClient
    const logPath = path.join(path.dirname(attemptPath), CONTROLLER_LOG_FILE)
    yield* retireStaleControllers(settings.controllersRoot)
    const daemon = yield* client.startDaemon(settings.preferredPort, daemonEnvironment(settings, input), logPath)
    const { apiToken, health } = yield* awaitReady(settings.controllersRoot, input.controller_session_id, daemon.port, daemon.exited, logPath).pipe(
      // A daemon that never proved itself is not left running unowned.
      Effect.tapError(() => daemon.stop)
    )
    yield* files.writeJson(attemptPath, { ...attempt, controller_ready: true, controller_pid: health.pid ?? daemon.pid })
    return readyResult(input.controller_session_id, daemon.port, apiToken)
  }).pipe(
    Effect.tapError((error) =>
      Effect.flatMap(FileStore, (files) =>
        files.writeJson(attemptPath, { ...attempt, startup_failed: true, startup_error: error.message })).pipe(
          Effect.ignore
        )
    )
  )

/**
 * `open_controller` (README.md#ways-in): single-use per controller session; a refusal fails with the sentence MCP shows. The first call claims
 * `attempt.json`, starts the daemon detached on a reserved port and waits for its proof of life.
 */
export const openController = (rawInput: unknown, env: Readonly<Record<string, string | undefined>>, home: string) =>
  Effect.gen(function*() {
    const files = yield* FileStore
    const input = yield* validateLaunchInput(rawInput)
    const settings = yield* settingsOf(env, home)
    const instance = path.join(settings.controllersRoot, input.controller_session_id)
    const attemptPath = path.join(instance, ATTEMPT_FILE)
    yield* files.ensurePrivateDirectory(instance)
    const now = yield* nowIso
    const attempt: AttemptFile = {
      version: 1,
      controller_session_id: input.controller_session_id,
      created_at: now,
      launch_requested_at: now,
      controller_ready: false,
      start_requested: false,
      final_results_ready: false
    }
    const claimed = yield* files.createJsonExclusive(attemptPath, attempt)
    if (!claimed) return yield* answerRetry(settings, input.controller_session_id, attemptPath)
    return yield* launch(settings, input, attemptPath, attempt)
  }).pipe(
    // MCP answers a failure as a tool result; an internal one is logged (stderr) and answered generically.
    Effect.catchAll((error) =>
      Effect.zipRight(
        isInternalFailure(error) ? Effect.logError(`Codex Replay startup failed: ${error.message}`) : Effect.void,
        Effect.fail(`Codex Replay startup failed: ${publicFailure(error).message}`)
      ))
  )
