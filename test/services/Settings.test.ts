import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import { Settings, settingsFromConfig, settingsOf } from "../../src/services/Settings.js"

const provided = (variables: Record<string, string>) => Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(variables))))

describe("Settings through Config", () => {
  it.effect("reads the variables of the current ConfigProvider", () =>
    Effect.gen(function*() {
      const settings = yield* settingsFromConfig("/home/dev").pipe(provided({
        CODEX_REPLAY_RUN_ROOT: "~/runs",
        CODEX_REPLAY_CONTROLLER_PORT: "4100",
        CODEX_REPLAY_CONTROLLER_SESSION_ID: "a".repeat(32),
        CODEX_REPLAY_REVIEWER_MODEL: "gpt-5.5"
      }))
      expect(settings).toMatchObject({
        runRoot: "/home/dev/runs",
        preferredPort: 4100,
        controllerSessionId: "a".repeat(32),
        reviewerModel: "gpt-5.5",
        claudeConfigDir: "/home/dev/.claude"
      })
    }))

  it.effect("fails an invalid value with the same sentence as before", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(settingsFromConfig("/home/dev").pipe(provided({ CODEX_REPLAY_CONTROLLER_PORT: "80" })))
      expect(error).toMatchObject({ _tag: "InvalidArgument", message: "CODEX_REPLAY_CONTROLLER_PORT must be from 1024 through 65535." })
    }))

  it.effect("the layer reads the provider set for it", () =>
    Effect.gen(function*() {
      expect((yield* Settings).controllerSessionId).toBe("b".repeat(32))
    }).pipe(Effect.provide(Settings.fromConfig.pipe(
      Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map([["CODEX_REPLAY_CONTROLLER_SESSION_ID", "b".repeat(32)]]))))
    ))))

  it.effect("settingsOf reads an edge's variables through Config, whatever provider is current", () =>
    Effect.gen(function*() {
      const settings = yield* settingsOf({ CODEX_REPLAY_CONTROLLER_PORT: "4200", CLAUDE_CONFIG_DIR: undefined }, "/home/dev").pipe(
        provided({ CODEX_REPLAY_CONTROLLER_PORT: "4300" })
      )
      expect(settings).toMatchObject({ preferredPort: 4200, claudeConfigDir: "/home/dev/.claude" })
    }))
})
