import { Effect, Either, Layer, Option } from "effect"
import { conflict, invalidArgument, notFound } from "../domain/errors.js"
import { isRunId } from "../domain/ids.js"
import { CoreLive } from "../layers.js"
import { locateReport } from "../programs/reports/reports.js"
import { readVote } from "../programs/votes/votes.js"
import { FileStore } from "../services/FileStore.js"
import { RunStore } from "../services/RunStore.js"
import { Settings } from "../services/Settings.js"
import { runningControllerUrl, runPageAddress } from "./addresses.js"
import { ControllerClient } from "../services/ControllerClient.js"
import { makeOutput, openWithDesktop, orDash } from "./terminal.js"
import { resolveRunId } from "./threadRefs.js"
import { checksLines, noReportSentence, readReportJson, verdictLines, verdictOf } from "./verdict.js"
import { voteLines, voteView } from "./voteLines.js"

export interface ReportOptions {
  readonly runId: string
  readonly open: boolean
  readonly json: boolean
}

const ReportLive = CoreLive.pipe(Layer.provideMerge(Settings.fromEnv))

/**
 * A completed run's state, its verdict and the real paths of its `report.html` and
 * `report.json` (each inside the run directory). A cancelled or failed run says so instead.
 */
export const reportPaths = (runId: string, anyState = false) =>
  Effect.gen(function*() {
    if (!isRunId(runId)) return yield* invalidArgument("The run ID is invalid.")
    const runs = yield* RunStore
    // Without a run root there is no run (resolving inside a missing root would blame containment).
    const missing = notFound(`No run ${runId} in ${runs.runRoot}.`)
    if (!(yield* (yield* FileStore).isDirectory(runs.runRoot))) return yield* missing
    const directory = yield* runs.existingDirectory(runId).pipe(Effect.catchIf(
      (error) => error.message === "The replay run is unavailable.",
      () => Effect.fail(missing)
    ))
    // As the controller serves it: a report exists only for a completed run, whatever files a run
    // that ended another way (killed while reporting, say) left behind.
    const state = Option.getOrUndefined(Option.map(yield* Effect.option(runs.readAny(runId)), (run) => run.state))
    if (state === undefined) return yield* conflict("The replay report is not ready.")
    if (state.status !== "completed") {
      if (!anyState) return yield* conflict(`Run ${runId}: ${noReportSentence(state)}.`)
      // `--json` prints any run's state: one that ended without a report says so in `no_report`.
      return {
        run_id: runId,
        run_directory: directory,
        report_html: null,
        report_json: null,
        status: state.status,
        model: typeof state.model === "string" ? state.model : null,
        thread_id: typeof state.thread_id === "string" ? state.thread_id : null,
        verdict: null,
        vote: null,
        no_report: `Run ${runId}: ${noReportSentence(state)}.`,
        state
      }
    }
    const html = yield* Effect.either(locateReport(directory, "html"))
    const json = yield* Effect.either(locateReport(directory, "json"))
    if (Either.isLeft(html) && Either.isLeft(json)) return yield* html.left
    const reportJson = Either.isRight(json) ? json.right.path : null
    const verdict = verdictOf(state, yield* readReportJson(reportJson))
    // The user's own blind vote, when there is one (a damaged vote.json reads as none).
    const vote = Option.getOrNull(yield* Effect.orElseSucceed(readVote(directory), () => Option.none()))
    return {
      run_id: runId,
      run_directory: directory,
      report_html: Either.isRight(html) ? html.right.path : null,
      report_json: reportJson,
      status: state.status,
      model: typeof state.model === "string" ? state.model : null,
      thread_id: typeof state.thread_id === "string" ? state.thread_id : null,
      verdict,
      vote: voteView(vote, verdict?.winner ?? null, verdict?.caveats ?? [])
    }
  })

/**
 * `codex-replay report <run-id> [--open]`: reads the run root directly, no controller needed. The run is named by
 * its id or any unique start of it; `--json` prints any run's state, a cancelled or failed one too.
 */
export const reportCommand = (options: ReportOptions) =>
  Effect.gen(function*() {
    const out = yield* makeOutput(options.json)
    const found = yield* reportPaths(yield* resolveRunId(options.runId), options.json && !options.open)
    if (options.open) {
      if (found.report_html === null) return yield* conflict("The HTML report is not ready.")
      yield* openWithDesktop(found.report_html)
    }
    const settings = yield* Settings
    const controller = yield* runningControllerUrl(settings.controllersRoot, settings.runRoot)
    const address = controller === null ? null : runPageAddress(controller, found.run_id)
    if (options.json) return yield* out.result({ ...found, address, opened: options.open })
    if (found.verdict !== null) {
      yield* out.say(`Run:     ${found.run_id} (${orDash(found.model)}, thread ${orDash(found.thread_id)})`)
      for (const line of verdictLines(found.verdict)) yield* out.say(line)
      for (const line of voteLines(found.vote)) yield* out.say(line)
    }
    if (found.report_html !== null) yield* out.say(found.report_html)
    if (found.report_json !== null) yield* out.say(found.report_json)
    for (const line of checksLines(found.verdict?.checks)) yield* out.say(line)
    if (address !== null) yield* out.say(`Address: ${address}`)
  }).pipe(Effect.provide(Layer.merge(ReportLive, ControllerClient.Default.pipe(Layer.provide(ReportLive)))))
