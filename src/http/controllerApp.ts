import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import * as NodeStream from "@effect/platform-node/NodeStream"
import { readStreamNoFollow } from "../services/FileStore.js"
import { Cause, type Context, Deferred, Effect } from "effect"
import {
  type ControllerError,
  controllerError,
  failureStatus,
  INTERNAL_ERROR_MESSAGE,
  isInternalFailure,
  publicFailure,
  type StorageError,
  type ToolFailure
} from "../domain/errors.js"
import { CONTROL_HEADER, HEARTBEAT_INTERVAL_SECONDS, SERVER_NAME, CONTROLLER_PROTOCOL_VERSION, VERSION } from "../domain/product.js"
import { type ControllerTool, callTool } from "../programs/controllerTools.js"
import { Activity } from "../services/Activity.js"
import { ControllerRuntime } from "../services/ControllerRuntime.js"
import { readRequestBody, type RequestBody } from "./requestBody.js"
import { bytesResponse, errorResponse, jsonResponse, textResponse, toolAnswerResponse, withSecurityHeaders } from "./responses.js"
import type { StaticAsset } from "./staticAssets.js"
import type { RpcHttpApp } from "../rpc/http.js"

/** Answers a download: the file at `path` as an attachment (the caller has checked containment). */
export interface Download {
  readonly path: string
  readonly contentType: string
  readonly fileName: string
}

export interface ControllerAppOptions<RT, RD> {
  readonly tools: Record<string, ControllerTool<RT>>
  readonly assets: ReadonlyMap<string, StaticAsset>
  readonly download: (runId: unknown, format: unknown) => Effect.Effect<Download, ControllerError | StorageError, RD>
  readonly activeRuns: Effect.Effect<number>
  /** Whether a run or a worker process is still busy; `/api/shutdown` answers 409 while it is. */
  readonly busy: Effect.Effect<boolean>
  readonly shutdown: Deferred.Deferred<void>
  /** `POST /api/rpc` for clients that present the control token (src/rpc/http.ts). */
  readonly rpc?: RpcHttpApp
}

class BadRequest {
  constructor(readonly status: number, readonly message: string) {}
}

const badRequest = (message: string) => Effect.fail(new BadRequest(400, message))

/** The body must be one JSON object of at most 1 MiB. */
const jsonObjectOf = (body: RequestBody): Effect.Effect<Record<string, unknown>, BadRequest> => {
  if (body === "too_large") return badRequest("The controller request body is too large.")
  if (body === "unreadable") return badRequest("The controller request body could not be read.")
  let value: unknown
  try {
    value = JSON.parse(body.toString("utf8"))
  } catch {
    return badRequest("The controller request must contain JSON.")
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return badRequest("The controller request must be an object.")
  }
  return Effect.succeed(value as Record<string, unknown>)
}

/**
 * Bad requests and user errors answer their kind's status with their message; the disk refusing is not
 * the user's doing: logged, and answered with the generic sentence.
 */
const answerFailure = (error: BadRequest | ToolFailure) => {
  if (error instanceof BadRequest) return Effect.succeed(errorResponse(error.status, error.message))
  const answer = Effect.succeed(errorResponse(failureStatus(error), publicFailure(error).message))
  return isInternalFailure(error) ? Effect.zipRight(Effect.logError(`Controller request failed: ${error.message}`), answer) : answer
}

const BUSY_MESSAGE = "A replay is still running in this controller. Cancel it or wait for it to finish, then stop the controller."

/** The page's "Stop controller": refused while a run is active, like `/api/shutdown`, else a clean exit. */
const stopFromPage = <RT, RD>(options: ControllerAppOptions<RT, RD>) =>
  Effect.gen(function*() {
    if (yield* options.busy) {
      return jsonResponse(409, { active_run: true, isError: true, content: [{ type: "text", text: BUSY_MESSAGE }] })
    }
    yield* Deferred.succeed(options.shutdown, undefined)
    return jsonResponse(200, { stopping: true })
  })

/**
 * A call that was not itself interrupted can still meet an interruption (work it waited for was given up
 * by another client): a 503 with the usual headers rather than the platform's bare one.
 */
const answerInterruption = (cause: Cause.Cause<never>) =>
  Cause.isInterruptedOnly(cause)
    ? Effect.succeed(errorResponse(503, "The local controller was interrupted while answering. Try again."))
    : Effect.failCause(cause)

/**
 * The request target's path and query, taken literally: no dot-segment or percent normalisation, so
 * only exact paths match (and parsing a whole URL per request is a measurable share of `/health`).
 */
const requestTarget = (target: string) => {
  const query = target.indexOf("?")
  return query === -1
    ? { pathname: target, query: "" }
    : { pathname: target.slice(0, query), query: target.slice(query + 1) }
}

/** Runs `effect` in exactly these services (replacing the request's context, which it does not need). */
const inServices = <A, E, R>(effect: Effect.Effect<A, E, R>, services: Context.Context<R>) =>
  Effect.mapInputContext(effect, (_: Context.Context<never>) => services)

const isJsonContentType = (value: string | undefined) =>
  value !== undefined && value.split(";")[0]?.trim().toLowerCase() === "application/json"

/**
 * The daemon's HTTP surface (SPEC §5): the Host check for every request, same-origin, JSON and size
 * rules for the browser endpoints, the control token for shutdown, and security headers everywhere.
 *
 * The services are taken once, here: the app itself needs only what the server gives each request,
 * so the server can run it in a small context (it copies that context for every request).
 */
export const makeControllerApp = <RT, RD>(options: ControllerAppOptions<RT, RD>) =>
  Effect.gen(function*() {
    const runtime = yield* ControllerRuntime
    const activity = yield* Activity
    // No tool or download needs a Scope (`runDaemon`'s signature refuses one): it would get the daemon's.
    const services = yield* Effect.context<RT | RD>()
    return serveRequests(options, runtime, activity, services)
  })

const serveRequests = <RT, RD>(
  options: ControllerAppOptions<RT, RD>,
  runtime: ControllerRuntime,
  activity: Activity,
  services: Context.Context<RT | RD>
) => {
  /** Without a challenge the answer changes only with the active-run count: one response per count. */
  let unchallenged: { readonly activeRuns: number; readonly response: HttpServerResponse.HttpServerResponse } | undefined
  const health = (activeRuns: number, challenge: string) => {
    if (challenge === "" && unchallenged?.activeRuns === activeRuns) return unchallenged.response
    const response = jsonResponse(200, {
      server: SERVER_NAME,
      protocol_version: CONTROLLER_PROTOCOL_VERSION,
      version: VERSION,
      pid: process.pid,
      controller_session_id: runtime.sessionId,
      active_runs: activeRuns,
      proof: runtime.proof(challenge)
    })
    if (challenge === "") unchallenged = { activeRuns, response }
    return response
  }

  return Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    if (request.headers.host !== runtime.expectedHost) return textResponse(421, "Invalid host.")
    const url = requestTarget(request.url)

    if (request.method === "GET" || request.method === "HEAD") {
      if (url.pathname === "/health") {
        const challenge = url.query === "" ? "" : new URLSearchParams(url.query).get("challenge") ?? ""
        return health(yield* options.activeRuns, challenge)
      }
      const asset = options.assets.get(url.pathname)
      if (asset === undefined) return textResponse(404, "Not found.")
      return bytesResponse(asset.body, asset.contentType)
    }
    if (request.method !== "POST") return textResponse(405, "Method not allowed.")

    if (url.pathname === "/api/shutdown") {
      if (!runtime.isControlToken(request.headers[CONTROL_HEADER.toLowerCase()] ?? "")) {
        return jsonResponse(401, { error: "Unauthorized." })
      }
      if (yield* options.busy) return jsonResponse(409, { active_run: true, error: "A replay is still running." })
      yield* Deferred.succeed(options.shutdown, undefined)
      return jsonResponse(200, { stopping: true })
    }
    if (url.pathname === "/api/rpc" && options.rpc !== undefined) {
      if (!runtime.isControlToken(request.headers[CONTROL_HEADER.toLowerCase()] ?? "")) {
        return jsonResponse(401, { error: "Unauthorized." })
      }
      return withSecurityHeaders(yield* options.rpc)
    }
    if (!["/api/call", "/api/download", "/api/heartbeat", "/api/stop"].includes(url.pathname)) {
      return jsonResponse(404, { error: "Not found." })
    }
    if (request.headers.origin !== runtime.origin) return errorResponse(403, "Invalid origin.")
    if (!isJsonContentType(request.headers["content-type"])) return errorResponse(415, "Expected application/json.")

    // Read here, in the app's one generator, not in the per-request one below: a fiber that waits
    // inside a generator function made per request keeps that request's objects alive through young
    // collections, which under load made every scavenge two to three times longer.
    const received = yield* readRequestBody(request)
    return yield* Effect.gen(function*() {
      const body = yield* jsonObjectOf(received)
      if (url.pathname === "/api/heartbeat") {
        yield* activity.touch
        return jsonResponse(200, {
          ok: true,
          controller_session_id: runtime.sessionId,
          heartbeat_interval_seconds: HEARTBEAT_INTERVAL_SECONDS
        })
      }
      if (url.pathname === "/api/stop") return yield* stopFromPage(options)
      if (url.pathname === "/api/download") {
        const download = yield* inServices(options.download(body.run_id, body.format), services)
        return withSecurityHeaders(HttpServerResponse.stream(
          NodeStream.fromReadable(
            () => readStreamNoFollow(download.path),
            () => controllerError("The replay report is not ready.")
          ),
          {
            contentType: download.contentType,
            headers: { "Content-Disposition": `attachment; filename="${download.fileName}"` }
          }
        ))
      }
      if (typeof body.name !== "string") return yield* controllerError("name is required.")
      if (body.arguments !== undefined && (typeof body.arguments !== "object" || body.arguments === null || Array.isArray(body.arguments))) {
        return yield* controllerError("Controller action arguments must be an object.")
      }
      // The HTTP server runs handlers uninterruptibly; tools fork fibers and use timeouts, which need
      // the ordinary interruptible region to work.
      const called = inServices(callTool(options.tools, body.name, body.arguments ?? {}), services)
      return toolAnswerResponse(yield* Effect.interruptible(called))
    }).pipe(Effect.catchAll(answerFailure), Effect.catchAllCause(answerInterruption))
  }).pipe(
    Effect.catchAllDefect((defect) =>
      // As a Cause, so the log shows the error's message and stack (an Error object alone logs as `{}`).
      Effect.logError("Controller request failed", Cause.die(defect)).pipe(
        Effect.as(errorResponse(500, INTERNAL_ERROR_MESSAGE))
      )
    )
  )
}
