import { describe, expect, it } from "@effect/vitest"
import { turnInliningBackOn, turnInliningOff } from "../../src/services/internal/v8Inlining.js"
import { v8FlagsAsAtStart } from "../support/v8Flags.js"

describe("V8's inlining while a listing's workers parse", () => {
  it("is off for the whole process from the first pool that asks, and back on when the last one is done", () => {
    expect(v8FlagsAsAtStart()).toBe(true)
    turnInliningOff()
    expect(v8FlagsAsAtStart()).toBe(false)
    turnInliningOff()
    turnInliningBackOn()
    expect(v8FlagsAsAtStart()).toBe(false)
    turnInliningBackOn()
    expect(v8FlagsAsAtStart()).toBe(true)
  })

  it("is not turned back on more times than it was turned off", () => {
    turnInliningBackOn()
    expect(v8FlagsAsAtStart()).toBe(true)
    turnInliningOff()
    expect(v8FlagsAsAtStart()).toBe(false)
    turnInliningBackOn()
    expect(v8FlagsAsAtStart()).toBe(true)
  })
})
