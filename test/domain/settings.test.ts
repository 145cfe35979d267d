import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { resolveSettings } from "../../src/domain/settings.js"

const resolve = (env: Record<string, string>) => resolveSettings(env, "/home/dev", () => "f".repeat(32))
const message = (env: Record<string, string>) => Either.match(resolve(env), { onLeft: (error) => error.message, onRight: () => "ok" })

describe("settings from the environment", () => {
  it("uses the documented defaults", () => {
    const settings = Either.getOrThrow(resolve({}))
    expect(settings).toMatchObject({
      runRoot: "/home/dev/.cache/codex-replay/runs",
      cacheRoot: "/home/dev/.cache/codex-replay",
      controllersRoot: "/home/dev/.cache/codex-replay/controllers",
      preferredPort: 43118,
      idleTimeoutMillis: 3_600_000,
      controllerSessionId: "f".repeat(32),
      claudeConfigDir: "/home/dev/.claude",
      codexCliPath: undefined,
      reviewerModel: undefined,
      inheritedSocketFd: undefined
    })
  })

  it("reads every variable, expanding ~ and resolving relative paths", () => {
    const settings = Either.getOrThrow(resolve({
      CODEX_REPLAY_RUN_ROOT: "~/replays/runs",
      CODEX_REPLAY_CONTROLLER_PORT: "50000",
      CODEX_REPLAY_CONTROLLER_IDLE_TIMEOUT_SECONDS: "0.5",
      CODEX_REPLAY_CONTROLLER_SESSION_ID: "0123456789abcdef0123456789abcdef",
      CODEX_CLI_PATH: "/opt/codex",
      CLAUDE_CONFIG_DIR: "/data/claude",
      CODEX_REPLAY_CONTROLLER_SOCKET_FD: "3",
      CODEX_REPLAY_REVIEWER_MODEL: " gpt-6.1-sol "
    }))
    expect(settings).toMatchObject({
      runRoot: "/home/dev/replays/runs",
      controllersRoot: "/home/dev/replays/controllers",
      preferredPort: 50000,
      idleTimeoutMillis: 500,
      controllerSessionId: "0123456789abcdef0123456789abcdef",
      codexCliPath: "/opt/codex",
      claudeConfigDir: "/data/claude",
      reviewerModel: "gpt-6.1-sol",
      inheritedSocketFd: 3
    })
  })

  it.each([
    [{ CODEX_REPLAY_CONTROLLER_PORT: "http" }, "CODEX_REPLAY_CONTROLLER_PORT must be an integer."],
    [{ CODEX_REPLAY_CONTROLLER_PORT: "1e4" }, "CODEX_REPLAY_CONTROLLER_PORT must be an integer."],
    [{ CODEX_REPLAY_CONTROLLER_PORT: "1023" }, "CODEX_REPLAY_CONTROLLER_PORT must be from 1024 through 65535."],
    [{ CODEX_REPLAY_CONTROLLER_PORT: "65536" }, "CODEX_REPLAY_CONTROLLER_PORT must be from 1024 through 65535."],
    [{ CODEX_REPLAY_CONTROLLER_IDLE_TIMEOUT_SECONDS: "NaN" }, "CODEX_REPLAY_CONTROLLER_IDLE_TIMEOUT_SECONDS must be a positive number."],
    [{ CODEX_REPLAY_CONTROLLER_IDLE_TIMEOUT_SECONDS: "1e400" }, "CODEX_REPLAY_CONTROLLER_IDLE_TIMEOUT_SECONDS must be a positive number."],
    [{ CODEX_REPLAY_CONTROLLER_SESSION_ID: "abc" }, "CODEX_REPLAY_CONTROLLER_SESSION_ID must be 32 lowercase hexadecimal characters."],
    [{ CODEX_REPLAY_CONTROLLER_SOCKET_FD: "three" }, "CODEX_REPLAY_CONTROLLER_SOCKET_FD must be a file descriptor number."],
    [{ CODEX_REPLAY_REVIEWER_MODEL: "gpt 5.5" }, "CODEX_REPLAY_REVIEWER_MODEL must be a Codex model id such as gpt-5.5."],
    [{ CODEX_REPLAY_REVIEWER_MODEL: "../gpt" }, "CODEX_REPLAY_REVIEWER_MODEL must be a Codex model id such as gpt-5.5."]
  ])("refuses %j", (env, expected) => {
    expect(message(env)).toBe(expected)
  })

  it("treats empty values as unset", () => {
    expect(Either.getOrThrow(resolve({ CODEX_REPLAY_CONTROLLER_PORT: "", CODEX_CLI_PATH: " " })).preferredPort).toBe(43118)
  })
})
