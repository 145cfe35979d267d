import { ConfigProvider, Context, Effect, Either, Layer } from "effect"
import { randomBytes } from "node:crypto"
import { homedir } from "node:os"
import { CODEX_PRICING_VARIABLE, type CodexPriceTable, parseCodexPricing } from "../domain/codexPricing.js"
import { type ControllerError, invalidArgument } from "../domain/errors.js"
import { homeDirectoryOf, ProcessEnvironment } from "./platform/environment.js"
import { readFileAtBoundary } from "./platform/nodeFiles.js"
import { type Environment, type ResolvedSettings, resolveSettings, settingVariables } from "../domain/settings.js"

const randomSessionId = () => randomBytes(16).toString("hex")

/** The prices of the `CODEX_REPLAY_PRICING` file, read and validated once at start; none without the variable. */
const loadCodexPricing = (file: string | undefined): Effect.Effect<CodexPriceTable, ControllerError> =>
  file === undefined ? Effect.succeed({}) : Effect.try({
    try: () => readFileAtBoundary(file).toString("utf8"),
    catch: (error) =>
      invalidArgument(
        `${CODEX_PRICING_VARIABLE} names ${file}, which cannot be read (${(error as NodeJS.ErrnoException).code ?? "unreadable"}).`
      )
  }).pipe(Effect.flatMap((text) => Either.match(parseCodexPricing(text, file), { onLeft: Effect.fail, onRight: Effect.succeed })))

/** README.md#configuration settings of an environment; the first invalid value fails with its `ControllerError`. */
const resolveFrom = (env: Environment, home: string): Effect.Effect<ResolvedSettings, ControllerError> =>
  Effect.suspend(() => Either.match(resolveSettings(env, home, randomSessionId), { onLeft: Effect.fail, onRight: Effect.succeed })).pipe(
    Effect.flatMap((settings) =>
      Effect.map(loadCodexPricing(settings.codexPricingFile), (codexPriceOverrides) => ({ ...settings, codexPriceOverrides })))
  )

/** The settings of the current `ConfigProvider`'s variables (the environment unless one is provided). */
export const settingsFromConfig = (home?: string): Effect.Effect<ResolvedSettings, ControllerError> =>
  Effect.flatMap(settingVariables, (env) =>
    // Without a home given, the one the process environment names (`HOME`, as `os.homedir()` reads it).
    home === undefined ? Effect.flatMap(ProcessEnvironment, (environment) => resolveFrom(env, homeDirectoryOf(environment))) : resolveFrom(env, home))

/** A `ConfigProvider` of the variables an edge was given (the command line's, an embedding's), not of `process.env`. */
export const configProviderOf = (env: Environment) =>
  ConfigProvider.fromMap(new Map(Object.entries(env).flatMap(([name, value]) => (value === undefined ? [] : [[name, value] as const]))))

/** `settingsFromConfig` under a `ConfigProvider` of `env`: the settings an edge's variables describe. */
export const settingsOf = (env: Environment, home = homedir()): Effect.Effect<ResolvedSettings, ControllerError> =>
  settingsFromConfig(home).pipe(Effect.withConfigProvider(configProviderOf(env)))

/** Paths and limits resolved once from the configuration (README.md#configuration). */
export class Settings extends Context.Tag("codex-replay/Settings")<Settings, ResolvedSettings>() {
  /**
   * Reads the variables through `Config` from the current `ConfigProvider` (`ConfigProvider.fromEnv` unless a
   * layer sets another); an invalid value fails the layer with a `ControllerError`.
   */
  static readonly fromConfig = Layer.effect(Settings, settingsFromConfig())

  /** The daemon's and the command line's settings: `fromConfig` over the process's environment. */
  static readonly fromEnv = Settings.fromConfig

  static readonly layer = (settings: ResolvedSettings) => Layer.succeed(Settings, settings)
}
