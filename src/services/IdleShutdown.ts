import { Clock, Duration, Effect, Layer } from "effect"
import { Activity } from "./Activity.js"
import { RunStore } from "./RunStore.js"
import { RunSupervisor } from "./RunSupervisor.js"
import { Settings } from "./Settings.js"
import { Shutdown } from "./Shutdown.js"

export interface IdleRule {
  readonly timeoutMillis: number
  /** How often to look again while something is busy that cannot announce its own end. */
  readonly busyPollMillis: number
  readonly lastActivity: Effect.Effect<number>
  readonly touch: Effect.Effect<void>
  readonly isBusy: Effect.Effect<boolean>
}

/**
 * Completes once nothing has happened for the idle timeout and nothing is busy. It sleeps until the
 * deadline rather than polling; while busy it looks again every `busyPollMillis` and restarts the
 * timeout when the work is over, so shutdown comes a full timeout after the last run ends.
 */
export const awaitIdle = (rule: IdleRule) =>
  Effect.gen(function*() {
    let lastSeenBusy: number | undefined
    for (;;) {
      const now = yield* Clock.currentTimeMillis
      const lastActivity = yield* rule.lastActivity
      const remaining = lastActivity + rule.timeoutMillis - now
      if (remaining > 0) {
        yield* Effect.sleep(Duration.millis(remaining))
        continue
      }
      if (yield* rule.isBusy) {
        lastSeenBusy = now
        yield* Effect.sleep(Duration.millis(Math.min(rule.busyPollMillis, rule.timeoutMillis)))
        continue
      }
      // Work that ended without announcing it (a run of another process): the timeout starts now.
      if (lastSeenBusy !== undefined && lastActivity < lastSeenBusy) {
        lastSeenBusy = undefined
        yield* rule.touch
        continue
      }
      return
    }
  })

/**
 * The daemon is busy while one of its run fibers lives, a worker call outside runs is in flight, or
 * `countRuns` (the run root's active runs, other processes' included) counts one; a count that fails is none.
 */
export const daemonBusy = (countRuns: Effect.Effect<number, unknown>) =>
  Effect.gen(function*() {
    const supervisor = yield* RunSupervisor
    const activity = yield* Activity
    return Effect.gen(function*() {
      if ((yield* supervisor.activeCount) > 0 || (yield* activity.inFlight) > 0) return true
      return (yield* countRuns.pipe(Effect.orElseSucceed(() => 0))) > 0
    })
  })

/** The daemon's idle rule (shut down after the idle timeout with nothing running). */
export const daemonIdleRule = (options: {
  readonly timeoutMillis: number
  readonly busyPollMillis: number
  readonly countRuns: Effect.Effect<number, unknown>
}) =>
  Effect.gen(function*() {
    const activity = yield* Activity
    return {
      timeoutMillis: options.timeoutMillis,
      busyPollMillis: options.busyPollMillis,
      lastActivity: activity.lastActivity,
      touch: activity.touch,
      isBusy: yield* daemonBusy(options.countRuns)
    } satisfies IdleRule
  })

/** While a run is active the idle rule looks again this often. */
const BUSY_POLL_MILLIS = 250

/**
 * The idle shutdown as a scoped layer of the daemon: a fiber that asks `Shutdown` to stop once the
 * daemon has been idle for the configured timeout; closing the layer interrupts it.
 */
export const IdleShutdownLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    const settings = yield* Settings
    const runs = yield* RunStore
    const shutdown = yield* Shutdown
    const rule = yield* daemonIdleRule({
      timeoutMillis: settings.idleTimeoutMillis,
      busyPollMillis: BUSY_POLL_MILLIS,
      countRuns: runs.countActive
    })
    yield* Effect.forkScoped(Effect.zipRight(awaitIdle(rule), shutdown.request("idle timeout")))
  })
)
