import { Effect, Fiber, FiberMap, Option, Ref } from "effect"
import { conflict } from "../domain/errors.js"
import { Activity } from "./Activity.js"

/**
 * Runs are fibers, keyed by run id, owned by this daemon's scope: closing the scope (shutdown)
 * interrupts every run, and a run's end counts as activity for the idle rule.
 */
export class RunSupervisor extends Effect.Service<RunSupervisor>()("codex-replay/RunSupervisor", {
  scoped: Effect.gen(function*() {
    const activity = yield* Activity
    const fibers = yield* FiberMap.make<string>()
    const accepting = yield* Ref.make(true)

    const launch = Effect.fn("RunSupervisor.launch")(function*<E>(runId: string, run: Effect.Effect<void, E>) {
      if (!(yield* Ref.get(accepting))) return yield* conflict("The controller is shutting down.")
      if (yield* FiberMap.has(fibers, runId)) return yield* conflict(`The run ${runId} is already running.`)
      // Callers may be in an uninterruptible region (the HTTP server runs handlers that way), and a
      // forked fiber inherits it: a run must stay interruptible so that cancel and shutdown reach it.
      return yield* FiberMap.run(fibers, runId, Effect.interruptible(Effect.ensuring(run, activity.touch)))
    })

    /** Interrupts the run's fiber and waits until everything it started is gone. */
    const interrupt = Effect.fn("RunSupervisor.interrupt")(function*(runId: string) {
      const fiber = yield* FiberMap.get(fibers, runId).pipe(Effect.option)
      if (Option.isNone(fiber)) return false
      yield* Fiber.interrupt(fiber.value)
      return true
    })

    /** Waits until the run's fiber has ended (at once when none runs). */
    const awaitEnd = Effect.fn("RunSupervisor.awaitEnd")(function*(runId: string) {
      const fiber = yield* FiberMap.get(fibers, runId).pipe(Effect.option)
      if (Option.isSome(fiber)) yield* Fiber.await(fiber.value)
    })

    const stopAccepting = Ref.set(accepting, false)
    yield* Effect.addFinalizer(() => stopAccepting)

    return {
      launch,
      interrupt,
      awaitEnd,
      isRunning: (runId: string) => FiberMap.has(fibers, runId),
      activeCount: FiberMap.size(fibers),
      stopAccepting,
      interruptAll: Effect.zipRight(stopAccepting, FiberMap.clear(fibers))
    } as const
  }),
  dependencies: [Activity.Default]
}) {}
