import { Effect, type Schedule } from "effect"
import type { WorkerError } from "../../domain/errors.js"
import type { RequestSource, RetryHooks, WorkerRequest, WorkerResult } from "./request.js"

/** Runs a request with a caller-owned schedule, retrying only retryable failures. Archives nothing. */
export const runWithSchedule = <A, I, Out, R, RS>(
  run: (request: WorkerRequest<A, I>) => Effect.Effect<WorkerResult<A>, WorkerError>,
  source: RequestSource<A, I, R>,
  schedule: Schedule.Schedule<Out, WorkerError, RS>,
  hooks: RetryHooks<R> = {}
): Effect.Effect<WorkerResult<A>, WorkerError, R | RS> =>
  Effect.suspend(() => {
    let attempt = 0
    let lastFailure: WorkerError | undefined
    const requestFor = (number: number) => (typeof source === "function" ? source(number) : Effect.succeed(source))
    const once = Effect.suspend(() => {
      attempt += 1
      const beforeRetry = lastFailure !== undefined && hooks.beforeRetry !== undefined
        ? hooks.beforeRetry(lastFailure, attempt)
        : Effect.void
      return beforeRetry.pipe(
        Effect.zipRight(requestFor(attempt)),
        Effect.flatMap(run),
        Effect.tapError((failure) => Effect.sync(() => void (lastFailure = failure)))
      )
    })
    return Effect.retry(once, { schedule, while: (failure) => failure.retryable })
  }).pipe(Effect.withSpan("CodexWorker.runWithSchedule"))
