import { HttpApp } from "@effect/platform"
import { Effect, Layer } from "effect"
import { BUILT_IN_MODELS } from "../../src/domain/history/models.js"
import { notFound } from "../../src/domain/errors.js"
import { makeControllerApp } from "../../src/http/controllerApp.js"
import { controllerTools } from "../../src/programs/registry.js"
import { makeRpcHttpApp } from "../../src/rpc/http.js"
import { Baseline } from "../../src/services/Baseline.js"
import { Batches } from "../../src/services/Batches.js"
import { BlindBallots } from "../../src/services/BlindBallots.js"
import { ClaudeHistory } from "../../src/services/history/ClaudeHistory.js"
import { CodexModels } from "../../src/services/CodexModels.js"
import { CodexPreflight } from "../../src/services/CodexPreflight.js"
import { ControllerRuntime } from "../../src/services/ControllerRuntime.js"
import { Git } from "../../src/services/Git.js"
import { PrepareTokens } from "../../src/services/PrepareTokens.js"
import { Samples } from "../../src/services/Samples.js"
import { makeEngine } from "../engine/support.js"
import { makeTestLayer, type MemoryFiles } from "../support/testLayers.js"

/** The in-process controller's identity: what a request must present. */
export const PORT = 48123
export const ORIGIN = `http://127.0.0.1:${PORT}`
export const CONTROL_TOKEN = "c".repeat(48)
export const API_TOKEN = "a".repeat(48)
export const SESSION_ID = "0123456789abcdef0123456789abcdef"

/** A web request to the in-process controller, with the Host a browser or the CLI would send. */
export const webRequest = (target: string, init: RequestInit & { readonly headers?: Record<string, string> } = {}) =>
  new Request(new URL(target, ORIGIN), { ...init, headers: { Host: `127.0.0.1:${PORT}`, ...init.headers } })

export interface InProcessController {
  /** The daemon's HTTP app as a web handler: no socket, no process. */
  readonly handle: (request: Request) => Promise<Response>
  readonly files: MemoryFiles
}

/**
 * The daemon's HTTP app (`makeControllerApp` with `/api/rpc`) over the run engine in memory (files, no
 * git, no processes, a fake Codex) and fakes of what the tools under test do not reach: a fake touched
 * where a test did not expect it fails with the service and member named.
 */
export const inProcessController = Effect.gen(function*() {
  const engine = yield* makeEngine(() => Effect.never)
  const fakes = Layer.mergeAll(
    makeTestLayer(CodexModels)({ list: () => Effect.succeed({ options: BUILT_IN_MODELS, source: "built_in" as const }) }),
    makeTestLayer(Batches)({ latestRecord: Effect.succeedNone }),
    makeTestLayer(ClaudeHistory)({}),
    makeTestLayer(Samples)({}),
    makeTestLayer(Baseline)({}),
    makeTestLayer(Git)({}),
    makeTestLayer(PrepareTokens)({}),
    makeTestLayer(BlindBallots)({}),
    makeTestLayer(CodexPreflight)({}),
    ControllerRuntime.test({ sessionId: SESSION_ID, port: PORT, token: CONTROL_TOKEN, apiToken: API_TOKEN })
  )
  const app = yield* Effect.gen(function*() {
    const rpc = yield* makeRpcHttpApp(controllerTools)
    return yield* makeControllerApp({
      tools: controllerTools,
      assets: new Map(),
      download: () => Effect.fail(notFound("The replay report is not ready.")),
      activeRuns: Effect.succeed(0),
      busy: Effect.succeed(false),
      requestShutdown: Effect.void,
      rpc
    })
  }).pipe(Effect.provide(Layer.merge(engine.layer, fakes)))
  const handle = HttpApp.toWebHandler(app)
  return { handle, files: engine.files } satisfies InProcessController
})
