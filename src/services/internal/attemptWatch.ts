import { Effect } from "effect"
import { type ConfinedAttempt, describeAttempt, forgetAttempt, killAttempt, recordAttempt } from "./confinement.js"

const POLL_MILLIS = 20
const KILL_WITHIN_MILLIS = 5000

/**
 * Watches one Codex child from its start: as soon as its namespace exists, remembers it and records it
 * in the run directory (so that a later daemon can end it after a crash). `kill` ends the namespace
 * and forgets the record once nothing of it is left.
 */
export class AttemptWatch {
  private attempt: ConfinedAttempt | undefined
  private recorded: Promise<void> = Promise.resolve()
  private timer: ReturnType<typeof setTimeout> | undefined
  private closed = false

  constructor(
    private readonly attemptId: string,
    private readonly runDirectory: string | undefined,
    private readonly findLaunchers: () => Promise<Array<number>>
  ) {
    this.schedule()
  }

  private schedule() {
    if (this.closed || this.attempt !== undefined) return
    this.timer = setTimeout(() => void this.poll(), POLL_MILLIS)
    this.timer.unref()
  }

  private async poll() {
    await this.look()
    this.schedule()
  }

  private async look() {
    if (this.attempt !== undefined) return this.attempt
    for (const pid of await this.findLaunchers()) {
      const attempt = describeAttempt(pid)
      if (attempt === undefined) continue
      this.attempt = attempt
      if (this.runDirectory !== undefined) {
        const runDirectory = this.runDirectory
        this.recorded = recordAttempt(runDirectory, this.attemptId, attempt).catch(() => undefined)
      }
      return attempt
    }
    return undefined
  }

  /** Ends the attempt's namespace (a no-op when Codex already ended it) and forgets its record. */
  readonly kill = Effect.promise(async () => {
    const attempt = await this.look()
    if (attempt === undefined) return
    const deadline = Date.now() + KILL_WITHIN_MILLIS
    while (killAttempt(attempt) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, POLL_MILLIS))
    await this.recorded
    if (this.runDirectory !== undefined) await forgetAttempt(this.runDirectory, this.attemptId)
  })

  readonly close = Effect.sync(() => {
    this.closed = true
    if (this.timer !== undefined) clearTimeout(this.timer)
  })
}
