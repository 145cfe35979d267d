import { HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import * as NodeStream from "@effect/platform-node/NodeStream"
import { IncomingMessage } from "node:http"
import { readStreamNoFollow } from "../services/FileStore.js"
import { Cause, type Context, Effect, Either, ParseResult, Schema } from "effect"
import {
  conflict,
  failureStatus,
  INTERNAL_ERROR_MESSAGE,
  invalidArgument,
  isInternalFailure,
  publicFailure,
  type ToolFailure
} from "../domain/errors.js"
import { CONTROL_HEADER, HEARTBEAT_INTERVAL_SECONDS, SERVER_NAME, CONTROLLER_PROTOCOL_VERSION } from "../domain/product.js"
import { VERSION } from "../services/internal/packageInfo.js"
import { callTool, type ToolRegistry } from "../programs/controller/tool.js"
import { Activity } from "../services/Activity.js"
import { ControllerRuntime } from "../services/ControllerRuntime.js"
import { readRequestBody, type RequestBody, TOO_DEEP_MESSAGE } from "./requestBody.js"
import { bearerOf, cookieRedirect, cookieValues, gatePage, missingToken, queryToken } from "./apiAccess.js"
import { addressWithoutToken, isPageAddress, portfolioOfAddress } from "./pageAddresses.js"
import { bytesResponse, errorResponse, jsonResponse, savedPageHeaders, textResponse, withSecurityHeaders } from "./responses.js"
import type { StaticAsset } from "../services/internal/staticAssets.js"
import type { RpcHttpApp } from "../rpc/http.js"

/** Answers a download: the file at `path` as an attachment (the caller has checked containment). */
export interface Download {
  readonly path: string
  readonly contentType: string
  readonly fileName: string
}

export interface ControllerAppOptions<RT, RD> {
  readonly tools: ToolRegistry<RT>
  readonly assets: ReadonlyMap<string, StaticAsset>
  /** A run's report, or with `portfolioId` a portfolio's page or CSV. */
  readonly download: (runId: unknown, format: unknown, portfolioId?: unknown) => Effect.Effect<Download, ToolFailure, RD>
  readonly activeRuns: Effect.Effect<number>
  /** Whether a run or a worker process is still busy; `/api/shutdown` answers 409 while it is. */
  readonly busy: Effect.Effect<boolean>
  /** Asks the daemon to stop (the `Shutdown` service). */
  readonly requestShutdown: Effect.Effect<void>
  /** `POST /api/rpc` for clients that present the control token (src/rpc/http.ts). */
  readonly rpc?: RpcHttpApp
}

/** A browser request refused before any tool runs: its status and message. */
class BadRequest {
  constructor(readonly status: number, readonly message: string) {}
}

const badRequest = (message: string) => Effect.fail(new BadRequest(400, message))

const JsonObject = Schema.Record({ key: Schema.String, value: Schema.Unknown })
const parseJson = Schema.decodeUnknownEither(Schema.parseJson())
const isJsonObject = Schema.is(JsonObject)

/** `/api/call`: a tool name and its arguments (an object when given). */
const CallBody = Schema.Struct({
  name: Schema.propertySignature(Schema.String.annotations({ message: () => "name is required." })).annotations({
    missingMessage: () => "name is required."
  }),
  arguments: Schema.optional(JsonObject.annotations({ message: () => "Controller action arguments must be an object." }))
})
const decodeCallBody = Schema.decodeUnknownEither(CallBody, { onExcessProperty: "preserve" })

const DownloadBody = Schema.Struct({ run_id: Schema.optional(Schema.Unknown), format: Schema.optional(Schema.Unknown), portfolio_id: Schema.optional(Schema.Unknown) })

/** The body must be one JSON object of at most 1 MiB. */
const jsonObjectOf = (body: RequestBody): Effect.Effect<Record<string, unknown>, BadRequest> => {
  if (body === "too_large") return badRequest("The controller request body is too large.")
  if (body === "unreadable") return badRequest("The controller request body could not be read.")
  if (body === "too_deep") return badRequest(TOO_DEEP_MESSAGE)
  const parsed = parseJson(body.toString("utf8"))
  if (Either.isLeft(parsed)) return badRequest("The controller request must contain JSON.")
  return isJsonObject(parsed.right) && !Array.isArray(parsed.right)
    ? Effect.succeed(parsed.right)
    : badRequest("The controller request must be an object.")
}

/** The first message of a decoding failure: the annotated message of the field that failed. */
const firstMessage = (error: ParseResult.ParseError) => ParseResult.ArrayFormatter.formatErrorSync(error)[0]?.message ?? "The controller request is invalid."

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

/**
 * A call that was not itself interrupted can still meet an interruption (work it waited for was given up
 * by another client): a 503 with the usual headers rather than the platform's bare one.
 */
const answerInterruption = (cause: Cause.Cause<never>) =>
  Cause.isInterruptedOnly(cause)
    ? Effect.succeed(errorResponse(503, "The local controller was interrupted while answering. Try again."))
    : Effect.failCause(cause)

/** Runs `effect` in exactly these services (replacing the request's context, which it does not need). */
const inServices = <A, E, R>(effect: Effect.Effect<A, E, R>, services: Context.Context<R>) =>
  Effect.mapInputContext(effect, (_: Context.Context<never>) => services)

const isJsonContentType = (value: string | undefined) =>
  value !== undefined && value.split(";")[0]?.trim().toLowerCase() === "application/json"

/** How many Host headers arrived (Node keeps the first of several; which one a proxy checked is unknown). */
const hostHeaders = (request: HttpServerRequest.HttpServerRequest) => {
  const raw = request.source instanceof IncomingMessage ? request.source.rawHeaders : []
  let count = 0
  for (let index = 0; index < raw.length; index += 2) if (raw[index]!.toLowerCase() === "host") count++
  return count
}

const ALLOWED_METHODS: ReadonlySet<string> = new Set(["GET", "HEAD", "POST"])

/** The request target's path, taken literally: no dot-segment or percent normalisation, so only exact paths match. */
const pathnameOf = (target: string) => {
  const query = target.indexOf("?")
  return query === -1 ? target : target.slice(0, query)
}

/**
 * The daemon's HTTP surface (docs/controller.md) as a router: the Host check and the method rule for every
 * request, the API token for every API request and the page, same-origin, JSON and size rules for the
 * browser endpoints, the control token as well for the client endpoints, and security headers on every answer.
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

    /** Only a client holding the control token (the CLI, an embedding) reaches these. */
    const withControlToken = <E, R>(handler: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
        runtime.isControlToken(request.headers[CONTROL_HEADER.toLowerCase()] ?? "")
          ? handler
          : Effect.succeed(jsonResponse(401, { error: "Unauthorized." })))

    /** The page's endpoints: same origin, a JSON content type, and a body that is one JSON object. */
    const fromThePage = <R>(
      handler: (body: Record<string, unknown>) => Effect.Effect<HttpServerResponse.HttpServerResponse, BadRequest | ToolFailure, R>
    ) =>
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
        if (request.headers.origin !== runtime.origin) return Effect.succeed(errorResponse(403, "Invalid origin."))
        if (!isJsonContentType(request.headers["content-type"])) return Effect.succeed(errorResponse(415, "Expected application/json."))
        return readRequestBody(request).pipe(
          Effect.flatMap(jsonObjectOf),
          Effect.flatMap(handler),
          Effect.catchAll(answerFailure),
          Effect.catchAllCause(answerInterruption)
        )
      })

    /** Whether the request presents the API token: `Authorization: Bearer <token>`, or the page's cookie. */
    const hasApiToken = (request: HttpServerRequest.HttpServerRequest) =>
      runtime.isApiToken(bearerOf(request.headers.authorization)) ||
      cookieValues(request.headers.cookie, runtime.cookieName).some(runtime.isApiToken)

    /** What anyone may learn is that a controller answers and whether it holds a control token; the rest needs the API token. */
    const health = (request: HttpServerRequest.HttpServerRequest) => {
      const query = request.url.indexOf("?")
      const challenge = query === -1 ? "" : new URLSearchParams(request.url.slice(query + 1)).get("challenge") ?? ""
      const open = { server: SERVER_NAME, protocol_version: CONTROLLER_PROTOCOL_VERSION, proof: runtime.proof(challenge) }
      if (!runtime.isApiToken(bearerOf(request.headers.authorization))) return Effect.succeed(jsonResponse(200, open))
      return Effect.map(options.activeRuns, (activeRuns) =>
        jsonResponse(200, {
          ...open,
          version: VERSION,
          pid: process.pid,
          controller_session_id: runtime.sessionId,
          active_runs: activeRuns
        }))
    }

    /**
     * The page: `/?token=<API token>` trades the token for the cookie and sends the browser to `/` (any page
     * address likewise to itself without the token); `/` with the cookie is the app, without it a page that
     * says how to get in.
     */
    const page = (request: HttpServerRequest.HttpServerRequest) => {
      const token = queryToken(request.url)
      if (token !== undefined) {
        const pathname = pathnameOf(request.url)
        const location = isPageAddress(pathname) ? addressWithoutToken(pathname, request.url) : "/"
        return runtime.isApiToken(token) ? cookieRedirect(runtime.cookieName, token, location) : gatePage()
      }
      const app = options.assets.get("/index.html")
      return hasApiToken(request) && app !== undefined ? bytesResponse(app.body, app.contentType) : gatePage()
    }

    const staticAsset = Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
      const pathname = pathnameOf(request.url)
      const asset = options.assets.get(pathname)
      if (asset !== undefined) return bytesResponse(asset.body, asset.contentType)
      return isPageAddress(pathname) ? page(request) : textResponse(404, "Not found.")
    })

    const shutdown = Effect.gen(function*() {
      if (yield* options.busy) return jsonResponse(409, { active_run: true, error: "A replay is still running." })
      yield* options.requestShutdown
      return jsonResponse(200, { stopping: true })
    })

    /** The page's "Stop controller": refused while a run is active, like `/api/shutdown`, else a clean exit. */
    const stopFromPage = Effect.gen(function*() {
      if (yield* options.busy) {
        return jsonResponse(409, { active_run: true, isError: true, content: [{ type: "text", text: BUSY_MESSAGE }] })
      }
      yield* options.requestShutdown
      return jsonResponse(200, { stopping: true })
    })

    const heartbeat = Effect.as(activity.touch, jsonResponse(200, {
      ok: true,
      controller_session_id: runtime.sessionId,
      heartbeat_interval_seconds: HEARTBEAT_INTERVAL_SECONDS
    }))

    const call = (body: Record<string, unknown>) => {
      const decoded = decodeCallBody(body)
      if (Either.isLeft(decoded)) return invalidArgument(firstMessage(decoded.left))
      const { name, arguments: args } = decoded.right
      return Effect.map(inServices(callTool(options.tools, name, args ?? {}), services), (result) => jsonResponse(200, result))
    }

    const download = (body: Record<string, unknown>) =>
      Effect.gen(function*() {
        const { format, portfolio_id, run_id } = Schema.decodeUnknownSync(DownloadBody)(body)
        const file = yield* inServices(options.download(run_id, format, portfolio_id), services)
        return HttpServerResponse.stream(
          NodeStream.fromReadable(() => readStreamNoFollow(file.path), () => conflict("The replay report is not ready.")),
          {
            contentType: file.contentType,
            headers: { "Content-Disposition": `attachment; filename="${file.fileName}"` }
          }
        )
      })

    /**
     * `/portfolios/<id>`: a portfolio's own page (its runs' reports inside it), shown in place behind the same
     * cookie/token rule as the app; the file is found from the id alone, under the run root.
     */
    const portfolioPage = Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
      const pathname = pathnameOf(request.url)
      const portfolioId = portfolioOfAddress(pathname)
      if (portfolioId === undefined) return Effect.succeed(textResponse(404, "Not found."))
      const token = queryToken(request.url)
      if (token !== undefined) {
        return Effect.succeed(runtime.isApiToken(token) ? cookieRedirect(runtime.cookieName, token, addressWithoutToken(pathname, request.url)) : gatePage())
      }
      if (!hasApiToken(request)) return Effect.succeed(gatePage())
      return inServices(options.download(undefined, "html", portfolioId), services).pipe(
        Effect.map((file) =>
          HttpServerResponse.stream(
            NodeStream.fromReadable(() => readStreamNoFollow(file.path), () => conflict("The portfolio's page cannot be read.")),
            { contentType: file.contentType, headers: savedPageHeaders }
          )
        ),
        Effect.catchAll(answerFailure)
      )
    })

    const router = HttpRouter.empty.pipe(
      HttpRouter.get("/health", Effect.flatMap(HttpServerRequest.HttpServerRequest, health)),
      HttpRouter.get("/", Effect.map(HttpServerRequest.HttpServerRequest, page)),
      HttpRouter.get("/index.html", Effect.map(HttpServerRequest.HttpServerRequest, page)),
      HttpRouter.get("/portfolios/:id", portfolioPage),
      HttpRouter.get("*", staticAsset),
      HttpRouter.post("/api/shutdown", withControlToken(shutdown)),
      options.rpc === undefined ? (router) => router : HttpRouter.post("/api/rpc", withControlToken(options.rpc)),
      HttpRouter.post("/api/call", fromThePage(call)),
      HttpRouter.post("/api/download", fromThePage(download)),
      HttpRouter.post("/api/heartbeat", fromThePage(() => heartbeat)),
      HttpRouter.post("/api/stop", fromThePage(() => stopFromPage))
    )
    const routes = yield* HttpRouter.toHttpApp(router)

    // The rules every request meets before the router: the Host check, the method rule, and the API token for
    // every POST and anything under /api (without it nothing of the request is read).
    return Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
      if (hostHeaders(request) > 1) return Effect.succeed(textResponse(400, "Send one Host header."))
      if (request.headers.host !== runtime.expectedHost) return Effect.succeed(textResponse(421, "Invalid host."))
      if (!ALLOWED_METHODS.has(request.method)) return Effect.succeed(textResponse(405, "Method not allowed."))
      const pathname = pathnameOf(request.url)
      if ((request.method === "POST" || pathname.startsWith("/api")) && !hasApiToken(request)) return Effect.succeed(missingToken())
      return routes
    }).pipe(
      Effect.catchTag("RouteNotFound", ({ request }) =>
        Effect.succeed(request.method === "POST" ? jsonResponse(404, { error: "Not found." }) : textResponse(404, "Not found."))),
      Effect.catchAllDefect((defect) =>
        // As a Cause, so the log shows the error's message and stack (an Error object alone logs as `{}`).
        Effect.logError("Controller request failed", Cause.die(defect)).pipe(
          Effect.as(errorResponse(500, INTERNAL_ERROR_MESSAGE))
        )),
      Effect.map(withSecurityHeaders)
    )
  })
