import { Duration, Effect, Schedule } from "effect"
import { conflict, invalidArgument, notFound, unreadableFile } from "../domain/errors.js"
import { isControllerSessionId } from "../domain/ids.js"
import { controllerOrigin } from "../domain/product.js"
import { ControllerClient, type KnownController, type ProbeStatus } from "../services/ControllerClient.js"
import { settingsOf } from "../services/Settings.js"
import { CommandLineIo } from "./io.js"
import { makeOutput } from "./terminal.js"

export interface StopOptions {
  readonly session: string | undefined
  readonly json: boolean
}

const STOP_WITHIN = Duration.seconds(10)

/** Waits until the controller no longer answers `/health` (it removes its runtime file as it exits). */
const awaitGone = (controller: KnownController) =>
  Effect.gen(function*() {
    const client = yield* ControllerClient
    const probe = Effect.map(client.probe(controller.port, controller.controlToken, controller.apiToken), ({ status }) => status)
    const status = yield* Effect.repeat(probe, {
      schedule: Schedule.identity<ProbeStatus>().pipe(Schedule.addDelay(() => "100 millis"), Schedule.upTo(STOP_WITHIN)),
      until: (status) => status === "absent"
    })
    return status === "absent"
  })

const stopOne = (controller: KnownController) =>
  Effect.gen(function*() {
    const client = yield* ControllerClient
    const url = `${controllerOrigin(controller.port)}/`
    const answer = yield* client.requestStop(controller)
    const outcome = answer === "stopping" ? ((yield* awaitGone(controller)) ? "stopped" : "stopping") : answer
    return { controller_session_id: controller.sessionId, url, outcome }
  })

const sentence = (stopped: { controller_session_id: string; url: string; outcome: string }) =>
  stopped.outcome === "stopped"
    ? `Stopped controller ${stopped.controller_session_id} (${stopped.url}).`
    : stopped.outcome === "stopping"
    ? `Controller ${stopped.controller_session_id} (${stopped.url}) is stopping.`
    : stopped.outcome === "busy"
    ? `Controller ${stopped.controller_session_id} (${stopped.url}) is running a replay and was not stopped; cancel the run or wait for it to finish.`
    : `Controller ${stopped.controller_session_id} (${stopped.url}) did not answer the request to stop.`

/**
 * `codex-replay stop [--session ID]`: asks every live controller of this installation (or the one
 * given) to stop. A controller with an active run refuses, as `/api/shutdown` does; the exit code is
 * then 1.
 */
export const stopCommand = (options: StopOptions) =>
  Effect.gen(function*() {
    if (options.session !== undefined && !isControllerSessionId(options.session)) {
      return yield* invalidArgument("--session must be a controller session id (32 lowercase hexadecimal characters).")
    }
    const out = yield* makeOutput(options.json)
    const io = yield* CommandLineIo
    const settings = yield* settingsOf(io.env, io.home)
    const client = yield* ControllerClient
    const live = (yield* client.listLive(settings.controllersRoot)).filter((controller) =>
      options.session === undefined || controller.sessionId === options.session)
    const unreadable = (yield* client.unreadableRuntimes(settings.controllersRoot)).filter((controller) =>
      options.session === undefined || controller.sessionId === options.session)
    if (live.length === 0 && unreadable.length === 0 && options.session !== undefined) {
      return yield* notFound(`No running controller with session ${options.session} in ${settings.controllersRoot}.`)
    }
    const results = yield* Effect.forEach(live, stopOne, { concurrency: 4 })
    const unread = unreadable.map(({ sessionId, file }) => ({ controller_session_id: sessionId, runtime_file: file }))
    if (options.json) yield* out.result(unread.length === 0 ? { controllers: results } : { controllers: results, unreadable: unread })
    else if (results.length === 0 && unreadable.length === 0) yield* out.say("No controller of this installation is running.")
    else for (const result of results) yield* out.say(sentence(result))
    if (unreadable.length > 0) {
      return yield* unreadableFile(unreadable.map(({ sessionId, file }) =>
        `Cannot read the runtime file of controller ${sessionId} (${file}), so it may still be running and was not stopped; stop its process, or remove that file if it is gone.`
      ).join(" "))
    }
    const refused = results.filter((result) => result.outcome === "busy" || result.outcome === "unanswered")
    if (refused.length > 0) {
      return yield* conflict(`${refused.length} controller(s) were not stopped.`)
    }
  })
