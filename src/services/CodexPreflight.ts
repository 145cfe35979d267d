import { Duration, Effect } from "effect"
import { codexProcessEnvironment } from "../domain/agentSandbox.js"
import type { Preflight } from "../domain/contracts/preflight.js"
import { INSTALL_CODEX, locateCodex } from "./platform/codexCli.js"
import { NodeLinkSafeFilesLive } from "./platform/nodeFiles.js"
import { ProcessRunner } from "./ProcessRunner.js"
import { Settings } from "./Settings.js"

/** How long `codex login status` may take before Codex counts as not running. */
export const LOGIN_STATUS_TIMEOUT = Duration.seconds(10)

const LOGIN = "run `codex login` (or set CODEX_API_KEY), then try again"

/** What `codex login status` said: its "Logged in…" or "Not logged in" line, else its last line (Codex may warn first). */
const statusLine = (lines: ReadonlyArray<string>) => {
  const meaningful = lines.map((line) => line.trim()).filter((line) => line !== "")
  return (meaningful.find((line) => /^(not )?logged in/i.test(line)) ?? meaningful.at(-1) ?? "").slice(0, 200)
}

/**
 * Before a replay or a batch is approved: the Codex CLI the worker would run (the same lookup) answers
 * `codex login status` in the environment the worker gives it, within a short time. A key in
 * `CODEX_API_KEY` counts as logged in (the worker hands it to Codex).
 */
export class CodexPreflight extends Effect.Service<CodexPreflight>()("codex-replay/CodexPreflight", {
  effect: Effect.gen(function*() {
    const settings = yield* Settings
    const runner = yield* ProcessRunner

    const check: () => Effect.Effect<Preflight> = Effect.fn("CodexPreflight.check")(function*() {
      const environment = codexProcessEnvironment(runner.environment)
      const located = yield* Effect.provide(locateCodex(settings.codexCliPath, environment), NodeLinkSafeFilesLive)
      if (!located.found) {
        return {
          status: "codex_missing",
          ready: false,
          codex_path: null,
          codex_source: null,
          login: null,
          message: `${located.message.replace(/\.$/, "")}: ${INSTALL_CODEX}, then run \`codex login\`.`
        } satisfies Preflight
      }
      const found = { codex_path: located.path, codex_source: located.source }
      const lines: Array<string> = []
      const outcome = yield* runner.run({
        command: located.path,
        args: ["login", "status"],
        env: environment,
        onLine: (_stream, line) => Effect.sync(() => void lines.push(line))
      }).pipe(Effect.timeout(LOGIN_STATUS_TIMEOUT), Effect.either)
      const said = statusLine(lines)
      if (outcome._tag === "Left") {
        const why = outcome.left._tag === "TimeoutException"
          ? `did not answer \`codex login status\` within ${Duration.format(LOGIN_STATUS_TIMEOUT)}`
          : `could not be started (${outcome.left.message.replace(/\.$/, "")})`
        return { status: "codex_missing", ready: false, ...found, login: null, message: `The Codex CLI ${located.path} ${why}: ${INSTALL_CODEX}.` } satisfies Preflight
      }
      if (outcome.right.exitCode === 0 || (environment.CODEX_API_KEY ?? "") !== "") {
        return { status: "ready", ready: true, ...found, login: said === "" ? null : said, message: null } satisfies Preflight
      }
      if (/^not logged in/i.test(said)) {
        return { status: "not_logged_in", ready: false, ...found, login: said, message: `Codex is not logged in: ${LOGIN}.` } satisfies Preflight
      }
      return {
        status: "codex_missing",
        ready: false,
        ...found,
        login: said === "" ? null : said,
        message: `The Codex CLI ${located.path} failed \`codex login status\` (exit code ${outcome.right.exitCode ?? "none"}${said === "" ? "" : `: ${said}`}): ${INSTALL_CODEX}, then run \`codex login\`.`
      } satisfies Preflight
    })

    return { check } as const
  })
}) {}
