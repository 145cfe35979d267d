import { ConfigProvider, Effect, Layer } from "effect"
import { homedir } from "node:os"
import type { Environment } from "./domain/settings.js"
import { CoreLive, EngineLive } from "./layers.js"
import { FileStore } from "./services/FileStore.js"
import { Settings, settingsFromConfig } from "./services/Settings.js"

/** What an embedding program usually sets itself instead of the environment (README.md#configuration names). */
export interface SettingsOverrides {
  /** `CODEX_REPLAY_RUN_ROOT`: run directories; its parent holds `controllers/`. */
  readonly runRoot?: string
  /** `CLAUDE_CONFIG_DIR`: where imported threads are read (`<dir>/projects`). */
  readonly claudeConfigDir?: string
  /** `CODEX_CLI_PATH`: the Codex executable the worker drives. */
  readonly codexCliPath?: string
  /** `CODEX_REPLAY_CONTROLLER_SESSION_ID`: the owner recorded in the runs (32 lowercase hex). */
  readonly controllerSessionId?: string
}

/**
 * `Settings` from an environment (default `process.env`) with overrides applied first, validated like
 * the daemon's; an invalid value fails the layer with a `ControllerError`.
 */
export const settingsLayer = (overrides: SettingsOverrides = {}, env: Environment = process.env, home = homedir()) =>
  Layer.effect(Settings, settingsFromConfig(home)).pipe(
    // The settings are read through `Config`; the embedding's provider is the environment with the overrides on top.
    Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries({
      ...env,
      ...(overrides.runRoot === undefined ? {} : { CODEX_REPLAY_RUN_ROOT: overrides.runRoot }),
      ...(overrides.claudeConfigDir === undefined ? {} : { CLAUDE_CONFIG_DIR: overrides.claudeConfigDir }),
      ...(overrides.codexCliPath === undefined ? {} : { CODEX_CLI_PATH: overrides.codexCliPath }),
      ...(overrides.controllerSessionId === undefined ? {} : { CODEX_REPLAY_CONTROLLER_SESSION_ID: overrides.controllerSessionId })
    }).flatMap(([name, value]) => (value === undefined ? [] : [[name, value] as const]))))))
  )

/**
 * Everything `prepareRun → startRun → awaitRun` needs (discovery, the Codex worker, the run pipeline
 * and the core services) over the given settings, e.g. `replayLayer(settingsLayer({ runRoot }))` or
 * `replayLayer(Settings.layer(resolved))`. Each service exists once in it.
 */
export const replayLayer = <E, R>(settings: Layer.Layer<Settings, E, R>) =>
  Layer.provideMerge(
    // Like the daemon at its start: the run root exists (0700) before any run is created in it.
    Layer.effectDiscard(Effect.gen(function*() {
      const files = yield* FileStore
      yield* files.ensurePrivateDirectory((yield* Settings).runRoot)
    })),
    EngineLive.pipe(Layer.provideMerge(CoreLive), Layer.provideMerge(settings))
  )
