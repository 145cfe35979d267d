import { numberField, timestampMillis } from "./json.js"
import { isMainChain, type SessionEntry, typeOf, uuidOf } from "./entries.js"

export interface Elapsed {
  readonly wall_ms: number
  readonly active_ms: number
  /** `turn_duration` when Claude Code recorded per-turn durations (2.1.x), else spans between prompts. */
  readonly active_source: "turn_duration" | "turn_spans"
}

const TIMED_TYPES: ReadonlySet<string> = new Set(["user", "assistant", "system"])

const timedMainLines = (entries: ReadonlyArray<SessionEntry>) =>
  entries.flatMap((entry) => {
    if (!isMainChain(entry) || !TIMED_TYPES.has(typeOf(entry))) return []
    const time = timestampMillis(entry.raw)
    return time === undefined ? [] : [{ entry, time }]
  })

export const timeBounds = (entries: ReadonlyArray<SessionEntry>) => {
  let start = Number.POSITIVE_INFINITY
  let end = Number.NEGATIVE_INFINITY
  for (const { time } of timedMainLines(entries)) {
    if (time < start) start = time
    if (time > end) end = time
  }
  return Number.isFinite(start) ? { start, end } : undefined
}

/**
 * Wall time is first to last main-chain line. Active time is the sum of `system/turn_duration` when
 * present; otherwise, for each human turn, from the prompt to the last line before the next prompt
 * (sub-agent time overlaps its parent's turn and is not added).
 */
export const elapsedTime = (entries: ReadonlyArray<SessionEntry>, humanTurnUuids: ReadonlySet<string>): Elapsed => {
  const lines = timedMainLines(entries)
  const bounds = timeBounds(entries)
  const wall = bounds === undefined ? 0 : bounds.end - bounds.start
  const durations = lines
    .filter(({ entry }) => typeOf(entry) === "system" && entry.raw.subtype === "turn_duration")
    .map(({ entry }) => numberField(entry.raw, "durationMs") ?? 0)
  if (durations.length > 0) {
    return { wall_ms: wall, active_ms: durations.reduce((sum, value) => sum + value, 0), active_source: "turn_duration" }
  }
  let active = 0
  let turnStart: number | undefined
  let turnEnd = 0
  for (const { entry, time } of lines) {
    const uuid = uuidOf(entry)
    if (uuid !== undefined && humanTurnUuids.has(uuid)) {
      if (turnStart !== undefined) active += turnEnd - turnStart
      turnStart = time
      turnEnd = time
    } else if (turnStart !== undefined && time > turnEnd) {
      turnEnd = time
    }
  }
  if (turnStart !== undefined) active += turnEnd - turnStart
  return { wall_ms: wall, active_ms: active, active_source: "turn_spans" }
}
