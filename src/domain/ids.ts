import { Schema } from "effect"

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
