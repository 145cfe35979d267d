/**
 * The floor of the daemon's HTTP stack: the smallest @effect/platform app that answers what the daemon
 * answers (same status, headers and body), reading and parsing a POST body first. Started by
 * bench/daemon.ts as `node --import tsx bench/support/platformFloor.ts <port> <responses.json>`.
 */
import { HttpMiddleware, HttpServer, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { NodeHttpServer, NodeHttpServerRequest, NodeRuntime } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import { createServer } from "node:http"

interface Canned {
  readonly headers: Record<string, string>
  readonly body: string
}

const [port, responsesFile] = process.argv.slice(2)
const responses = JSON.parse(fs.readFileSync(responsesFile!, "utf8")) as { readonly get: Canned; readonly post: Canned }

const readBody = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.async<Buffer>((resume) => {
    const incoming = NodeHttpServerRequest.toIncomingMessage(request)
    const chunks: Array<Buffer> = []
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk))
    incoming.once("end", () => resume(Effect.succeed(Buffer.concat(chunks))))
  })

const answer = ({ headers, body }: Canned) => HttpServerResponse.raw(body, { status: 200, headers })

const app = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  if (request.method !== "POST") return answer(responses.get)
  JSON.parse((yield* readBody(request)).toString("utf8"))
  return answer(responses.post)
})

const serve = Layer.scopedDiscard(HttpServer.serveEffect(app).pipe(HttpMiddleware.withTracerDisabledWhenEffect(() => true)))
NodeRuntime.runMain(
  Layer.launch(serve.pipe(Layer.provide(NodeHttpServer.layer(createServer, { port: Number(port), host: "127.0.0.1" })))).pipe(
    Effect.withTracerEnabled(false)
  )
)
