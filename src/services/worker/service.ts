import { Effect, type Schedule } from "effect"
import { randomBytes } from "node:crypto"
import type { WorkerError } from "../../domain/errors.js"
import { type WorkerResultData, ZERO_USAGE } from "../../domain/worker.js"
import type { AnyRequest } from "./prepare.js"
import type { AttemptProgress, RequestSource, RetryHooks, WorkerRequest, WorkerResult } from "./request.js"
import { runWithSchedule } from "./schedule.js"

/** Builds the service shape around one `run` implementation (shared by the live and fake workers). */
export const makeService = (
  runAny: (request: AnyRequest) => Effect.Effect<WorkerResult<unknown>, WorkerError>,
  /** The attempts under way and where each is (none for the fake worker). */
  attempts: Effect.Effect<ReadonlyArray<AttemptProgress>> = Effect.succeed([])
) => {
  const run = <A = undefined, I = unknown>(request: WorkerRequest<A, I>) =>
    runAny(request as unknown as AnyRequest) as unknown as Effect.Effect<WorkerResult<A>, WorkerError>
  const runScheduled = <A, I, Out, R = never, RS = never>(
    source: RequestSource<A, I, R>,
    schedule: Schedule.Schedule<Out, WorkerError, RS>,
    hooks?: RetryHooks<R>
  ) => runWithSchedule(run<A, I>, source, schedule, hooks)
  return { run, runWithSchedule: runScheduled, attempts } as const
}

/** What a fake worker answers: a final response text, or any result fields. */
export type FakeAnswer = string | Partial<WorkerResultData>

export const fakeResult = (request: AnyRequest, answer: FakeAnswer): WorkerResultData => {
  const fields = typeof answer === "string" ? { final_response: answer } : answer
  return {
    thread_id: `fake-thread-${randomBytes(12).toString("hex")}`,
    final_response: "",
    items: [],
    usage: ZERO_USAGE,
    elapsed_ms: 0,
    worktree: request.workingDirectory,
    ...fields
  }
}
