import { Clock, Effect, Random, Schema } from "effect"

/** A name that is safe as one path segment and in a log line: run ids and imported thread ids. */
export const SAFE_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/
export const RUN_ID_PATTERN = SAFE_ID_PATTERN
export const THREAD_ID_PATTERN = SAFE_ID_PATTERN
export const CONTROLLER_SESSION_ID_PATTERN = /^[a-f0-9]{32}$/

export const RunId = Schema.String.pipe(
  Schema.pattern(RUN_ID_PATTERN, { message: () => "The run ID is invalid." }),
  Schema.brand("RunId")
)
export type RunId = typeof RunId.Type

export const ControllerSessionId = Schema.String.pipe(
  Schema.pattern(CONTROLLER_SESSION_ID_PATTERN, {
    message: () => "The controller session ID is invalid."
  }),
  Schema.brand("ControllerSessionId")
)
export type ControllerSessionId = typeof ControllerSessionId.Type

export const isRunId = (value: string): value is RunId => RUN_ID_PATTERN.test(value)
export const isControllerSessionId = (value: string): value is ControllerSessionId =>
  CONTROLLER_SESSION_ID_PATTERN.test(value)

const fiveHexDigits = Effect.map(Random.nextIntBetween(0, 0x100000), (value) => value.toString(16).padStart(5, "0"))

/**
 * `<prefix>-YYYYMMDDTHHMMSSZ-<10 hex>` from the `Clock` and `Random` services: sorts by time, unique by its
 * random part (an id, not a secret: secrets come from `node:crypto` in the services that issue them).
 */
export const timestampedId = (prefix: string) =>
  Effect.gen(function*() {
    const stamp = new Date(yield* Clock.currentTimeMillis).toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z")
    return `${prefix}-${stamp}-${yield* fiveHexDigits}${yield* fiveHexDigits}`
  })

/** Run ids sort by start time and match `RUN_ID_PATTERN`. */
export const newRunId = timestampedId("run")

/** A new controller session id (32 hex digits); it names a controller, it grants nothing. */
export const newControllerSessionId = Effect.map(
  Effect.all(Array.from({ length: 8 }, () => Random.nextIntBetween(0, 0x10000))),
  (parts) => parts.map((part) => part.toString(16).padStart(4, "0")).join("")
)

/** What a Codex model id looks like (`gpt-5.5`, `gpt-6.1-sol`). */
export const MODEL_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$/
