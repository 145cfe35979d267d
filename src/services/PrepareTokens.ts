import { Effect, Option, Ref } from "effect"
import { randomBytes } from "node:crypto"
import type { RunConfiguration } from "../domain/runConfig.js"

export const MAX_PREPARE_TOKENS = 256

/** What `prepare_run` approved, kept in memory under its token until `start_run` uses it. */
export interface PrepareReceipt {
  readonly controller_session_id: string
  readonly fingerprint: string
  readonly configuration: RunConfiguration
  readonly historical_result_sha256: string
  readonly prepared_configuration_sha256_by_model: Readonly<Record<string, string>>
  /** The reviewer of every run this start launches. */
  readonly reviewer_model: string
  /** Filled when the start finished: the runs it launched and the models that failed. */
  readonly started?: {
    readonly run_ids: ReadonlyArray<string>
    readonly errors: ReadonlyArray<LaunchError>
  }
}

export interface LaunchError {
  readonly model: string
  readonly error: string
  readonly controller_code: "launch_failed"
}

/**
 * Prepare tokens of this controller (docs/controller.md): at most 256, oldest dropped first. Starts are
 * serialised by `withStartLock`, so one token never launches twice.
 */
export class PrepareTokens extends Effect.Service<PrepareTokens>()("codex-replay/PrepareTokens", {
  effect: Effect.gen(function*() {
    const receipts = yield* Ref.make(new Map<string, PrepareReceipt>())
    const startLock = yield* Effect.makeSemaphore(1)

    const remember = Effect.fn("PrepareTokens.remember")(function*(token: string, receipt: PrepareReceipt) {
      yield* Ref.update(receipts, (current) => {
        const next = new Map(current)
        next.set(token, receipt)
        for (const oldest of next.keys()) {
          if (next.size <= MAX_PREPARE_TOKENS) break
          next.delete(oldest)
        }
        return next
      })
    })

    /** A new token for `receipt`: a secret, so from the system's cryptographic source, never from a seeded `Random`. */
    const issue = Effect.fn("PrepareTokens.issue")(function*(receipt: PrepareReceipt) {
      const token = randomBytes(32).toString("base64url")
      yield* remember(token, receipt)
      return token
    })

    const lookup = (token: string) => Ref.get(receipts).pipe(Effect.map((current) => Option.fromNullable(current.get(token))))

    const markStarted = (token: string, started: NonNullable<PrepareReceipt["started"]>) =>
      Ref.update(receipts, (current) => {
        const receipt = current.get(token)
        if (receipt === undefined) return current
        return new Map(current).set(token, { ...receipt, started })
      })

    return {
      issue,
      lookup,
      markStarted,
      size: Effect.map(Ref.get(receipts), (current) => current.size),
      withStartLock: startLock.withPermits(1)
    } as const
  })
}) {}
