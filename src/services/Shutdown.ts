import { Deferred, Effect } from "effect"

/**
 * Why the daemon stops, once: `/api/shutdown`, the page's "Stop controller" or the idle rule
 * (`IdleShutdownLive`) ask; the daemon waits for the first reason and then closes its scope.
 */
export class Shutdown extends Effect.Service<Shutdown>()("codex-replay/Shutdown", {
  effect: Effect.gen(function*() {
    const reason = yield* Deferred.make<string>()
    return {
      /** Asks the daemon to stop; a later reason does not replace the first. */
      request: (why: string) => Effect.asVoid(Deferred.succeed(reason, why)),
      /** Completes with the first reason given. */
      requested: Deferred.await(reason)
    } as const
  })
}) {}
