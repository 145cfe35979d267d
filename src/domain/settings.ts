import { Config, Effect, Either, Option } from "effect"
import * as path from "node:path"
import { cacheRootOf, type Environment, expandHome, nonEmpty, runRootOf } from "./cacheRoot.js"
import type { CodexPriceTable } from "./codexPricing.js"
import { type ControllerError, invalidArgument } from "./errors.js"
import { type ControllerSessionId, isControllerSessionId, MODEL_ID_PATTERN } from "./ids.js"
import { DEFAULT_CONTROLLER_PORT, DEFAULT_IDLE_TIMEOUT_SECONDS } from "./product.js"

export interface ResolvedSettings {
  readonly runRoot: string
  readonly cacheRoot: string
  readonly controllersRoot: string
  readonly preferredPort: number
  readonly idleTimeoutMillis: number
  readonly controllerSessionId: ControllerSessionId
  readonly codexCliPath: string | undefined
  readonly claudeConfigDir: string
  /** The reviewer of every run of this controller (`CODEX_REPLAY_REVIEWER_MODEL`); Codex's default model when unset. */
  readonly reviewerModel?: string | undefined
  /** A listening socket handed over by the launcher (`CODEX_REPLAY_CONTROLLER_SOCKET_FD`). */
  readonly inheritedSocketFd: number | undefined
  /** The file named by `CODEX_REPLAY_PRICING`, if any. */
  readonly codexPricingFile?: string | undefined
  /** Its Codex prices, which take precedence over the built-in table (absent: the table only). */
  readonly codexPriceOverrides?: CodexPriceTable
  /** Each check's and set-up command's time limit in seconds (`CODEX_REPLAY_CHECK_TIME_LIMIT_SECONDS`; 600 when unset). */
  readonly checkTimeLimitSeconds?: number
}

export type { Environment }

export const parsePort = (raw: string | undefined): Either.Either<number, ControllerError> => {
  const value = nonEmpty(raw)
  if (value === undefined) return Either.right(DEFAULT_CONTROLLER_PORT)
  if (!/^\s*\d+\s*$/.test(value)) {
    return Either.left(invalidArgument("CODEX_REPLAY_CONTROLLER_PORT must be an integer."))
  }
  const port = Number(value)
  return port < 1024 || port > 65535
    ? Either.left(invalidArgument("CODEX_REPLAY_CONTROLLER_PORT must be from 1024 through 65535."))
    : Either.right(port)
}

export const parseIdleTimeoutMillis = (raw: string | undefined): Either.Either<number, ControllerError> => {
  const value = nonEmpty(raw)
  if (value === undefined) return Either.right(DEFAULT_IDLE_TIMEOUT_SECONDS * 1000)
  const seconds = Number(value)
  return Number.isFinite(seconds) && seconds > 0
    ? Either.right(seconds * 1000)
    : Either.left(invalidArgument("CODEX_REPLAY_CONTROLLER_IDLE_TIMEOUT_SECONDS must be a positive number."))
}

export const DEFAULT_CHECK_TIME_LIMIT_SECONDS = 600

export const parseCheckTimeLimit = (raw: string | undefined): Either.Either<number, ControllerError> => {
  const value = nonEmpty(raw)
  if (value === undefined) return Either.right(DEFAULT_CHECK_TIME_LIMIT_SECONDS)
  const seconds = Number(value)
  return /^\s*\d+\s*$/.test(value) && seconds >= 1 && seconds <= 86_400
    ? Either.right(seconds)
    : Either.left(invalidArgument("CODEX_REPLAY_CHECK_TIME_LIMIT_SECONDS must be a whole number of seconds from 1 through 86400."))
}

export const parseSessionId = (
  raw: string | undefined,
  generate: () => string
): Either.Either<ControllerSessionId, ControllerError> => {
  const value = nonEmpty(raw) ?? generate()
  return isControllerSessionId(value)
    ? Either.right(value)
    : Either.left(invalidArgument("CODEX_REPLAY_CONTROLLER_SESSION_ID must be 32 lowercase hexadecimal characters."))
}

export { MODEL_ID_PATTERN }

export const parseReviewerModel = (raw: string | undefined): Either.Either<string | undefined, ControllerError> => {
  const value = nonEmpty(raw)?.trim()
  if (value === undefined) return Either.right(undefined)
  return MODEL_ID_PATTERN.test(value)
    ? Either.right(value)
    : Either.left(invalidArgument("CODEX_REPLAY_REVIEWER_MODEL must be a Codex model id such as gpt-5.5."))
}

const parseSocketFd = (raw: string | undefined): Either.Either<number | undefined, ControllerError> => {
  const value = nonEmpty(raw)
  if (value === undefined) return Either.right(undefined)
  return /^\d+$/.test(value)
    ? Either.right(Number(value))
    : Either.left(invalidArgument("CODEX_REPLAY_CONTROLLER_SOCKET_FD must be a file descriptor number."))
}

const pricingFile = (raw: string | undefined, home: string) => {
  const value = nonEmpty(raw)
  return value === undefined ? undefined : path.resolve(expandHome(value.trim(), home))
}

/** Every variable of README.md#configuration. */
export const SETTING_VARIABLES = [
  "CODEX_REPLAY_RUN_ROOT",
  "CODEX_REPLAY_CONTROLLER_PORT",
  "CODEX_REPLAY_CONTROLLER_IDLE_TIMEOUT_SECONDS",
  "CODEX_REPLAY_CONTROLLER_SESSION_ID",
  "CODEX_CLI_PATH",
  "CLAUDE_CONFIG_DIR",
  "CODEX_REPLAY_REVIEWER_MODEL",
  "CODEX_REPLAY_CONTROLLER_SOCKET_FD",
  "CODEX_REPLAY_PRICING",
  "CODEX_REPLAY_CHECK_TIME_LIMIT_SECONDS"
] as const

/**
 * The configuration's variables as the current `ConfigProvider` has them (the environment in production,
 * `ConfigProvider.fromMap` in an embedding or a test); unset ones are absent.
 */
export const settingVariables: Effect.Effect<Environment> = Effect.map(
  Effect.forEach(SETTING_VARIABLES, (name) =>
    Effect.map(Effect.orElseSucceed(Config.option(Config.string(name)), () => Option.none<string>()), (value) => [name, value] as const)),
  (entries) => Object.fromEntries(entries.flatMap(([name, value]) => (Option.isSome(value) ? [[name, value.value]] : [])))
)

/** Reads every setting of README.md#configuration from an environment; the first invalid value is reported. */
export const resolveSettings = (
  env: Environment,
  home: string,
  generateSessionId: () => string
): Either.Either<ResolvedSettings, ControllerError> =>
  Either.gen(function*() {
    const runRoot = runRootOf(env, home)
    const cacheRoot = cacheRootOf(runRoot)
    return {
      runRoot,
      cacheRoot,
      controllersRoot: path.join(cacheRoot, "controllers"),
      preferredPort: yield* parsePort(env.CODEX_REPLAY_CONTROLLER_PORT),
      idleTimeoutMillis: yield* parseIdleTimeoutMillis(env.CODEX_REPLAY_CONTROLLER_IDLE_TIMEOUT_SECONDS),
      controllerSessionId: yield* parseSessionId(env.CODEX_REPLAY_CONTROLLER_SESSION_ID, generateSessionId),
      codexCliPath: nonEmpty(env.CODEX_CLI_PATH),
      claudeConfigDir: path.resolve(expandHome(nonEmpty(env.CLAUDE_CONFIG_DIR) ?? "~/.claude", home)),
      reviewerModel: yield* parseReviewerModel(env.CODEX_REPLAY_REVIEWER_MODEL),
      inheritedSocketFd: yield* parseSocketFd(env.CODEX_REPLAY_CONTROLLER_SOCKET_FD),
      codexPricingFile: pricingFile(env.CODEX_REPLAY_PRICING, home),
      checkTimeLimitSeconds: yield* parseCheckTimeLimit(env.CODEX_REPLAY_CHECK_TIME_LIMIT_SECONDS)
    }
  })
