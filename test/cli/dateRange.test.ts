import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { dateRangeOf, dayOf, inDateRange, localDay } from "../../src/domain/dateRange.js"
import { daysWords } from "../../src/cli/terminal.js"

describe("--since and --until days", () => {
  it("read YYYY-MM-DD and YYYYMMDD, and only real days", () => {
    expect([dayOf("2026-12-03"), dayOf("20261203"), dayOf(" 2024-02-29 ")]).toEqual(["2026-12-03", "2026-12-03", "2024-02-29"])
    expect([dayOf("2026-02-29"), dayOf("2026-13-01"), dayOf("03/12/2026"), dayOf("yesterday"), dayOf("2026-1-3")]).toEqual([
      undefined, undefined, undefined, undefined, undefined
    ])
  })

  it("refuse a bad day or an end before the start in one sentence naming the flag", () => {
    expect(dateRangeOf({ since: "20260101", until: "2026-01-31" })).toEqual(Either.right({ since: "2026-01-01", until: "2026-01-31" }))
    expect(dateRangeOf({ since: "2026-02-30" })).toEqual(Either.left("--since must be a day as YYYY-MM-DD or YYYYMMDD (got \"2026-02-30\")."))
    expect(dateRangeOf({ since: "2026-02-01", until: "2026-01-01" })).toEqual(
      Either.left("--until 2026-01-01 is before --since 2026-02-01; nothing is in that range.")
    )
  })

  it("keep a start whose local day is in the range, both ends included; an unknown start only without a range", () => {
    const noon = (day: string) => new Date(`${day}T12:00:00`).toISOString()
    expect(localDay(noon("2026-01-31"))).toBe("2026-01-31")
    const range = { since: "2026-01-01", until: "20260131" }
    expect([noon("2025-12-31"), noon("2026-01-01"), noon("2026-01-31"), noon("2026-02-01")].map((iso) => inDateRange(iso, range))).toEqual([
      false, true, true, false
    ])
    expect([inDateRange(null, range), inDateRange(null, {})]).toEqual([false, true])
  })

  it("are said in a sentence as they were asked for", () => {
    expect([
      daysWords({ since: "2026-01-01", until: "2026-01-31" }),
      daysWords({ since: "2026-01-01" }),
      daysWords({ until: "2026-01-31" }),
      daysWords({})
    ]).toEqual(["from 2026-01-01 through 2026-01-31", "on or after 2026-01-01", "on or before 2026-01-31", undefined])
  })
})
