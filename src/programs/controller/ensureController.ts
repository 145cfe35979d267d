import { settingsOf } from "../../services/Settings.js"
import { Effect, Either, Option } from "effect"
import { controllerOrigin } from "../../domain/product.js"
import { VERSION } from "../../services/internal/packageInfo.js"
import { controllerUnavailable } from "../../domain/errors.js"
import { newControllerSessionId } from "../../domain/ids.js"
import { ControllerClient, type KnownController, settingsMismatch, settingsShared } from "../../services/ControllerClient.js"
import { controllerSettingsOf, launchUrlOf } from "../../services/ControllerRuntime.js"
import { INSTALL_CODEX } from "../../services/platform/codexCli.js"
import { openController } from "./openController.js"

/** A controller to talk to, and in one sentence which one it is and why it was chosen. */
export interface EnsuredController {
  /** The address that opens its page, with its API token. */
  readonly url: string
  readonly controller: KnownController
  readonly reused: boolean
  readonly explanation: string
  /** A live controller of this version was passed over because its settings differ (the explanation says which). */
  readonly passedOver: boolean
}

/**
 * A live controller of this version for this install and its URL: one that is already running with
 * the same settings (history folder, run root, Codex path), or a new one launched exactly as MCP would.
 */
export const ensureKnownController = (env: Readonly<Record<string, string | undefined>>, home: string) =>
  Effect.gen(function*() {
    const client = yield* ControllerClient
    const settings = yield* settingsOf(env, home)
    const wanted = controllerSettingsOf(settings)
    const history = `${settings.claudeConfigDir}/projects`
    const live: Array<KnownController> = []
    const running = yield* client.findLive(settings.controllersRoot, (controller, status, health) => {
      const usable = status === "compatible" && health.version === VERSION && health.controller_session_id === controller.sessionId
      if (usable) live.push(controller)
      return usable && settingsMismatch(controller.settings, wanted) === undefined
    })
    if (Option.isSome(running)) {
      return known(running.value, true, false, `Reused controller ${running.value.sessionId}: it reads ${history} and keeps runs in ${settings.runRoot}.`)
    }
    // A controller whose runtime file cannot be read may be serving: a second one beside it is not started.
    const unreadable = yield* client.unreadableRuntimes(settings.controllersRoot)
    if (unreadable.length > 0) {
      return yield* controllerUnavailable(
        `Cannot read the runtime file of controller ${unreadable[0]!.sessionId} (${unreadable[0]!.file}), which may still be running; ` +
          "stop its process, or remove that file if it is gone, then try again."
      )
    }
    const cliPath = settings.codexCliPath
    // A CODEX_CLI_PATH that names no executable is said as what to do, before a controller is started for it.
    if (cliPath !== undefined && cliPath.startsWith("/") && !(yield* client.isExecutable(cliPath))) {
      return yield* controllerUnavailable(`The Codex CLI ${cliPath} (CODEX_CLI_PATH) does not exist or is not executable: ${INSTALL_CODEX}.`)
    }
    const sessionId = yield* newControllerSessionId
    const result = yield* Effect.either(openController({
      controller_session_id: sessionId,
      ...(cliPath !== undefined && cliPath.startsWith("/") ? { codex_cli_path: cliPath } : {})
    }, env, home))
    if (Either.isLeft(result)) return yield* controllerUnavailable(result.left)
    const launched = yield* client.readRuntime(settings.controllersRoot, sessionId)
    if (Option.isNone(launched)) {
      return yield* controllerUnavailable(
        `The controller ${sessionId} started without a readable runtime file in ${settings.controllersRoot}; run \`codex-replay stop\` and try again.`
      )
    }
    // The running controller nearest to the settings asked is the one named.
    const other = live.reduce<KnownController | undefined>((nearest, controller) =>
      nearest === undefined || settingsShared(controller.settings, wanted) > settingsShared(nearest.settings, wanted) ? controller : nearest, undefined)
    const why = other === undefined
      ? "no controller of this version was running"
      : `controller ${other.sessionId} is running but ${settingsMismatch(other.settings, wanted)}`
    return known(launched.value, false, other !== undefined, `Started controller ${sessionId} for ${history} (${why}).`)
  })

const known = (controller: KnownController, reused: boolean, passedOver: boolean, explanation: string): EnsuredController => ({
  url: launchUrlOf(controllerOrigin(controller.port), controller.apiToken),
  controller,
  reused,
  explanation,
  passedOver
})

/** `codex-replay open` / `npm start`: the URL of a live controller of this version (see `ensureKnownController`). */
export const ensureController = (env: Readonly<Record<string, string | undefined>>, home: string) =>
  Effect.map(ensureKnownController(env, home), ({ url }) => url)
