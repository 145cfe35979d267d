import { Effect, Option, Schema } from "effect"
import { ControllerSettings, Health as HealthAnswer, RuntimeFileAddress } from "../domain/contracts/index.js"
import { randomBytes } from "node:crypto"
import * as path from "node:path"
import {
  CONTROL_HEADER,
  CONTROLLER_PROTOCOL_VERSION,
  controllerOrigin,
  MAX_RUNTIME_FILE_BYTES,
  RUNTIME_FILE,
  SERVER_NAME
} from "../domain/product.js"
import { isControllerSessionId } from "../domain/ids.js"
import { healthProof, tokensEqual } from "./ControllerRuntime.js"
import { FileStore } from "./FileStore.js"
import { LinkSafeFiles } from "./platform/LinkSafeFiles.js"
import { NodeFilesLive } from "./platform/nodeFiles.js"
import { ProcessRunner } from "./ProcessRunner.js"

export type ProbeStatus = "compatible" | "unverified" | "foreign" | "absent"

/** What a `/health` answer said; any field may be missing from an answer that is not a controller's. */
const PartialHealth = Schema.partial(HealthAnswer)
export type Health = typeof PartialHealth.Type
const decodeHealth = Schema.decodeUnknownOption(PartialHealth)
const decodeRuntimeAddress = Schema.decodeUnknownOption(RuntimeFileAddress)
const decodeSettings = Schema.decodeUnknownOption(ControllerSettings)

export interface KnownController {
  readonly sessionId: string
  readonly port: number
  readonly controlToken: string
  /** The token every API request presents (`Authorization: Bearer …`); absent in runtime files of older versions. */
  readonly apiToken?: string | undefined
  /** What the controller recorded it works on (absent in runtime files of older versions). */
  readonly settings?: ControllerSettings | undefined
}

const setting = (name: string, value: string | null) => `${name} ${value === null ? "unset" : `= ${value}`}`

/**
 * Each setting two controllers must share, in order: why one with `recorded` settings cannot serve `wanted`,
 * or undefined when that setting agrees. Runtime files of older versions record neither reviewer nor prices: read as unset.
 */
const SETTING_CHECKS: ReadonlyArray<(recorded: ControllerSettings, wanted: ControllerSettings) => string | undefined> = [
  (recorded, wanted) =>
    recorded.claude_config_dir === wanted.claude_config_dir ? undefined : `it reads another history folder (${recorded.claude_config_dir}/projects)`,
  (recorded, wanted) => recorded.run_root === wanted.run_root ? undefined : `it keeps runs in another run root (${recorded.run_root})`,
  (recorded, wanted) =>
    recorded.codex_cli_path === wanted.codex_cli_path
      ? undefined
      : `it drives another Codex executable (${recorded.codex_cli_path ?? "codex on PATH"})`,
  (recorded, wanted) => {
    const [there, here] = [recorded.reviewer_model ?? null, wanted.reviewer_model ?? null]
    return there === here ? undefined : `its reviewer setting differs (${setting("CODEX_REPLAY_REVIEWER_MODEL", there)} there, ${here === null ? "unset" : `= ${here}`} here)`
  },
  // The pricing file, then its prices: a controller started from the same file is nearer than one without it.
  (recorded, wanted) => {
    const [there, here] = [recorded.pricing_file ?? null, wanted.pricing_file ?? null]
    return there === here ? undefined : `its Codex prices differ (${setting("CODEX_REPLAY_PRICING", there)} there, ${here === null ? "unset" : `= ${here}`} here)`
  },
  (recorded, wanted) =>
    (recorded.pricing_sha256 ?? null) === (wanted.pricing_sha256 ?? null)
      ? undefined
      : `its Codex prices differ (${setting("CODEX_REPLAY_PRICING", recorded.pricing_file ?? null)} there, ${
        wanted.pricing_file === undefined || wanted.pricing_file === null ? "unset" : `= ${wanted.pricing_file}`
      } here, the file changed since it started)`
]

/** Why a controller with `recorded` settings cannot serve `wanted`, or undefined when it can. */
export const settingsMismatch = (recorded: ControllerSettings | undefined, wanted: ControllerSettings) => {
  if (recorded === undefined) return "it does not say which history folder it reads"
  for (const check of SETTING_CHECKS) {
    const why = check(recorded, wanted)
    if (why !== undefined) return why
  }
  return undefined
}

/** How many of the settings, in order, a controller with `recorded` settings shares with `wanted` (the nearest is named when none serves). */
export const settingsShared = (recorded: ControllerSettings | undefined, wanted: ControllerSettings) => {
  if (recorded === undefined) return -1
  const first = SETTING_CHECKS.findIndex((check) => check(recorded, wanted) !== undefined)
  return first === -1 ? SETTING_CHECKS.length : first
}

/** The header that presents a controller's API token. */
export const bearer = (apiToken: string) => ({ Authorization: `Bearer ${apiToken}` })
const bearerOf = (controller: KnownController) => (controller.apiToken === undefined ? {} : bearer(controller.apiToken))

const request = (url: string, init: RequestInit, timeoutMillis: number) =>
  Effect.tryPromise(async (signal) => {
    const response = await fetch(url, { ...init, signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMillis)]) })
    const text = await response.text()
    let body: unknown = undefined
    try {
      body = JSON.parse(text)
    } catch {
      body = undefined
    }
    return { status: response.status, body }
  }).pipe(Effect.option)

/** Talks to controller daemons of this install: starts them, reads their runtime files, proves them, asks them to stop. */
export class ControllerClient extends Effect.Service<ControllerClient>()("codex-replay/ControllerClient", {
  effect: Effect.gen(function*() {
    const files = yield* FileStore

    /** The port and token a daemon recorded for itself, if its runtime file is readable and sane. */
    const readRuntime = Effect.fn("ControllerClient.readRuntime")(function*(controllersRoot: string, sessionId: string) {
      const runtime = yield* files.readJsonOption(path.join(controllersRoot, sessionId, RUNTIME_FILE), MAX_RUNTIME_FILE_BYTES).pipe(
        Effect.orElseSucceed(() => Option.none())
      )
      return Option.flatMap(runtime, decodeRuntimeAddress).pipe(
        Option.map(({ api_token, port, control_token, settings }): KnownController => ({
          sessionId,
          port,
          controlToken: control_token,
          apiToken: api_token,
          settings: Option.getOrUndefined(decodeSettings(settings))
        }))
      )
    })

    /**
     * Asks `/health` with a fresh challenge and checks the HMAC proof against the recorded control token;
     * with the API token the answer also holds the controller's version, session, process and active runs.
     */
    const probe = Effect.fn("ControllerClient.probe")(function*(port: number, controlToken: string | undefined, apiToken?: string) {
      const challenge = randomBytes(24).toString("base64url")
      const answer = yield* request(`${controllerOrigin(port)}/health?challenge=${challenge}`, {
        headers: apiToken === undefined ? {} : bearer(apiToken)
      }, 1000)
      if (Option.isNone(answer)) return { status: "absent" as ProbeStatus, health: {} as Health }
      const { status, body } = answer.value
      const health: Health = Option.getOrElse(decodeHealth(body), () => ({}))
      const isController = status === 200 && health.server === SERVER_NAME &&
        health.protocol_version === CONTROLLER_PROTOCOL_VERSION
      if (!isController) return { status: "foreign" as ProbeStatus, health }
      const proven = controlToken !== undefined && typeof health.proof === "string" &&
        tokensEqual(health.proof, healthProof(controlToken, challenge))
      return { status: (proven ? "compatible" : "unverified") as ProbeStatus, health }
    })

    /** Asks a controller to stop: `stopping`, `busy` (a run is active: 409) or `unanswered`. */
    const requestStop = Effect.fn("ControllerClient.requestStop")(function*(controller: KnownController, timeoutMillis = 5000) {
      const answer = yield* request(`${controllerOrigin(controller.port)}/api/shutdown`, {
        method: "POST",
        headers: { "Content-Type": "application/json", [CONTROL_HEADER]: controller.controlToken, ...bearerOf(controller) },
        body: "{}"
      }, timeoutMillis)
      if (Option.isNone(answer)) return "unanswered" as const
      return answer.value.status === 200 ? "stopping" as const : answer.value.status === 409 ? "busy" as const : "unanswered" as const
    })

    const shutdown = (controller: KnownController) => Effect.map(requestStop(controller, 2000), (outcome) => outcome === "stopping")

    /** The controller directories of `controllersRoot`; one that cannot be listed has none to offer. */
    const sessionIds = (controllersRoot: string) =>
      files.listDirectories(controllersRoot).pipe(
        Effect.map((names) => names.filter(isControllerSessionId)),
        Effect.orElseSucceed(() => [])
      )

    /** The first controller of `controllersRoot` whose runtime file reads and whose `/health` answer `accept`s. */
    const findLive = Effect.fn("ControllerClient.findLive")(function*(
      controllersRoot: string,
      accept: (controller: KnownController, status: ProbeStatus, health: Health) => boolean
    ) {
      for (const sessionId of yield* sessionIds(controllersRoot)) {
        const runtime = yield* readRuntime(controllersRoot, sessionId)
        if (Option.isNone(runtime)) continue
        const { status, health } = yield* probe(runtime.value.port, runtime.value.controlToken, runtime.value.apiToken)
        if (accept(runtime.value, status, health)) return runtime
      }
      return Option.none<KnownController>()
    })

    /** Every controller of `controllersRoot` whose runtime file reads and whose `/health` proves it. */
    const listLive = Effect.fn("ControllerClient.listLive")(function*(controllersRoot: string) {
      const live: Array<KnownController> = []
      for (const sessionId of yield* sessionIds(controllersRoot)) {
        const runtime = yield* readRuntime(controllersRoot, sessionId)
        if (Option.isNone(runtime)) continue
        const { status, health } = yield* probe(runtime.value.port, runtime.value.controlToken, runtime.value.apiToken)
        if (status === "compatible" && health.controller_session_id === sessionId) live.push(runtime.value)
      }
      return live
    })

    /**
     * The controllers of `controllersRoot` whose runtime file is there but cannot be read as one (damaged,
     * unreadable, not a regular file): each may still be serving, and nothing can prove or stop it.
     */
    const unreadableRuntimes = Effect.fn("ControllerClient.unreadableRuntimes")(function*(controllersRoot: string) {
      const found: Array<{ readonly sessionId: string; readonly file: string }> = []
      for (const sessionId of yield* sessionIds(controllersRoot)) {
        const file = path.join(controllersRoot, sessionId, RUNTIME_FILE)
        if (!(yield* files.exists(file).pipe(Effect.orElseSucceed(() => false)))) continue
        if (Option.isNone(yield* readRuntime(controllersRoot, sessionId))) found.push({ sessionId, file })
      }
      return found
    })

    /** Whether `file` is a regular file this process may execute (a `codex_cli_path` to hand a daemon). */
    const isExecutable = (yield* LinkSafeFiles).isExecutable

    /** Starts the daemon detached (ProcessRunner.startDaemon, the one place processes are spawned). */
    const startDaemon = (yield* ProcessRunner).startDaemon

    return { readRuntime, probe, shutdown, requestStop, findLive, listLive, unreadableRuntimes, isExecutable, startDaemon } as const
  }),
  dependencies: [FileStore.Default, NodeFilesLive, ProcessRunner.Default]
}) {}
