/** Defensive accessors over parsed transcript JSON: every field may be missing or of the wrong type. */
export type JsonObject = Record<string, unknown>

export const isRecord = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value)

export const stringField = (object: unknown, key: string): string | undefined => {
  if (!isRecord(object)) return undefined
  const value = object[key]
  return typeof value === "string" ? value : undefined
}

export const numberField = (object: unknown, key: string): number | undefined => {
  if (!isRecord(object)) return undefined
  const value = object[key]
  return typeof value === "number" && Number.isFinite(value) ? value : undefined
}

export const recordField = (object: unknown, key: string): JsonObject | undefined => {
  if (!isRecord(object)) return undefined
  const value = object[key]
  return isRecord(value) ? value : undefined
}

export const arrayField = (object: unknown, key: string): ReadonlyArray<unknown> => {
  if (!isRecord(object)) return []
  const value = object[key]
  return Array.isArray(value) ? value : []
}

export const isTrue = (object: unknown, key: string) => isRecord(object) && object[key] === true

const COLON = 0x3a
const DOT = 0x2e
const ZULU = 0x5a

/** The number of the `count` ASCII digits at `at`, or -1 when one is not a digit. */
const digitsAt = (text: string, at: number, count: number) => {
  let value = 0
  for (let index = at; index < at + count; index++) {
    const digit = text.charCodeAt(index) - 48
    if (digit < 0 || digit > 9) return -1
    value = value * 10 + digit
  }
  return value
}

/** The last minute `Date.parse` read (`YYYY-MM-DDTHH:MM`): consecutive transcript lines share it. */
let knownMinute = ""
let knownMinuteMillis = Number.NaN

/**
 * `Date.parse`, exactly, read faster for the `YYYY-MM-DDTHH:MM:SS.mmmZ` every transcript line carries: its
 * minute is parsed by `Date.parse` once (and checked by it), its seconds and milliseconds are read as digits.
 * A listing reads a million timestamps; anything else goes to `Date.parse` as it is.
 */
export const isoMillis = (text: string): number => {
  if (text.length !== 24 || text.charCodeAt(16) !== COLON || text.charCodeAt(19) !== DOT || text.charCodeAt(23) !== ZULU) {
    return Date.parse(text)
  }
  const seconds = digitsAt(text, 17, 2)
  const millis = digitsAt(text, 20, 3)
  // Hour 24 is valid at 24:00:00.000 alone: Date.parse decides it.
  if (seconds < 0 || seconds > 59 || millis < 0 || !(digitsAt(text, 11, 2) < 24)) return Date.parse(text)
  if (!text.startsWith(knownMinute) || knownMinute === "") {
    knownMinute = text.slice(0, 16)
    knownMinuteMillis = Date.parse(`${knownMinute}:00.000Z`)
  }
  return knownMinuteMillis + seconds * 1000 + millis
}

/** Milliseconds since the epoch for an ISO timestamp, or undefined for anything unparsable. */
export const timestampMillis = (object: unknown): number | undefined => {
  const value = stringField(object, "timestamp")
  if (value === undefined) return undefined
  const millis = isoMillis(value)
  return Number.isNaN(millis) ? undefined : millis
}

/** `Array.prototype.findLast` for the ES2022 library. */
export const findLast = <A>(items: ReadonlyArray<A>, predicate: (item: A) => boolean): A | undefined => {
  for (let index = items.length - 1; index >= 0; index--) {
    const item = items[index]!
    if (predicate(item)) return item
  }
  return undefined
}
