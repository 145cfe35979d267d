import { describe, expect, it } from "@effect/vitest"
import { isoMillis } from "../../src/domain/history/json.js"

const same = (text: string) => expect([text, isoMillis(text)]).toEqual([text, Date.parse(text)])

describe("isoMillis", () => {
  it("reads what Date.parse reads, for transcript timestamps minute after minute", () => {
    const start = Date.parse("2024-02-28T23:58:00.000Z")
    for (let offset = 0; offset < 3 * 24 * 3600 * 1000; offset += 7_919) same(new Date(start + offset).toISOString())
    for (const text of ["1970-01-01T00:00:00.000Z", "0000-01-01T00:00:00.000Z", "9999-12-31T23:59:59.999Z"]) same(text)
  })

  it("answers NaN where Date.parse does, and follows Date.parse on every other shape", () => {
    for (
      const text of [
        "2025-13-01T00:00:00.000Z",
        "2025-02-30T10:00:00.000Z",
        "2025-00-10T10:00:00.000Z",
        "2025-12-20T24:00:00.000Z",
        "2025-12-20T24:00:00.001Z",
        "2025-12-20T-1:00:00.000Z",
        "2025-12-20T08:-1:00.000Z",
        "2025-12-20T08:60:00.000Z",
        "2025-12-20T08:57:60.000Z",
        "2025-12-20T08:57:6x.000Z",
        "2025-12-20T08:57:00.0x0Z",
        "2025-12-20T08:57:00.-01Z",
        "2025-12-20T08:57:00.000z",
        "2025-12-20 08:57:00.000Z",
        "2025-12-20T08:57:00.000+01:00",
        "2025-12-20T08:57:00Z",
        "2025-12-20T08:57:00.1Z",
        "2025-12-20T08:57:00.123456Z",
        "+002025-12-20T08:57:00.000Z",
        "2025-12-20",
        "Sat, 20 Dec 2025 08:57:00 GMT",
        "yesterday",
        ""
      ]
    ) same(text)
  })

  it("follows Date.parse on 20,000 mutations of a timestamp (a digit, a separator or a sign changed)", () => {
    const alphabet = "0123456789-+:.TZz "
    let seed = 42
    const random = (bound: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648
      return seed % bound
    }
    for (let round = 0; round < 20_000; round++) {
      const characters = [...new Date(Date.UTC(2020, 0, 1) + random(2_000_000_000) * 1000 + random(1000)).toISOString()]
      for (let change = 0; change <= random(3); change++) characters[random(24)] = alphabet[random(alphabet.length)]!
      same(characters.join(""))
    }
  })

  it("does not carry a minute over to a timestamp of another one with the same seconds", () => {
    same("2025-12-20T08:57:10.000Z")
    same("2025-12-20T08:58:10.000Z")
    same("2025-13-20T08:58:10.000Z")
    same("2025-12-20T08:58:10.000Z")
  })
})
