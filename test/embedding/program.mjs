// A consumer of the built package: imports `codex-replay` by its name (the package's `exports`),
// runs prepare → start → await with its own layers, and prints what it saw as JSON.
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as lib from "codex-replay"

const [runRoot, claudeConfigDir, codexCliPath, home, mode] = process.argv.slice(2)
const controllerSessionId = mode === "--bad-session" ? "not-a-session" : undefined

const configuration = {
  thread_id: "sample-hello-cli",
  request: "Create greet.py that prints a greeting.",
  beginning_kind: "non_git",
  ending_kind: "non_git",
  confirm_empty_beginning: true,
  models: ["gpt-5.6-terra"]
}

const program = Effect.gen(function*() {
  const settings = yield* lib.Settings
  const samples = yield* lib.listThreads({ source: "sample" })
  const prepared = yield* lib.prepareRun(configuration)
  const started = yield* lib.startRun({ ...configuration, approved: true, prepare_token: prepared.prepare_token })
  const final = yield* lib.awaitRun(started.run_id, { pollInterval: "100 millis" })
  const invalid = yield* Effect.flip(lib.prepareRun({ ...configuration, models: [] }))
  return {
    run_root: settings.runRoot,
    samples: samples.threads.map((thread) => thread.imported_thread_id),
    ready: prepared.ready,
    run_id: started.run_id,
    status: final.status,
    report_exists: fs.existsSync(path.join(settings.runRoot, started.run_id, "report.html")),
    invalid: { tag: invalid._tag, message: invalid.message, is_controller_error: lib.isControllerError(invalid) }
  }
})

const layer = lib.replayLayer(lib.settingsLayer({ runRoot, claudeConfigDir, codexCliPath, ...(controllerSessionId ? { controllerSessionId } : {}) }, {}, home))
const exit = await Effect.runPromiseExit(Effect.provide(program, layer))
if (exit._tag === "Failure") {
  const failure = exit.cause._tag === "Fail" ? exit.cause.error : undefined
  process.stderr.write(`${failure?._tag ?? "Defect"}: ${failure?.message ?? String(exit.cause)}\n`)
  process.exit(1)
}
const result = exit.value
process.stdout.write(`${JSON.stringify({
  ...result,
  exports: ["CoreLive", "EngineLive", "DaemonLive", "prepareRun", "startRun", "awaitRun", "cancelRun", "makeControllerRpcs", "ToolResultSchema", "RunId", "isControllerError", "FAILURE_STATUS"]
    .filter((name) => lib[name] === undefined)
})}\n`)
