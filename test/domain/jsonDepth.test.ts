import { describe, expect, it } from "vitest"
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../../src/domain/jsonDepth.js"

describe("nestsDeeperThan", () => {
  it("counts arrays and objects, up to the limit and one past it", () => {
    const nested = (depth: number) => `${"[{\"a\":".repeat(depth / 2)}1${"}]".repeat(depth / 2)}`
    expect(nestsDeeperThan(nested(MAX_JSON_DEPTH))).toBe(false)
    expect(nestsDeeperThan(nested(MAX_JSON_DEPTH + 2))).toBe(true)
    expect(nestsDeeperThan("[".repeat(1_000_000))).toBe(true)
  })

  it("skips brackets inside strings, escaped quotes included", () => {
    const text = JSON.stringify({ text: `${"[".repeat(500)} \\" ${"{".repeat(500)}\\"` })
    expect(nestsDeeperThan(text)).toBe(false)
    expect(nestsDeeperThan(`["\\\\", ${"[".repeat(70)}]`)).toBe(true)
  })

  it("reads a body's UTF-8 bytes as it reads its text", () => {
    for (const text of [JSON.stringify({ note: `été ${"[".repeat(80)} 💥` }), `{"a":${"[".repeat(65)}"é"${"]".repeat(65)}}`, `["é", ${"{\"k\":".repeat(40)}1${"}".repeat(40)}]`]) {
      expect(nestsDeeperThan(Buffer.from(text, "utf8"))).toBe(nestsDeeperThan(text))
    }
    expect(nestsDeeperThan(Buffer.from(`{"a":${"[".repeat(65)}"é"${"]".repeat(65)}}`))).toBe(true)
  })

  it("answers what JSON.parse would need for a sequence of flat values", () => {
    expect(nestsDeeperThan("[]".repeat(10_000))).toBe(false)
    expect(nestsDeeperThan("")).toBe(false)
  })
})
