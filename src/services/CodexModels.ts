import { Duration, Effect } from "effect"
import { BUILT_IN_MODELS, type ModelOption, parseModelCatalogue } from "../domain/history/models.js"
import { cachedFor } from "./internal/cachedFor.js"
import { locateCodex } from "./platform/codexCli.js"
import { NodeLinkSafeFilesLive } from "./platform/nodeFiles.js"
import { ProcessRunner } from "./ProcessRunner.js"
import { Settings } from "./Settings.js"

export interface ModelList {
  readonly options: ReadonlyArray<ModelOption>
  readonly source: "codex" | "built_in"
  /** Why the built-in list is shown, when it is. */
  readonly diagnostic?: string
}

const LIST_TIMEOUT = Duration.seconds(20)
const CACHE_FOR = Duration.minutes(5)

/** The Codex models a replay can choose from, asked of `codex debug models` (docs/controller.md `models`). */
export class CodexModels extends Effect.Service<CodexModels>()("codex-replay/CodexModels", {
  effect: Effect.gen(function*() {
    const settings = yield* Settings
    const runner = yield* ProcessRunner

    const fallback = (reason: string): ModelList => ({
      options: BUILT_IN_MODELS,
      source: "built_in",
      diagnostic: `${reason} Showing the built-in model list.`
    })

    const ask = Effect.fn("CodexModels.ask")(function*() {
      const located = yield* Effect.provide(locateCodex(settings.codexCliPath, runner.environment), NodeLinkSafeFilesLive)
      if (!located.found) return fallback(located.message)
      const command = located.path
      const stdout: Array<string> = []
      const outcome = yield* runner.run({
        command,
        args: ["debug", "models"],
        onLine: (stream, line) => Effect.sync(() => void (stream === "stdout" && stdout.push(line)))
      }).pipe(Effect.timeout(LIST_TIMEOUT), Effect.either)
      if (outcome._tag === "Left") {
        const error = outcome.left
        return fallback(
          error._tag === "TimeoutException"
            ? `\`${command} debug models\` did not answer within ${Duration.format(LIST_TIMEOUT)}.`
            : `The Codex CLI (${command}) could not be started: ${error.message}`
        )
      }
      if (outcome.right.exitCode !== 0) {
        return fallback(`\`${command} debug models\` exited with code ${outcome.right.exitCode ?? "null"}.`)
      }
      const options = parseModelCatalogue(stdout.join("\n"))
      if (options === undefined || options.length === 0) {
        return fallback(`\`${command} debug models\` printed no model catalogue.`)
      }
      return { options, source: "codex" } satisfies ModelList
    })

    /** Asked once and kept for a while: `get_state` and `inspect_thread` should not spawn Codex each time. */
    const cached = yield* cachedFor(ask(), CACHE_FOR)
    const list = () => cached

    return { list } as const
  })
}) {}
