import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { applyStateUpdate, initialRunState, MAX_EVENTS, type RunState } from "../../src/domain/runState.js"

const start = () =>
  initialRunState({ runId: "run-1", controllerSessionId: "a".repeat(32), coordinatorPid: 42, now: "2026-01-01T00:00:00.000Z" })

const apply = (state: RunState, update: Parameters<typeof applyStateUpdate>[1], now = "2026-01-01T00:00:01.000Z") =>
  applyStateUpdate(state, update, now)

describe("run state transitions", () => {
  it("starts queued, with preparing complete and every other phase waiting", () => {
    const state = start()
    expect(state).toMatchObject({ status: "running", phase: "queued", coordinator_pid: 42, error: null })
    expect(state.phases.map((row) => `${row.id}:${row.status}`)).toEqual([
      "preparing:complete",
      "queued:running",
      "creating_workspace:waiting",
      "implementing:waiting",
      "collecting:waiting",
      "checking:waiting",
      "reviewing:waiting",
      "reporting:waiting"
    ])
    expect(state.events).toEqual([{ at: "2026-01-01T00:00:00.000Z", phase: "preparing", status: "complete", summary: "Configuration approved." }])
  })

  it("moving to a phase completes the previous one and records the event", () => {
    const next = Either.getOrThrow(apply(start(), { phase: "creating_workspace", summary: "Creating an isolated workspace." }))
    expect(next.phase).toBe("creating_workspace")
    expect(next.phases.find((row) => row.id === "queued")?.status).toBe("complete")
    expect(next.phases.find((row) => row.id === "creating_workspace")?.status).toBe("running")
    expect(next.events.at(-1)).toEqual({ at: "2026-01-01T00:00:01.000Z", phase: "creating_workspace", status: "running", summary: "Creating an isolated workspace." })
    expect(next.updated_at).toBe("2026-01-01T00:00:01.000Z")
  })

  it("a phase passed over is skipped, not left waiting (a run that approved no check goes from collecting to reviewing)", () => {
    const collecting = Either.getOrThrow(apply(start(), { phase: "collecting" }))
    const reviewing = Either.getOrThrow(apply(collecting, { phase: "reviewing" }))
    expect(reviewing.phases.filter((row) => ["collecting", "checking", "reviewing", "reporting"].includes(row.id)).map((row) => `${row.id}:${row.status}`))
      .toEqual(["collecting:complete", "checking:skipped", "reviewing:running", "reporting:waiting"])
  })

  it("a terminal status closes the current phase and stamps completed_at", () => {
    const failed = Either.getOrThrow(apply(start(), { phase: "implementing", status: "failed", details: { error: "boom" } }))
    expect(failed).toMatchObject({ status: "failed", error: "boom", completed_at: "2026-01-01T00:00:01.000Z" })
    expect(failed.phases.find((row) => row.id === "implementing")?.status).toBe("failed")
  })

  it("a cancelled run never leaves cancelled", () => {
    const cancelled = Either.getOrThrow(apply(start(), { status: "cancelled" }))
    const attempt = apply(cancelled, { phase: "reviewing", summary: "late" })
    expect(Either.isLeft(attempt) && attempt.left._tag).toBe("RunCancelled")
    const completed = apply(cancelled, { status: "completed" })
    expect(Either.isLeft(completed) && completed.left._tag).toBe("RunCancelled")
  })

  it("an expected status that does not match is a conflict", () => {
    const done = Either.getOrThrow(apply(start(), { status: "completed" }))
    const conflict = apply(done, { status: "cancelled", expectedStatus: "running" })
    expect(Either.isLeft(conflict) && conflict.left).toMatchObject({ _tag: "StateTransitionConflict", expected: "running", found: "completed" })
  })

  it("keeps the last 200 events and cuts long summaries", () => {
    let state = start()
    for (let index = 0; index < 250; index++) state = Either.getOrThrow(apply(state, { summary: `event ${index}` }))
    expect(state.events).toHaveLength(MAX_EVENTS)
    expect(state.events.at(-1)?.summary).toBe("event 249")
    const long = Either.getOrThrow(apply(state, { summary: "x".repeat(5000) }))
    expect(long.events.at(-1)?.summary).toHaveLength(1000)
  })
})
