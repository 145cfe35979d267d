import { Context, Effect, Either, Layer } from "effect"
import { randomBytes } from "node:crypto"
import { homedir } from "node:os"
import { type ResolvedSettings, resolveSettings } from "../domain/settings.js"

/** Paths and limits resolved once from the environment (SPEC §2). */
export class Settings extends Context.Tag("codex-replay/Settings")<Settings, ResolvedSettings>() {
  /** Reads `process.env`; an invalid value fails the layer with a `ControllerError`. */
  static readonly fromEnv = Layer.effect(
    Settings,
    Effect.suspend(() =>
      Either.match(resolveSettings(process.env, homedir(), () => randomBytes(16).toString("hex")), {
        onLeft: Effect.fail,
        onRight: Effect.succeed
      })
    )
  )

  static readonly layer = (settings: ResolvedSettings) => Layer.succeed(Settings, settings)
}
