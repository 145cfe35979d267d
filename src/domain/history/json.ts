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

/** Milliseconds since the epoch for an ISO timestamp, or undefined for anything unparsable. */
export const timestampMillis = (object: unknown): number | undefined => {
  const value = stringField(object, "timestamp")
  if (value === undefined) return undefined
  const millis = Date.parse(value)
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
