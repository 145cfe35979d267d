import { settingsOf } from "../services/Settings.js"
import { Effect, Option } from "effect"
import { randomBytes } from "node:crypto"
import { controllerOrigin, VERSION } from "../domain/product.js"
import { isControllerSessionId } from "../domain/ids.js"
import { controllerError } from "../domain/errors.js"
import { ControllerClient } from "../services/ControllerClient.js"
import { FileStore } from "../services/FileStore.js"
import { openController } from "./openController.js"

/**
 * `codex-replay open` / `npm start`: a URL of a live controller of this version, reusing one that is
 * already running for this install or launching a new one exactly as MCP would.
 */
export const ensureController = (env: Readonly<Record<string, string | undefined>>, home: string) =>
  Effect.gen(function*() {
    const files = yield* FileStore
    const client = yield* ControllerClient
    const settings = yield* settingsOf(env, home)
    for (const sessionId of (yield* files.listDirectories(settings.controllersRoot)).filter(isControllerSessionId)) {
      const runtime = yield* client.readRuntime(settings.controllersRoot, sessionId)
      if (Option.isNone(runtime)) continue
      const { status, health } = yield* client.probe(runtime.value.port, runtime.value.controlToken)
      if (status === "compatible" && health.version === VERSION && health.controller_session_id === sessionId) {
        return `${controllerOrigin(runtime.value.port)}/`
      }
    }
    const cliPath = settings.codexCliPath
    const result = yield* openController({
      controller_session_id: randomBytes(16).toString("hex"),
      ...(cliPath !== undefined && cliPath.startsWith("/") ? { codex_cli_path: cliPath } : {})
    }, env, home)
    const url = result.structuredContent?.launch_url
    if (result.isError === true || typeof url !== "string") {
      return yield* controllerError(result.content[0]?.text ?? "The controller did not start.")
    }
    return url
  })
