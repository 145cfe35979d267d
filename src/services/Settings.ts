import { Context, Effect, Either, Layer } from "effect"
import { randomBytes } from "node:crypto"
import { homedir } from "node:os"
import type { ControllerError } from "../domain/errors.js"
import { type Environment, type ResolvedSettings, resolveSettings } from "../domain/settings.js"

const randomSessionId = () => randomBytes(16).toString("hex")

/** SPEC §2 settings of an environment; the first invalid value fails with its `ControllerError`. */
export const settingsOf = (env: Environment, home = homedir()): Effect.Effect<ResolvedSettings, ControllerError> =>
  Effect.suspend(() => Either.match(resolveSettings(env, home, randomSessionId), { onLeft: Effect.fail, onRight: Effect.succeed }))

/** Paths and limits resolved once from the environment (SPEC §2). */
export class Settings extends Context.Tag("codex-replay/Settings")<Settings, ResolvedSettings>() {
  /** Reads `process.env`; an invalid value fails the layer with a `ControllerError`. */
  static readonly fromEnv = Layer.effect(Settings, settingsOf(process.env))

  static readonly layer = (settings: ResolvedSettings) => Layer.succeed(Settings, settings)
}
