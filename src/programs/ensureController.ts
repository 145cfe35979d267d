import { settingsOf } from "../services/Settings.js"
import { Effect, Option } from "effect"
import { randomBytes } from "node:crypto"
import { controllerOrigin, VERSION } from "../domain/product.js"
import { controllerError } from "../domain/errors.js"
import { ControllerClient, type KnownController } from "../services/ControllerClient.js"
import { openController } from "./openController.js"

/**
 * A live controller of this version for this install and its URL: one that is already running, or a
 * new one launched exactly as MCP would.
 */
export const ensureKnownController = (env: Readonly<Record<string, string | undefined>>, home: string) =>
  Effect.gen(function*() {
    const client = yield* ControllerClient
    const settings = yield* settingsOf(env, home)
    const running = yield* client.findLive(settings.controllersRoot, (controller, status, health) =>
      status === "compatible" && health.version === VERSION && health.controller_session_id === controller.sessionId)
    if (Option.isSome(running)) return known(running.value)
    const sessionId = randomBytes(16).toString("hex")
    const cliPath = settings.codexCliPath
    const result = yield* openController({
      controller_session_id: sessionId,
      ...(cliPath !== undefined && cliPath.startsWith("/") ? { codex_cli_path: cliPath } : {})
    }, env, home)
    if (result.isError === true || typeof result.structuredContent?.launch_url !== "string") {
      return yield* controllerError(result.content[0]?.text ?? "The controller did not start.")
    }
    const launched = yield* client.readRuntime(settings.controllersRoot, sessionId)
    if (Option.isNone(launched)) return yield* controllerError("The controller started without a readable runtime file.")
    return known(launched.value)
  })

const known = (controller: KnownController) => ({ url: `${controllerOrigin(controller.port)}/`, controller })

/** `codex-replay open` / `npm start`: the URL of a live controller of this version (see `ensureKnownController`). */
export const ensureController = (env: Readonly<Record<string, string | undefined>>, home: string) =>
  Effect.map(ensureKnownController(env, home), ({ url }) => url)
