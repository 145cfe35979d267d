import { describe, expect, it } from "@effect/vitest"
import { skeletonOf } from "../../src/domain/history/skeleton.js"

/**
 * The skeleton parse, as a property: for any transcript line, `JSON.parse(skeletonOf(line))` equals
 * `JSON.parse(line)` with the values no summary reads projected away (each long string below the keys the
 * listing skips becomes ""). Lines come from a small seeded generator, so a failure names its seed.
 */

const DROP_MIN_CHARS = 256
const SKELETON_MIN_CHARS = 8 * 1024
const ALWAYS_DROPPED = new Set([
  "thinking", "signature", "originalFile", "originalFileContents", "oldString", "newString", "old_string",
  "new_string", "stdout", "stderr", "data"
])
const DROPPED_BELOW = new Set(["toolUseResult", "data", "input"])
const KEPT_PATHS = new Set(["filePath", "file_path", "notebook_path"])
const ELEMENT = "[]"

type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }

/** Whether a string under `key`, inside containers that are the values of `containerKeys`, is skipped. */
const isDropped = (key: string, containerKeys: ReadonlyArray<string>) => {
  if (KEPT_PATHS.has(key)) return false
  if (ALWAYS_DROPPED.has(key)) return true
  let contents = key === "content" ? 1 : 0
  for (const container of containerKeys) {
    if (DROPPED_BELOW.has(container)) return true
    if (container === "content") contents++
  }
  return contents >= 2
}

/** The parsed line with what the listing skips projected away. */
const project = (value: Json, key: string, containerKeys: ReadonlyArray<string>): Json => {
  if (typeof value === "string") {
    // The listing measures a string as written in the line: its JSON text, opening quote included.
    return JSON.stringify(value).length - 1 > DROP_MIN_CHARS && isDropped(key, containerKeys) ? "" : value
  }
  if (value === null || typeof value !== "object") return value
  const inside = [...containerKeys, key]
  if (Array.isArray(value)) return value.map((element: Json) => project(element, ELEMENT, inside))
  const result: Record<string, Json> = {}
  for (const [name, member] of Object.entries(value as { readonly [key: string]: Json })) result[name] = project(member, name, inside)
  return result
}

/** mulberry32: a small seeded generator. */
const randomFrom = (seed: number) => {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const KEYS = [
  "type", "uuid", "message", "content", "text", "thinking", "signature", "input", "toolUseResult", "data",
  "filePath", "file_path", "notebook_path", "stdout", "stderr", "oldString", "new_string", "originalFile",
  "usage", "model", "id", "name", "cwd", "result", "items"
]
const ALPHABET = ["a", "b", " ", "\"", "\\", "{", "}", "[", "]", ":", ",", "\n", "\t", "é", "→", "😀", "\u0001", "x", "y", "z"]

const generator = (random: () => number) => {
  const pick = <A>(items: ReadonlyArray<A>) => items[Math.floor(random() * items.length)]!
  const text = () => {
    const length = random() < 0.5 ? Math.floor(random() * 40) : Math.floor(random() * 1200)
    let out = ""
    for (let index = 0; index < length; index++) out += random() < 0.7 ? "abcdefgh"[index % 8] : pick(ALPHABET)
    return out
  }
  const value = (depth: number): Json => {
    const roll = random()
    if (depth > 4 || roll < 0.45) return text()
    if (roll < 0.55) return Math.floor(random() * 1e6) / 100
    if (roll < 0.6) return random() < 0.5
    if (roll < 0.63) return null
    if (roll < 0.78) return Array.from({ length: Math.floor(random() * 4) }, () => value(depth + 1))
    return object(depth + 1)
  }
  const object = (depth: number): { [key: string]: Json } => {
    const result: { [key: string]: Json } = {}
    const count = 1 + Math.floor(random() * 5)
    for (let index = 0; index < count; index++) result[pick(KEYS)] = value(depth)
    return result
  }
  return () => {
    const line = object(0)
    // Most lines long enough to be skeletonised; some just below the threshold, left as they are.
    const filler = random() < 0.9 ? SKELETON_MIN_CHARS : Math.floor(random() * SKELETON_MIN_CHARS)
    line.zz = "k".repeat(filler)
    return JSON.stringify(line)
  }
}

describe("the skeleton parse", () => {
  it("equals parse-then-project on 2,000 generated transcript lines", () => {
    let skeletonised = 0
    for (let seed = 1; seed <= 2000; seed++) {
      const line = generator(randomFrom(seed))()
      const skeleton = skeletonOf(line)
      if (skeleton !== line) skeletonised++
      const parsed = JSON.parse(line) as Json
      const expected = line.length < SKELETON_MIN_CHARS ? parsed : project(parsed, "", [])
      expect({ seed, value: JSON.parse(skeleton) }).toEqual({ seed, value: expected })
    }
    // The property is not vacuous: many lines had something skipped.
    expect(skeletonised).toBeGreaterThan(500)
  })

  it("keeps a torn line torn, so that JSON.parse fails on it as on the line", () => {
    for (let seed = 1; seed <= 300; seed++) {
      const random = randomFrom(seed)
      const line = generator(random)()
      const torn = line.slice(0, Math.floor(random() * line.length))
      const skeleton = skeletonOf(torn)
      expect(() => JSON.parse(skeleton)).toThrow()
    }
  })
})
