import { it } from "@effect/vitest"
import { Effect } from "effect"
import { describe, expect } from "vitest"
import { CodexWorker } from "../../../src/services/CodexWorker.js"
import { fakeCodexLayer, implementationRequest } from "../../worker/support.js"

/** What a daemon's environment holds besides the user's: our variables, and secrets of the user's. */
const OURS = {
  CODEX_REPLAY_CONTROLLER_PORT: "4173",
  CODEX_REPLAY_CONTROLLER_SESSION_ID: "session-7f3a",
  CODEX_REPLAY_RUN_ROOT: "/home/u/.cache/codex-replay/runs",
  CODEX_REPLAY_RUN_TAG: "run-ours",
  CLAUDE_CONFIG_DIR: "/home/u/.claude",
  GITHUB_TOKEN: "ghp_0123456789abcdef",
  SSH_AUTH_SOCK: "/run/user/1000/ssh-agent.sock"
}

/**
 * Whether `text` holds `value` as a whole token (not inside a longer run of letters and digits): the
 * port "4173" must not count when Codex's own CODEX_THREAD_ID, a UUIDv7 whose hex spells the clock,
 * happens to read "01a24173-…" (it did, for 65 s, in a CI run).
 */
const mentions = (text: string, value: string) => {
  const edge = (char: string) => (/[0-9A-Za-z]/.test(char) ? "[^0-9A-Za-z]" : "")
  const before = edge(value[0] ?? "")
  const after = edge(value.at(-1) ?? "")
  const escaped = value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
  return new RegExp(`${before === "" ? "" : `(^|${before})`}${escaped}${after === "" ? "" : `(${after}|$)`}`, "m").test(text)
}

const printedEnvironment = (text: string) =>
  Object.fromEntries(text.split("\n").filter((line) => line.includes("=")).map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]))

describe("the environment an agent's shell commands get", () => {
  for (const purpose of ["implementation", "evaluation"] as const) {
    it.live(`${purpose}: an allow-list built for it, with nothing of the controller, the run, Claude's history, no key, token or socket`, () =>
      Effect.gen(function*() {
        const worker = yield* CodexWorker
        const request = { ...implementationRequest({ purpose }), prompt: "Print your environment.\nfake-scenario: print_env" }
        const result = yield* worker.run(request)
        const printed = printedEnvironment(result.final_response)
        expect(printed.PATH).toBe(process.env.PATH)
        expect(printed.HOME).toBe(process.env.HOME)
        for (const name of Object.keys(printed)) {
          expect(name.startsWith("CODEX_REPLAY_") || name === "CLAUDE_CONFIG_DIR" || name.startsWith("FAKE_CODEX_")).toBe(false)
        }
        for (const value of Object.values(OURS)) expect(mentions(result.final_response, value), value).toBe(false)
        expect(printed.CODEX_API_KEY).toBeUndefined()
        if (purpose === "implementation") expect(printed.TMPDIR).toMatch(/\/tmp-[A-Za-z0-9]{6}$/)
        else expect(printed.TMPDIR).toBeUndefined()
      }).pipe(Effect.provide(fakeCodexLayer(OURS, { apiKey: "sk-test-key" }))))
  }
})
