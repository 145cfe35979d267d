import { HttpServer } from "@effect/platform"
import { Effect, Layer, Option } from "effect"
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto"
import * as FileSystem from "@effect/platform/FileSystem"
import * as path from "node:path"
import {
  CONTROLLER_HOST,
  CONTROLLER_LOG_FILE,
  CONTROLLER_PROTOCOL_VERSION,
  controllerOrigin,
  MAX_RUNTIME_FILE_BYTES,
  RUNTIME_FILE,
  SERVER_NAME
} from "../domain/product.js"
import { VERSION } from "./internal/packageInfo.js"
import type { CodexPriceTable } from "../domain/codexPricing.js"
import type { ControllerSettings, RuntimeFile } from "../domain/contracts/index.js"
import { canonicalJson, sha256 } from "../domain/runConfig.js"
import { FileStore } from "./FileStore.js"
import { NodeFilesLive } from "./platform/nodeFiles.js"
import { Settings } from "./Settings.js"

export const healthProof = (controlToken: string, challenge: string) =>
  challenge === "" ? "" : createHmac("sha256", controlToken).update(challenge).digest("hex")

export const tokensEqual = (supplied: string, expected: string) => {
  const [a, b] = [Buffer.from(supplied), Buffer.from(expected)]
  return a.length === b.length && timingSafeEqual(a, b)
}

/** The name of the cookie that carries a controller's API token to its page. */
export const apiCookieName = (port: number) => `codex_replay_${port}`

/** The address that opens a controller's page: the browser trades the token for a cookie at once. */
export const launchUrlOf = (origin: string, apiToken: string | undefined) =>
  apiToken === undefined ? `${origin}/` : `${origin}/?token=${apiToken}`

export { ControllerSettings, RuntimeFile } from "../domain/contracts/index.js"

export const controllerSettingsOf = (settings: {
  readonly claudeConfigDir: string
  readonly runRoot: string
  readonly codexCliPath: string | undefined
  readonly reviewerModel?: string | undefined
  readonly codexPricingFile?: string | undefined
  readonly codexPriceOverrides?: CodexPriceTable | undefined
}): ControllerSettings => ({
  claude_config_dir: settings.claudeConfigDir,
  run_root: settings.runRoot,
  codex_cli_path: settings.codexCliPath ?? null,
  reviewer_model: settings.reviewerModel ?? null,
  pricing_file: settings.codexPricingFile ?? null,
  // The prices as read: a pricing file edited since a controller started is other prices.
  pricing_sha256: settings.codexPricingFile === undefined ? null : sha256(canonicalJson(settings.codexPriceOverrides ?? {}))
})

/**
 * The identity of this running daemon: its session, its secret control token, the port it serves,
 * and the private `controller-server.json` that lets launchers find and prove it.
 */
export class ControllerRuntime extends Effect.Service<ControllerRuntime>()("codex-replay/ControllerRuntime", {
  scoped: Effect.gen(function*() {
    const settings = yield* Settings
    const files = yield* FileStore
    const fileSystem = yield* FileSystem.FileSystem
    const server = yield* HttpServer.HttpServer
    const port = server.address._tag === "TcpAddress" ? server.address.port : settings.preferredPort
    const controlToken = randomBytes(48).toString("base64url")
    const apiToken = randomBytes(32).toString("hex")
    const instanceDirectory = path.join(settings.controllersRoot, settings.controllerSessionId)
    const runtimePath = path.join(instanceDirectory, RUNTIME_FILE)
    const origin = controllerOrigin(port)
    const runtime: RuntimeFile = {
      server: SERVER_NAME,
      protocol_version: CONTROLLER_PROTOCOL_VERSION,
      version: VERSION,
      pid: process.pid,
      port,
      controller_session_id: settings.controllerSessionId,
      control_token: controlToken,
      api_token: apiToken,
      settings: controllerSettingsOf(settings)
    }

    yield* files.ensurePrivateDirectory(instanceDirectory)
    yield* files.writeJson(runtimePath, runtime)
    yield* Effect.addFinalizer(() => removeIfOwned)

    const removeIfOwned = Effect.gen(function*() {
      const current = yield* files.readJsonOption(runtimePath, MAX_RUNTIME_FILE_BYTES).pipe(
        Effect.orElseSucceed(() => Option.none())
      )
      if (Option.isSome(current) && current.value.control_token === controlToken) {
        yield* files.remove(runtimePath)
      }
      const logPath = path.join(instanceDirectory, CONTROLLER_LOG_FILE)
      if (Option.exists(yield* files.statOption(logPath), (log) => log.size === 0)) yield* files.remove(logPath)
      // Left in place while anything else is in it.
      const left = yield* fileSystem.readDirectory(instanceDirectory).pipe(Effect.orElseSucceed(() => ["unknown"]))
      if (left.length === 0) yield* files.remove(instanceDirectory)
    }).pipe(Effect.catchAll((error) => Effect.logWarning(`Cannot clean up the controller's files: ${error.message}`)))

    return {
      sessionId: settings.controllerSessionId,
      port,
      origin,
      expectedHost: `${CONTROLLER_HOST}:${port}`,
      instanceDirectory,
      runtimePath,
      proof: (challenge: string) => healthProof(controlToken, challenge),
      isControlToken: (supplied: string) => supplied !== "" && tokensEqual(supplied, controlToken),
      isApiToken: (supplied: string) => supplied !== "" && tokensEqual(supplied, apiToken),
      /** The page's cookie: named after the port, as cookies are shared by every port of 127.0.0.1. */
      cookieName: apiCookieName(port)
    } as const
  }),
  dependencies: [FileStore.Default, NodeFilesLive]
}) {
  /** A runtime for tests of code that only needs the identity, not a bound server. */
  static readonly test = (fields: { sessionId: string; port: number; token?: string; apiToken?: string }) =>
    Layer.succeed(
      ControllerRuntime,
      ControllerRuntime.make({
        sessionId: fields.sessionId as never,
        port: fields.port,
        origin: controllerOrigin(fields.port),
        expectedHost: `${CONTROLLER_HOST}:${fields.port}`,
        instanceDirectory: "",
        runtimePath: "",
        proof: (challenge) => healthProof(fields.token ?? "test-token", challenge),
        isControlToken: (supplied) => supplied === (fields.token ?? "test-token"),
        isApiToken: (supplied) => supplied === (fields.apiToken ?? "test-api-token"),
        cookieName: apiCookieName(fields.port)
      })
    )
}

